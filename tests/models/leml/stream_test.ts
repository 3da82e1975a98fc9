import { LemlStream } from "../../../src/models/leml/stream.ts";
import { lossValue } from "../../../src/models/leml/loss.ts";
import type { LemlLoss } from "../../../src/models/leml/loss.ts";
import type { Batch } from "../../../src/data/types.ts";
import { SmallRng } from "../../../src/random/mod.ts";
import { assert } from "../../helpers.ts";
import { randomBatch, topicRows } from "./helpers.ts";

/**
 * The streaming objective computed naively (materialising the n×L scores), in float64 from the
 * model's float32 factors, with W/H/bias replaced by the given float64 arrays.
 */
function naiveObjective(
  b: Batch,
  loss: LemlLoss,
  lambda: number,
  k: number,
  L: number,
  W: Float64Array,
  H: Float64Array,
  bias: Float64Array,
  l2Normalize = false,
): number {
  const n = b.x.numRows;
  let f = 0;
  const touchedW = new Set<number>();
  for (let i = 0; i < n; i++) {
    const u = new Float64Array(k);
    let norm = 0;
    for (let p = b.x.indptr[i]; p < b.x.indptr[i + 1]; p++) norm += b.x.values[p] ** 2;
    const scale = l2Normalize && norm > 0 ? 1 / Math.sqrt(norm) : 1;
    for (let p = b.x.indptr[i]; p < b.x.indptr[i + 1]; p++) {
      const j = b.x.indices[p];
      touchedW.add(j);
      for (let c = 0; c < k; c++) u[c] += scale * b.x.values[p] * W[j * k + c];
    }
    const pos = new Set(Array.from(b.y.indices.subarray(b.y.indptr[i], b.y.indptr[i + 1])));
    const full = !b.observed || b.fullyObserved![i] === 1;
    const obs = full ? Array.from({ length: L }, (_, l) => l) : [
      ...new Set([
        ...pos,
        ...Array.from(
          b.observed!.indices.subarray(b.observed!.indptr[i], b.observed!.indptr[i + 1]),
        ),
      ]),
    ];
    for (const l of obs) {
      let z = bias[l];
      for (let c = 0; c < k; c++) z += u[c] * H[l * k + c];
      f += lossValue(loss, z, pos.has(l) ? 1 : 0) / n;
    }
  }
  let reg = 0;
  for (const j of touchedW) for (let c = 0; c < k; c++) reg += W[j * k + c] ** 2;
  for (let a = 0; a < L * k; a++) reg += H[a] ** 2; // every label row gets a gradient here
  return f + 0.5 * lambda * reg;
}

function checkGradient(
  loss: LemlLoss,
  masked: boolean,
  l2Normalize = false,
  size = { D: 6, L: 5, k: 3, n: 4 },
): void {
  const { D, L, k, n } = size, lambda = 0.05;
  const m = new LemlStream({
    rank: k,
    numFeatures: D,
    numLabels: L,
    loss,
    lambda,
    seed: 3,
    l2Normalize,
  });
  // non-trivial W and bias: train a few steps first
  for (let s = 0; s < 5; s++) m.learnMany(randomBatch(100 + s, n, D, L, masked));
  const b = randomBatch(7, n, D, L, masked);
  // with the masks every row's entries are explicit; without, only the squared loss is exact
  const g = m.batchGradient(b);
  const W = Float64Array.from(m.w.snapshot()), H = Float64Array.from(m.h.snapshot());
  const bias = Float64Array.from(m.bias.snapshot());
  const f = () => naiveObjective(b, loss, lambda, k, L, W, H, bias, l2Normalize);
  const eps = 1e-5;
  let maxErr = 0, maxAbs = 0;
  const probe = (arr: Float64Array, grad: Float64Array) => {
    for (let a = 0; a < arr.length; a++) {
      const old = arr[a];
      arr[a] = old + eps;
      const fp = f();
      arr[a] = old - eps;
      const fm = f();
      arr[a] = old;
      const fd = (fp - fm) / (2 * eps);
      maxErr = Math.max(maxErr, Math.abs(fd - grad[a]));
      maxAbs = Math.max(maxAbs, Math.abs(fd));
    }
  };
  probe(W, g.W);
  probe(H, g.H);
  probe(bias, g.bias);
  assert(maxAbs > 1e-3, `gradient is trivially small (${maxAbs})`);
  assert(maxErr < 1e-5 * Math.max(1, maxAbs), `${loss}: max |fd - grad| = ${maxErr}`);
}

Deno.test("leml stream: squared-loss Gram gradient matches finite differences", () => {
  checkGradient("squared", false);
});

Deno.test("leml stream: blocked Gram kernels (4 rows/labels/outputs at a time) and their remainders match finite differences", () => {
  // rank 6 = one block of 4 + 2, 9 fully observed rows = 2 blocks + 1, 7 labels = 1 block + 3
  checkGradient("squared", false, false, { D: 8, L: 7, k: 6, n: 9 });
  checkGradient("squared", true, false, { D: 8, L: 7, k: 6, n: 9 });
  checkGradient("squared", false, true, { D: 8, L: 8, k: 8, n: 8 });
});

Deno.test("leml stream: gradients on unit-L2 rows match finite differences", () => {
  checkGradient("squared", false, true);
  checkGradient("squared", true, true);
});

Deno.test("leml stream: observed-entry gradients match finite differences", () => {
  // rows 0, 2 fully observed (Gram path for squared), rows 1, 3 masked (explicit entries)
  checkGradient("squared", true);
});

Deno.test("leml stream: logistic and squared hinge gradients on masked rows", () => {
  for (const loss of ["logistic", "sqhinge"] as const) {
    const D = 5, L = 4, k = 2;
    const m = new LemlStream({ rank: k, numFeatures: D, numLabels: L, loss, lambda: 0.01 });
    const b0 = randomBatch(21, 4, D, L, true);
    // every row masked: mark all rows partial so no sampling happens
    const b: Batch = { ...b0, fullyObserved: new Uint8Array(4) };
    for (let s = 0; s < 3; s++) m.learnMany(b);
    const g = m.batchGradient(b);
    const W = Float64Array.from(m.w.snapshot()), H = Float64Array.from(m.h.snapshot());
    const bias = Float64Array.from(m.bias.snapshot());
    // H rows without observed entries get no gradient (and no λ): compare only touched rows
    const touched = new Set<number>();
    for (let i = 0; i < 4; i++) {
      for (let p = b.y.indptr[i]; p < b.y.indptr[i + 1]; p++) touched.add(b.y.indices[p]);
      for (let p = b.observed!.indptr[i]; p < b.observed!.indptr[i + 1]; p++) {
        touched.add(b.observed!.indices[p]);
      }
    }
    const obj = () => {
      const Hm = H.slice();
      for (let l = 0; l < L; l++) if (!touched.has(l)) Hm.fill(0, l * k, l * k + k);
      return naiveObjective(b, loss, 0.01, k, L, W, Hm, bias);
    };
    const eps = 1e-5;
    for (const [arr, grad] of [[W, g.W], [H, g.H], [bias, g.bias]] as const) {
      for (let a = 0; a < arr.length; a++) {
        const old = arr[a];
        arr[a] = old + eps;
        const fp = obj();
        arr[a] = old - eps;
        const fm = obj();
        arr[a] = old;
        const fd = (fp - fm) / (2 * eps);
        assert(Math.abs(fd - grad[a]) < 1e-5, `${loss} entry ${a}: fd ${fd} vs grad ${grad[a]}`);
      }
    }
  }
});

Deno.test("leml stream: sampled negatives give an unbiased gradient on average", () => {
  const D = 4, L = 12, k = 2;
  const exact = new LemlStream({ rank: k, numFeatures: D, numLabels: L, loss: "logistic" });
  const sampled = new LemlStream({
    rank: k,
    numFeatures: D,
    numLabels: L,
    loss: "logistic",
    negatives: 3,
  });
  const b = randomBatch(5, 3, D, L, false);
  // exact: every entry listed as observed
  const all: Batch = {
    ...b,
    observed: {
      numRows: 3,
      numCols: L,
      indptr: Int32Array.of(0, L, 2 * L, 3 * L),
      indices: Int32Array.from({ length: 3 * L }, (_, a) => a % L),
    },
    fullyObserved: new Uint8Array(3),
  };
  const ge = exact.batchGradient(all);
  const avg = new Float64Array(ge.W.length);
  const reps = 3000;
  for (let r = 0; r < reps; r++) {
    // advance the sampler's RNG with a throwaway step on a copy
    const g = sampled.batchGradient(b);
    for (let a = 0; a < avg.length; a++) avg[a] += g.W[a] / reps;
    sampled.learnMany({ ...b, y: { ...b.y } }); // moves the RNG (and the model)
    sampled.w.data.set(exact.w.data.subarray(0, D * k));
    sampled.h.data.set(exact.h.data.subarray(0, L * k));
    sampled.bias.data.set(exact.bias.data.subarray(0, L));
  }
  let err = 0, scale = 0;
  for (let a = 0; a < avg.length; a++) {
    err = Math.max(err, Math.abs(avg[a] - ge.W[a]));
    scale = Math.max(scale, Math.abs(ge.W[a]));
  }
  assert(scale > 1e-3, "exact gradient is trivially small");
  assert(err < 0.05 * scale, `sampled W gradient mean off by ${err} (scale ${scale})`);
});

Deno.test("leml stream: never materialises n×L: learns a planted low-rank structure", () => {
  // 3 latent topics; label l belongs to topic l % 3; features 0..8 = topic (j % 3)
  const m = new LemlStream({ rank: 3, lr: 0.05, seed: 1 });
  const rng = new SmallRng(9);
  for (let s = 0; s < 200; s++) {
    m.learnMany(topicRows(Array.from({ length: 32 }, () => rng.nextInt(3))));
  }
  const s = m.predictScores({ indices: Int32Array.of(1, 4), values: Float32Array.of(1, 1) });
  for (let l = 0; l < 12; l++) {
    if (l % 3 === 1) assert(s[l] > 0, `label ${l} should be predicted (score ${s[l]})`);
    else assert(s[l] < 0, `label ${l} should not be predicted (score ${s[l]})`);
  }
});

Deno.test("leml stream: rejects malformed batches with a clear message", () => {
  const m = new LemlStream({ rank: 2 });
  let msg = "";
  try {
    m.learnMany({
      x: {
        numRows: 1,
        numCols: 4,
        indptr: Int32Array.of(0, 2),
        indices: Int32Array.of(3, 1),
        values: Float32Array.of(1, 1),
      },
      y: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 0), indices: new Int32Array(0) },
    });
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(/row 0 of x/.test(msg), `unexpected message: ${msg}`);
  assert(m.numFeatures === 0 && m.step === 0, "a rejected batch changed the model");
});

Deno.test("leml stream: replay keeps a topic-sorted stream from forgetting, memory bounded", () => {
  // one pass over a stream sorted by topic: 60 batches of topic 0, then 60 of topic 1, then 2
  const run = (replay: number) => {
    const m = new LemlStream({ rank: 3, lr: 0.05, seed: 2, replay, replayRatio: 2 });
    for (let t = 0; t < 3; t++) {
      for (let s = 0; s < 60; s++) m.learnMany(topicRows(Array(8).fill(t)));
    }
    assert(m.replayRows <= replay, `reservoir holds ${m.replayRows} rows > ${replay}`);
    // mean margin of topic 0's rows: its labels' scores minus the other labels' scores
    const sc = m.predictScores({ indices: Int32Array.of(0, 3), values: Float32Array.of(1, 1) });
    let pos = 0, neg = 0;
    for (let l = 0; l < 12; l++) l % 3 === 0 ? (pos += sc[l] / 4) : (neg += sc[l] / 8);
    return {
      m,
      margin: pos - neg,
      p1: m.predictTopK({ indices: Int32Array.of(0, 3), values: Float32Array.of(1, 1) }, 1)
        .labels[0] % 3,
    };
  };
  const without = run(0), withReplay = run(50);
  assert(withReplay.m.replayRows === 50, `reservoir should be full: ${withReplay.m.replayRows}`);
  assert(withReplay.p1 === 0, `with replay, topic 0's top label is in topic ${withReplay.p1}`);
  assert(
    withReplay.margin > 0.5 && withReplay.margin > without.margin + 0.2,
    `topic-0 margin with replay ${withReplay.margin}, without ${without.margin}`,
  );
});

Deno.test("leml stream: replay state restores bit for bit, masks included", () => {
  const mk = () =>
    new LemlStream({ rank: 3, seed: 5, replay: 6, replayRatio: 1.5, replaySteps: 2 });
  const a = mk();
  for (let s = 0; s < 6; s++) a.learnMany(randomBatch(40 + s, 4, 6, 5, s % 2 === 1));
  const state = a.toState();
  assert(state.tensors.resXIndptr?.length === 7, "the reservoir is missing from the state");
  assert(
    state.tensors.resFull !== undefined && Array.from(state.tensors.resFull).includes(0),
    "masked rows lost their mask",
  );
  const b = LemlStream.fromState(state);
  for (let s = 0; s < 3; s++) {
    const batch = randomBatch(60 + s, 4, 6, 5, true);
    a.learnMany(batch);
    b.learnMany(batch);
  }
  assert(a.step === 18 && b.step === 18, `steps ${a.step}, ${b.step}: replaySteps per batch`);
  assert(a.w.snapshot().join() === b.w.snapshot().join(), "W differs after the restore");
  assert(a.h.snapshot().join() === b.h.snapshot().join(), "H differs after the restore");
  // without replay the state carries no reservoir
  assert(new LemlStream({ rank: 2 }).toState().tensors.resXIndptr === undefined, "stray reservoir");
  let msg = "";
  try {
    new LemlStream({ rank: 2, replay: 1.5 });
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("replay"), `unexpected message: ${msg}`);
});

/** Rows of a batch as sparse vectors. */
function rowsOf(b: Batch): { indices: Int32Array; values: Float32Array }[] {
  const out = [];
  for (let i = 0; i < b.x.numRows; i++) {
    const p0 = b.x.indptr[i], p1 = b.x.indptr[i + 1];
    out.push({ indices: b.x.indices.subarray(p0, p1), values: b.x.values.subarray(p0, p1) });
  }
  return out;
}

Deno.test("leml stream: scoreThenLearn = predictTopK before the batch, then the same model as learnMany", () => {
  const configs: Record<string, unknown>[] = [
    { rank: 6 },
    { rank: 5, optimizer: "sgd", lrDecay: 0.1 },
    { rank: 4, l2Normalize: true },
    { rank: 6, loss: "logistic", negatives: 3 },
    { rank: 3, replay: 7, replayRatio: 1.5, replaySteps: 2 },
    { rank: 4, replay: 5, l2Normalize: true, loss: "sqhinge" },
  ];
  for (const cfg of configs) {
    const name = JSON.stringify(cfg);
    const a = new LemlStream({ seed: 9, lr: 0.05, ...cfg }),
      b = new LemlStream({ seed: 9, lr: 0.05, ...cfg });
    let compared = 0, differ = 0;
    for (let s = 0; s < 12; s++) {
      // the spaces grow mid-stream (new features and labels), some batches carry masks,
      // batch sizes vary (1 to 9 rows)
      const batch = randomBatch(300 + s, 1 + (s * 5) % 9, 4 + s, 3 + (s >> 1), s % 3 === 2);
      const k = s % 4 === 0 ? 0 : 3;
      const expected = rowsOf(batch).map((x) => a.predictTopK(x, k));
      a.learnMany(batch);
      const got = b.scoreThenLearn(batch, k);
      assert(got.length === batch.x.numRows, `${name}: ${got.length} top lists`);
      for (let i = 0; i < got.length; i++) {
        assert(
          got[i].labels.join() === expected[i].labels.join() &&
            got[i].scores.join() === expected[i].scores.join(),
          `${name}, batch ${s}, row ${i}: ${got[i].labels}/${got[i].scores} vs ${
            expected[i].labels
          }/${expected[i].scores}`,
        );
        compared += got[i].labels.length;
        if (s > 0 && got[i].labels.join() !== b.predictTopK(rowsOf(batch)[i], k).labels.join()) {
          differ++;
        }
      }
    }
    assert(compared > 50, `${name}: only ${compared} labels compared`);
    assert(
      differ > 0,
      `${name}: the model never changed a top list (the scores must be pre-update)`,
    );
    const sa = a.toState(), sb = b.toState();
    assert(
      sa.scalars.step === sb.scalars.step && sa.scalars.rngState === sb.scalars.rngState,
      `${name}: steps or RNG differ`,
    );
    for (const t of Object.keys(sa.tensors)) {
      assert(
        Array.from(sa.tensors[t]).join() === Array.from(sb.tensors[t]).join(),
        `${name}: tensor ${t} differs from learnMany's`,
      );
    }
  }
});

Deno.test("leml stream: scoreThenLearn on an empty model, and bad k or batch, learn nothing", () => {
  const m = new LemlStream({ rank: 2 });
  const b = randomBatch(5, 3, 4, 3, false);
  const tops = m.scoreThenLearn(b, 2);
  assert(
    tops.length === 3 && tops.every((t) => t.labels.length === 0),
    "no label before the batch",
  );
  assert(m.numLabels === 3 && m.step === 1, "the batch was learned");
  const before = m.toState();
  for (const k of [-1, 1.5]) {
    let msg = "";
    try {
      m.scoreThenLearn(b, k);
    } catch (e) {
      msg = (e as Error).message;
    }
    assert(msg.includes("scoreThenLearn: k must be"), `k = ${k}: ${msg}`);
  }
  let msg = "";
  try {
    m.scoreThenLearn({ ...b, y: { ...b.y, numRows: 2 } }, 2);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(
    msg.includes("leml.scoreThenLearn: x has 3 rows but y has 2"),
    `unexpected message: ${msg}`,
  );
  assert(
    m.step === before.scalars.step && m.w.snapshot().join() === Array.from(before.tensors.W).join(),
    "a refused batch changed the model",
  );
});

Deno.test("leml stream: a replica from toReplicaState predicts like the model, without moments or replay, adopting its arrays", () => {
  const a = new LemlStream({ rank: 3, seed: 5, replay: 6, replayRatio: 1.5, l2Normalize: true });
  for (let s = 0; s < 6; s++) a.learnMany(randomBatch(40 + s, 4, 6, 5, s % 2 === 1));
  const state = a.toReplicaState();
  assert(Object.keys(state.tensors).join() === "W,H,bias", Object.keys(state.tensors).join());
  const r = LemlStream.fromState(state, true);
  assert(r.w.data === state.tensors.W && r.h.data === state.tensors.H, "W and H were copied");
  assert(r.toState().tensors.mW === undefined, "the replica carries Adam moments");
  for (const x of rowsOf(randomBatch(70, 6, 6, 5, false))) {
    assert(r.predictScores(x).join() === a.predictScores(x).join(), "scores differ");
  }
  // fresh copies: the model keeps learning, the replica does not move
  const before = r.w.snapshot().join();
  a.learnMany(randomBatch(80, 4, 6, 5, false));
  assert(r.w.snapshot().join() === before, "the replica shares the model's arrays");
  assert(a.w.snapshot().join() !== before, "the model did not learn");
  // without adopt, restore copies
  const c = LemlStream.fromState(state);
  assert(c.w.data !== state.tensors.W, "restore without adopt kept the state's array");
});
