// The label index on the streaming CoEmbed learner (issue 15, as LEML's and the CoEmbed
// replica's): answers from the index carry the predictor's own scores, match the SDK's answers
// from an exported file with the same index, recall the exact top k well, `exact: true` is the
// dense scan, every learning entry point drops the index (the next answers are the new model's
// exact ones), and neither indexing nor predicting changes the model.
import {
  CoEmbedEstimator,
  CoEmbedReplica,
  factory,
  RandomFeaturesPredictor,
} from "../../../src/models/coembed/mod.ts";
import { withLabelIndex } from "../../../src/linalg/mips_index.ts";
import { encodeModelFile } from "../../../src/format/model_file.ts";
import { topKDense } from "../../../sdk/internal.ts";
import { loadModel } from "../../../sdk/mod.ts";
import type { SparseVector } from "../../../src/data/types.ts";
import { assert, assertEquals } from "../../helpers.ts";
import { maskedCsr, rand, rowsBatch, synthetic } from "./helpers.ts";

const D = 12, K = 5;

/** A learner trained on 240 synthetic rows with L labels (1500 unless given). */
function trained(L = 1500): CoEmbedEstimator {
  const s = synthetic(300, D, L, 41);
  const m = maskedCsr(s, 0, 240, 0.9, 0, 42);
  const est = CoEmbedEstimator.create(
    { variant: "NL", numRff: 32, gamma: 0.2, streamSteps: 3, replay: 64, seed: 5 },
    D,
    L,
  );
  for (let i = 0; i < 240; i += 40) est.learnMany(rowsBatch(m, i, 40));
  return est;
}

/** Dense query rows of the synthetic problem's held-out part (rows 240..299). */
function queries(n: number, L = 1500): SparseVector[] {
  const s = synthetic(300, D, L, 41), out: SparseVector[] = [];
  const all = Int32Array.from({ length: D }, (_, d) => d);
  for (let i = 0; i < n; i++) {
    const r = 240 + i;
    out.push({ indices: all, values: Float32Array.from(s.x.subarray(r * D, (r + 1) * D)) });
  }
  return out;
}

Deno.test("CoEmbed learner label index: exact-scored answers, the SDK's, good recall", () => {
  const small = trained();
  assertEquals(small.indexLabels(), undefined, "no index below 4096 labels by default");
  assertEquals(small.labelIndex, undefined);
  // 5000 labels: the model file's default index (calibrated probes, under a quarter of them)
  const L = 5000, est = trained(L), options = {};
  const idx = est.indexLabels()!;
  assert(idx !== undefined && est.labelIndex === idx, "indexed");
  assert(idx.probes < idx.leaves, `probes ${idx.probes} < leaves ${idx.leaves}`);
  // the exported file with the same index, read by the SDK; the replica indexed alike
  const sdk = loadModel(encodeModelFile(withLabelIndex(est.toModelFileContent(), "P", options)));
  assert(sdk.tensors.mipsPtr !== undefined, "the file has the index");
  const replica = factory.restore(est.toReplicaState()) as CoEmbedReplica;
  replica.indexLabels(options);
  let hits = 0, differ = 0;
  const qs = queries(60, L), predictor = new RandomFeaturesPredictor(est.core.predictorTensors());
  for (const x of qs) {
    const q = predictor.query(x.indices, x.values);
    assert(idx.search(q, K) !== undefined, "answered from the index, not a scan");
    const fast = est.predictTopK(x, K), exact = est.predictTopK(x, K, { exact: true });
    const all = est.predictScores(x);
    assertEquals(fast.labels.length, K);
    for (let i = 0; i < K; i++) {
      assertEquals(fast.scores[i], all[fast.labels[i]], "the predictor's own score");
      if (i > 0) assert(fast.scores[i] <= fast.scores[i - 1], "sorted");
    }
    const fromFile = sdk.predictTopK({ indices: [...x.indices], values: [...x.values] }, K);
    assertEquals([...fast.labels].sort(), [...fromFile.labels].sort(), "the SDK's labels");
    assertEquals(fast, replica.predictTopK(x, K), "the indexed replica's answer");
    if (fast.labels.join() !== exact.labels.join()) differ++;
    hits += [...fast.labels].filter((l) => exact.labels.includes(l)).length;
  }
  // a broken index (wrong leaves, wrong query) recalls about K / L of the exact top k
  const recall = hits / (qs.length * K);
  console.log(`recall@${K} ${recall}, answers not the exact top ${K}: ${differ} of ${qs.length}`);
  assert(recall > 0.8, `recall@${K} against the exact top ${K}: ${recall}`);
  assert(est.labelIndex === idx, "still indexed after predicting");
});

Deno.test("CoEmbed learner label index: exact is the dense scan; probing all leaves is exact", () => {
  const est = trained();
  const idx = est.indexLabels({ minLabels: 0, clusters: 300, groups: 1 })!;
  assertEquals(idx.groups, 1);
  const p = Math.floor(idx.leaves / 10);
  let covered = 0;
  for (const x of queries(40)) {
    const exact = est.predictTopK(x, K, { exact: true });
    assertEquals(exact, topKDense(est.predictScores(x), K), "exact: the dense scan");
    // every leaf: the search declines (more than a quarter of the labels), the learner scans
    assertEquals(est.predictTopK(x, K, { probes: idx.leaves }), exact);
    const fast = est.predictTopK(x, K, { probes: p }), all = est.predictScores(x);
    for (let i = 0; i < K; i++) assertEquals(fast.scores[i], all[fast.labels[i]]);
    if ([...exact.labels].every((l) => fast.labels.includes(l))) {
      assertEquals(fast, exact);
      covered++;
    }
  }
  console.log(`probes ${p} of ${idx.leaves} leaves held the exact top ${K}: ${covered} of 40`);
  assert(covered > 10, `the probed leaves held the exact top k for ${covered} of 40 queries`);
});

Deno.test("CoEmbed learner label index: learning drops it, answers are the new model's", () => {
  const est = trained(), g = rand(7);
  const x = (): SparseVector => {
    const d = Math.floor(g() * (D - 1));
    return { indices: Int32Array.of(d, d + 1), values: Float32Array.of(1, 0.5) };
  };
  const s = synthetic(300, D, 1500, 41), m = maskedCsr(s, 0, 40, 0.9, 0, 43);
  const steps: [string, () => void][] = [
    ["learnOne", () => est.learnOne(x(), [3, 17])],
    ["learnMany", () => est.learnMany(rowsBatch(m, 0, 20))],
    ["consolidate", () => est.consolidate(1)],
    ["grow (an empty batch with more labels)", () =>
      est.learnMany({
        x: {
          numRows: 0,
          numCols: D,
          indptr: Int32Array.of(0),
          indices: new Int32Array(0),
          values: new Float32Array(0),
        },
        y: {
          numRows: 0,
          numCols: est.numLabels + 2,
          indptr: Int32Array.of(0),
          indices: new Int32Array(0),
        },
      })],
    ["a direct change of the globals", () => {
      est.core.P[0] += 1;
      est.core.changed();
    }],
  ];
  for (const [name, step] of steps) {
    const idx = est.indexLabels({ minLabels: 0, probes: 2 })!;
    assert(est.labelIndex === idx, `${name}: indexed`);
    const qs = queries(10), before = qs.map((q) => est.predictTopK(q, K));
    step();
    assertEquals(est.labelIndex, undefined, `${name} drops the index`);
    // the new model, rebuilt from its state without any index: the learner's answers are its
    const fresh = CoEmbedEstimator.restore(est.toState());
    let changed = 0;
    qs.forEach((q, i) => {
      const now = est.predictTopK(q, K);
      assertEquals(now, topKDense(fresh.predictScores(q), K), `${name}: the new model's top k`);
      if (now.scores.join() !== before[i].scores.join()) changed++;
    });
    assert(changed > 0 || name.startsWith("grow"), `${name} changed the model's answers`);
  }
});

Deno.test("CoEmbed learner label index: indexing and predicting never change the model", () => {
  const est = trained(), before = est.toState();
  const idx = est.indexLabels({ minLabels: 0 })!;
  for (const x of queries(20)) {
    est.predictTopK(x, K);
    est.predictTopK(x, K, { probes: 1 });
    est.predictTopK(x, K, { probes: idx.leaves });
    est.predictTopK(x, K, { exact: true });
    est.predictScores(x);
  }
  est.labelIndexInput();
  const after = est.toState();
  assertEquals(after.scalars, before.scalars);
  for (const [name, t] of Object.entries(before.tensors)) {
    assertEquals([...after.tensors[name]], [...t], `tensor ${name}`);
  }
  assert(est.labelIndex === idx, "the index is kept");
});
