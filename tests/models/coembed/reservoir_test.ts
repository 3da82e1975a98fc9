/**
 * The replay reservoir: bounded, a uniform sample of the rows seen, restorable bit for bit; and
 * what it is for: one pass over a stream sorted by label (scene's file order) forgets the early
 * labels without replay and keeps them with it.
 */
import { RowReservoir } from "../../../src/models/coembed/reservoir.ts";
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import type { Batch } from "../../../src/data/types.ts";
import { macroAucOf, maskedCsr, rand, synthetic } from "./helpers.ts";

function rowsBatch(first: number, n: number): Batch {
  // row r has the single feature r % 7 with value r and the label r % 3
  const xp = Int32Array.from({ length: n + 1 }, (_, i) => i);
  return {
    x: {
      numRows: n,
      numCols: 7,
      indptr: xp,
      indices: Int32Array.from({ length: n }, (_, i) => (first + i) % 7),
      values: Float32Array.from({ length: n }, (_, i) => first + i),
    },
    y: {
      numRows: n,
      numCols: 3,
      indptr: xp,
      indices: Int32Array.from({ length: n }, (_, i) => (first + i) % 3),
    },
  };
}

Deno.test("reservoir: bounded, uniform over the rows seen, exact copies", () => {
  const counts = new Float64Array(200);
  for (let seed = 0; seed < 300; seed++) {
    const r = new RowReservoir(20, seed);
    for (let b = 0; b < 200; b += 25) r.addRows(rowsBatch(b, 25));
    if (r.size !== 20 || r.seen !== 200) throw new Error(`size ${r.size}, seen ${r.seen}`);
    const all = r.sample(50);
    if (all.x.numRows !== 20) throw new Error(`sampled ${all.x.numRows} rows of 20`);
    const seen = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const v = all.x.values[i], row = Math.round(v);
      if (all.x.indices[i] !== row % 7 || all.y.indices[i] !== row % 3) {
        throw new Error(`row ${row} was not copied faithfully`);
      }
      if (seen.has(row)) throw new Error(`row ${row} drawn twice`);
      seen.add(row);
      counts[row]++;
    }
  }
  // every row is kept with probability 20/200: 30 times in 300 runs on average
  const early = counts.slice(0, 100).reduce((a, b) => a + b, 0) / 100;
  const late = counts.slice(100).reduce((a, b) => a + b, 0) / 100;
  if (Math.abs(early - 30) > 4 || Math.abs(late - 30) > 4) {
    throw new Error(`kept ${early} early vs ${late} late rows per 300 runs (expected 30)`);
  }
});

Deno.test("reservoir: restored from its state it continues identically", () => {
  const a = new RowReservoir(10, 3);
  a.addRows(rowsBatch(0, 40));
  const s = a.toState();
  const b = RowReservoir.fromState(10, 3, s.scalars, s.tensors);
  a.addRows(rowsBatch(40, 30));
  b.addRows(rowsBatch(40, 30));
  const sa = a.sample(6), sb = b.sample(6);
  if (sa.x.values.join() !== sb.x.values.join()) {
    throw new Error(`${sa.x.values.join()} vs ${sb.x.values.join()}`);
  }
  let msg = "";
  try {
    RowReservoir.fromState(10, 3, s.scalars, { ...s.tensors, resYIndptr: undefined });
  } catch (e) {
    msg = (e as Error).message;
  }
  if (!msg.includes("reservoir")) throw new Error(`unexpected: ${msg}`);
});

Deno.test("replay keeps one pass over a label-sorted stream from forgetting", () => {
  // one label per row (the argmax of a latent score, as in scene), rows sorted by label
  const s = synthetic(600, 12, 4, 31);
  s.y.fill(0);
  const g = rand(33);
  const B = Float64Array.from({ length: s.D * s.L }, () => g() - 0.5);
  for (let r = 0; r < s.N; r++) {
    let best = 0, bestScore = -Infinity;
    for (let j = 0; j < s.L; j++) {
      let z = 0;
      for (let d = 0; d < s.D; d++) z += s.x[r * s.D + d] * B[d * s.L + j];
      if (z > bestScore) [best, bestScore] = [j, z];
    }
    s.y[r * s.L + best] = 1;
  }
  const label = (r: number) => s.y.subarray(r * s.L, (r + 1) * s.L).indexOf(1);
  const order = Array.from({ length: 500 }, (_, r) => r).sort((a, b) =>
    label(a) - label(b) || a - b
  );
  const sorted = { ...s, x: new Float64Array(s.x.length), y: new Uint8Array(s.y.length) };
  order.forEach((r, i) => {
    sorted.x.set(s.x.subarray(r * s.D, (r + 1) * s.D), i * s.D);
    sorted.y.set(s.y.subarray(r * s.L, (r + 1) * s.L), i * s.L);
  });
  const m = maskedCsr(sorted, 0, 500, 0.6, 0.3, 32);
  const auc = (replay: number) => {
    const est = CoEmbedLearner.create(
      { variant: "L", rankX: 4, absent: "missing", replay, seed: 4 },
      s.D,
      s.L,
    );
    for (let b = 0; b < 500; b += 25) {
      const xo = m.x.indptr[b], yo = m.y.indptr[b];
      est.learnMany({
        x: {
          numRows: 25,
          numCols: s.D,
          indptr: m.x.indptr.slice(b, b + 26).map((p) => p - xo),
          indices: m.x.indices.subarray(xo, m.x.indptr[b + 25]),
          values: m.x.values.subarray(xo, m.x.indptr[b + 25]),
        },
        y: {
          numRows: 25,
          numCols: s.L,
          indptr: m.y.indptr.slice(b, b + 26).map((p) => p - yo),
          indices: m.y.indices.subarray(yo, m.y.indptr[b + 25]),
        },
      });
    }
    const all = Int32Array.from({ length: s.D }, (_, d) => d);
    const scores = new Float32Array(100 * s.L);
    for (let i = 0; i < 100; i++) {
      const x = Float32Array.from(s.x.subarray((500 + i) * s.D, (501 + i) * s.D));
      scores.set(est.predictScores({ indices: all, values: x }), i * s.L);
    }
    return macroAucOf(scores, s.y.subarray(500 * s.L), 100, s.L);
  };
  const without = auc(0), withReplay = auc(500);
  if (!(withReplay > 0.8 && withReplay > without + 0.05)) {
    throw new Error(`macro-AUC with replay ${withReplay}, without ${without}`);
  }
});
