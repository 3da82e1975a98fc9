// The LEML label index on the trainer (issue 15): answers from the index carry the model's own
// scores, match the SDK's answers from the exported file's index, equal the exact top k when
// the probes reach every label, and learning (any entry point) drops the index.
import { LemlBatch, LemlStream } from "../../../src/models/leml/mod.ts";
import { LowRankScorer } from "../../../src/models/leml/lowrank.ts";
import { withLabelIndex } from "../../../src/linalg/mips_index.ts";
import { encodeModelFile } from "../../../src/format/model_file.ts";
import { SmallRng } from "../../../src/random/mod.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert, assertEquals } from "../../helpers.ts";
import type { SparseVector } from "../../../src/data/types.ts";

/** A scorer with topic-structured label rows (so that leaves mean something). */
function structured(L: number, D: number, r: number, threshold = 0.5): LowRankScorer {
  const rng = new SmallRng(3), s = new LowRankScorer(r, D, L, threshold);
  const topics = 12, centre = Float32Array.from({ length: topics * r }, () => rng.next() * 2 - 1);
  for (let l = 0; l < L; l++) {
    const t = l % topics, scale = 0.5 + rng.next();
    for (let c = 0; c < r; c++) {
      s.h.data[l * r + c] = scale * centre[t * r + c] + 0.2 * (rng.next() - 0.5);
    }
    s.bias.data[l] = 0.3 * (rng.next() - 0.5);
  }
  for (let i = 0; i < D * r; i++) s.w.data[i] = rng.next() * 2 - 1;
  return s;
}

/** u = xᵀW of a scorer (no l2Normalize). */
function latent(s: LowRankScorer, x: SparseVector): Float64Array {
  const r = s.rank, u = new Float64Array(r);
  x.indices.forEach((j, p) => {
    for (let c = 0; c < r; c++) u[c] += x.values[p] * s.w.data[j * r + c];
  });
  return u;
}

function queries(n: number, D: number, seed = 5): SparseVector[] {
  const rng = new SmallRng(seed), out: SparseVector[] = [];
  for (let i = 0; i < n; i++) {
    const idx = new Set<number>();
    while (idx.size < 4) idx.add(Math.floor(rng.next() * D));
    const indices = Int32Array.from([...idx].sort((a, b) => a - b));
    out.push({ indices, values: Float32Array.from(indices, () => 0.2 + rng.next()) });
  }
  return out;
}

Deno.test("LEML label index: exact-scored answers, as the SDK answers from the exported file", () => {
  const L = 2000, D = 40, r = 8, k = 5, s = structured(L, D, r);
  const options = { minLabels: 0, seed: 1 };
  assertEquals(s.indexLabels(), undefined, "no index below 4096 labels by default");
  const idx = s.indexLabels(options)!;
  assert(idx !== undefined && s.labelIndex === idx, "indexed");
  assert(idx.probes < idx.leaves, `probes ${idx.probes} < leaves ${idx.leaves}`);
  // the exported file with the same index, read by the SDK
  const file = encodeModelFile(withLabelIndex(s.toModelContent(), "H", options));
  const sdk = loadModel(file);
  assert(sdk.tensors.mipsPtr !== undefined, "the file has the index");
  let hits = 0;
  for (const x of queries(200, D)) {
    assert(idx.search(latent(s, x), k) !== undefined, "answered from the index, not a scan");
    const fast = s.predictTopK(x, k), exact = s.predictTopK(x, k, { exact: true });
    const all = s.predictScores(x);
    assertEquals(fast.labels.length, k);
    for (let i = 0; i < k; i++) {
      assertEquals(fast.scores[i], all[fast.labels[i]], "the model's own score");
      if (i > 0) assert(fast.scores[i] <= fast.scores[i - 1], "sorted");
    }
    const fromFile = sdk.predictTopK({ indices: [...x.indices], values: [...x.values] }, k);
    assertEquals([...fast.labels].sort(), [...fromFile.labels].sort(), "the SDK's labels");
    // the exact path is the full scan
    const scan = new LowRankScorer(r, D, L, s.threshold);
    scan.w.data.set(s.w.data), scan.h.data.set(s.h.data), scan.bias.data.set(s.bias.data);
    assertEquals([...exact.labels], [...scan.predictTopK(x, k).labels]);
    hits += [...fast.labels].filter((l) => exact.labels.includes(l)).length;
  }
  assert(hits / (200 * k) > 0.9, `recall@5 ${hits / (200 * k)}`);
});

Deno.test("LEML label index: the exact top k when the probed leaves hold it, or all are probed", () => {
  // one group of many small leaves: probing every leaf, the search declines (the quarter rule)
  // and the model scans; probing a tenth of them, the search answers
  const L = 1200, D = 30, r = 4, k = 5, s = structured(L, D, r, 0);
  const idx = s.indexLabels({ minLabels: 0, clusters: 400, groups: 1 })!;
  assertEquals(idx.groups, 1);
  let covered = 0;
  const p = Math.floor(idx.leaves / 10);
  for (const x of queries(60, D, 9)) {
    assert(idx.search(latent(s, x), k, p) !== undefined, "answered from the index");
    const exact = s.predictTopK(x, k, { exact: true });
    // every leaf: the search declines (more than a quarter of the labels) and the model scans
    assertEquals(s.predictTopK(x, k, { probes: idx.leaves }), exact);
    // a probe budget under a quarter of the labels: each answer is exact-scored, and whenever
    // the probed leaves hold the exact top k the answer is exactly it
    const fast = s.predictTopK(x, k, { probes: p });
    const all = s.predictScores(x);
    for (let i = 0; i < k; i++) assertEquals(fast.scores[i], all[fast.labels[i]]);
    if ([...exact.labels].every((l) => fast.labels.includes(l))) {
      assertEquals(fast, exact);
      covered++;
    }
  }
  assert(covered > 30, `the probed leaves held the exact top k for ${covered} of 60 queries`);
});

Deno.test("LEML label index: every learning entry point drops it, the next answer is exact", () => {
  const L = 300, D = 20, rng = new SmallRng(11);
  const x = (): SparseVector => {
    const j = Math.floor(rng.next() * (D - 1));
    return { indices: Int32Array.of(j, j + 1), values: Float32Array.of(1, 0.5) };
  };
  const stream = new LemlStream({ rank: 4, numFeatures: D, numLabels: L, lr: 0.05, seed: 1 });
  const batchOf = (n: number) => {
    const rows = Array.from({ length: n }, x);
    return {
      x: {
        numRows: n,
        numCols: D,
        indptr: Int32Array.from({ length: n + 1 }, (_, i) => 2 * i),
        indices: Int32Array.from(rows.flatMap((r) => [...r.indices])),
        values: Float32Array.from(rows.flatMap((r) => [...r.values])),
      },
      y: {
        numRows: n,
        numCols: L,
        indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
        indices: Int32Array.from({ length: n }, () => Math.floor(rng.next() * L)),
      },
    };
  };
  const steps: [string, () => void][] = [
    ["learnOne", () => stream.learnOne(x(), [3])],
    ["learnMany", () => stream.learnMany(batchOf(8))],
    ["scoreThenLearn", () => void stream.scoreThenLearn(batchOf(8), 5)],
    ["grow", () => stream.grow(D + 1, L + 2)],
    ["markLearned", () => stream.markLearned()],
  ];
  for (const [name, step] of steps) {
    const idx = stream.indexLabels({ minLabels: 0, probes: 2 })!;
    assert(stream.labelIndex === idx, `${name}: indexed`);
    const q = x();
    step();
    assertEquals(stream.labelIndex, undefined, `${name} drops the index`);
    assertEquals(stream.predictTopK(q, 5), stream.predictTopK(q, 5, { exact: true }), name);
  }
  const local = new LemlStream({
    rank: 4,
    numFeatures: D,
    numLabels: L,
    update: "local",
    replay: 8,
    refreshEvery: 0,
  });
  local.learnOne(x(), [1]);
  local.indexLabels({ minLabels: 0 });
  local.refresh();
  assertEquals(local.labelIndex, undefined, "refresh drops the index");
  const batch = new LemlBatch({ rank: 2, iterations: 1, numFeatures: D, numLabels: L });
  batch.learnOne(x(), [1]);
  batch.indexLabels({ minLabels: 0 });
  batch.learnOne(x(), [2]);
  assertEquals(batch.labelIndex, undefined, "a batch refit drops the index");
  // a change of storage or threshold outside the entry points is caught too
  stream.indexLabels({ minLabels: 0 });
  stream.h.load(stream.h.snapshot());
  assertEquals(stream.labelIndex, undefined, "new H storage");
});

Deno.test("LEML label index: queryRows are the rows the scores are computed from", () => {
  const s = structured(50, 30, 4, 0.25), xs = queries(20, 30);
  const Q = s.queryRows(xs);
  assertEquals(Q.length, 20 * 4);
  for (let i = 0; i < xs.length; i++) {
    const u = latent(s, xs[i]), scores = s.predictScores(xs[i]);
    for (let c = 0; c < 4; c++) assert(Math.abs(Q[i * 4 + c] - u[c]) < 1e-5, `row ${i} col ${c}`);
    for (let l = 0; l < 50; l += 7) {
      let z = s.bias.data[l] - s.threshold;
      for (let c = 0; c < 4; c++) z += Q[i * 4 + c] * s.h.data[l * 4 + c];
      assert(Math.abs(z - scores[l]) < 1e-4, `label ${l}: ${z} vs ${scores[l]}`);
    }
  }
});

Deno.test("LEML label index: probes calibrated on the model's own queries reach the recall on them", () => {
  // queries unlike the exporter's synthetic ones (which sum a few label rows): a random dense W
  // makes u point anywhere; calibrated on a sample of such queries, the recall holds on others
  const L = 4200, D = 60, r = 8, k = 5, s = structured(L, D, r, 0);
  const xs = queries(300, D, 11), held = queries(300, D, 12);
  const recall = (probes?: number) => {
    let hits = 0;
    for (const x of held) {
      const exact = s.predictTopK(x, k, { exact: true }).labels;
      const fast = s.predictTopK(x, k, probes === undefined ? {} : { probes }).labels;
      for (const l of fast) if (exact.includes(l)) hits++;
    }
    return hits / (k * held.length);
  };
  const synthetic = s.indexLabels()!; // 4096 labels or more: the file's index
  const rSynthetic = recall();
  s.calibration = s.queryRows(xs);
  const own = s.indexLabels()!;
  const rOwn = recall();
  assert(rOwn >= 0.98, `recall on held-out queries ${rOwn} (probes ${own.probes})`);
  assert(rOwn >= rSynthetic, `own ${rOwn} vs synthetic ${rSynthetic}`);
  assert(
    own.probes !== synthetic.probes || own.groupProbes !== synthetic.groupProbes,
    "the calibration used the queries",
  );
  // the exported file carries the same calibrated probes, and the SDK answers as the trainer
  const sdk = loadModel(s.toModelFile());
  assert(sdk.tensors.mipsPtr !== undefined, "the file has the index");
  assertEquals(sdk.params.mipsProbes, own.probes);
  assertEquals(sdk.params.mipsGroupProbes, own.groupProbes);
});

/** A LEML stream (rank 4, reservoir 200) that learned n = 100 rows of 3 of 30 features. */
function learnedStream(L: number, seed: number) {
  const rng = new SmallRng(seed + 7), D = 30, n = 100;
  const m = new LemlStream({ rank: 4, replay: 200, seed });
  m.grow(D, L);
  const indptr = Int32Array.from({ length: n + 1 }, (_, i) => 3 * i);
  const x = {
    numRows: n,
    numCols: D,
    indptr,
    indices: Int32Array.from({ length: 3 * n }, (_, p) => (p % 3) * 10 + (Math.floor(p / 3) % 10)),
    values: Float32Array.from({ length: 3 * n }, () => 0.5 + rng.next()),
  };
  const y = {
    numRows: n,
    numCols: L,
    indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
    indices: Int32Array.from({ length: n }, () => Math.floor(rng.next() * L)),
  };
  m.learnMany({ x, y });
  return { m, x, indptr, n };
}

Deno.test("LEML stream: the label index calibrates on the replay reservoir, in the file too", () => {
  const { m, x, indptr, n } = learnedStream(4200, 2);
  assertEquals(m.replayRows, n);
  const before = JSON.stringify(
    m.toState(),
    (_, v) => ArrayBuffer.isView(v) ? [...v as Float32Array] : v,
  );
  const input = m.labelIndexInput();
  assertEquals(input.queries?.length, n * 4, "every reservoir row is a calibration query");
  const rows = Array.from({ length: n }, (_, i) => ({
    indices: x.indices.subarray(indptr[i], indptr[i + 1]),
    values: x.values.subarray(indptr[i], indptr[i + 1]),
  }));
  assertEquals([...input.queries!], [...m.queryRows(rows)]);
  const idx = m.indexLabels()!;
  const file = loadModel(m.toModelFile());
  assertEquals(file.params.mipsProbes, idx.probes);
  assertEquals(file.params.mipsGroupProbes, idx.groupProbes);
  const after = JSON.stringify(
    m.toState(),
    (_, v) => ArrayBuffer.isView(v) ? [...v as Float32Array] : v,
  );
  assert(before === after, "calibrating does not touch the model's state");
});

Deno.test("LEML stream replica: calibrates its label index on the learner's queries", () => {
  for (const L of [4200, 100]) {
    const { m } = learnedStream(L, 3);
    const state = m.toReplicaState(), queries = m.calibrationQueries()!;
    if (L < 4096) {
      // no label index below its threshold: no queries carried
      assertEquals(state.tensors.calibration, undefined);
      continue;
    }
    assertEquals([...state.tensors.calibration!], [...queries]);
    const replica = LemlStream.fromState(state, true);
    assertEquals(replica.replayRows, 0, "a replica holds no rows");
    assertEquals([...replica.calibrationQueries()!], [...queries]);
    // the replica's index calibrates as the learner's (and its file's)
    const a = m.indexLabels({ minLabels: 0 })!, b = replica.indexLabels({ minLabels: 0 })!;
    assertEquals([b.probes, b.groupProbes], [a.probes, a.groupProbes]);
    const synthetic = LemlStream.fromState({
      ...state,
      tensors: { W: state.tensors.W, H: state.tensors.H, bias: state.tensors.bias },
    });
    assertEquals(synthetic.calibrationQueries(), undefined, "without them: synthetic queries");
    let error: unknown;
    try {
      LemlStream.fromState({
        ...state,
        tensors: { ...state.tensors, calibration: new Float32Array(5) },
      });
    } catch (e) {
      error = e;
    }
    assert(error instanceof RangeError && /calibration/.test(error.message), `${error}`);
  }
});
