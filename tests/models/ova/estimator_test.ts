import { withoutLimits } from "../../../src/models/space_limits.ts";
import { OvaEstimator, resolveOvaConfig } from "../../../src/models/ova/mod.ts";
import type { Example } from "../../../src/data/types.ts";
import { makeBatch } from "../estimator_checks.ts";
import { learn, syntheticRows } from "./helpers.ts";
import { assert, assertBadInput, assertEquals } from "../../helpers.ts";
import { linearSparseContent } from "../../../src/models/label_weights.ts";
import { encodeModelFile } from "../../../src/format/model_file.ts";

/** `n` synthetic rows over 400 features. */
const rows = (n: number, numLabels: number, seed: number): Example[] =>
  syntheticRows(n, 400, numLabels, seed);

Deno.test("ova: learning does the same work whatever the size of the label space", () => {
  // the same rows into a model that knows 60 labels and one that knows 200,000: labels the
  // stream never names cost nothing and change nothing
  const data = rows(600, 60, 1);
  const small = new OvaEstimator({ seed: 3, numLabels: 60 });
  const large = new OvaEstimator({ seed: 3, numLabels: 200_000 });
  learn(small, data);
  learn(large, data);
  assertEquals(large.stats.labelUpdates, small.stats.labelUpdates);
  assertEquals(large.stats.weights, small.stats.weights);
  const per = small.stats.labelUpdates / small.stats.rows;
  const cfg = small.config;
  assert(per <= 3 * 1.5 + cfg.hardNegatives + cfg.negatives, `${per} label updates per row`);
  for (const e of rows(50, 60, 2)) {
    const a = small.predictTopK(e.x, 5), b = large.predictTopK(e.x, 5);
    assertEquals([...b.labels], [...a.labels]);
    assertEquals([...b.scores], [...a.scores]);
  }
});

Deno.test("ova: a row pushes down its best-scored wrong labels and leaves the others", () => {
  const m = new OvaEstimator({ seed: 1, negatives: 0, hardNegatives: 2 });
  learn(m, rows(800, 40, 4));
  const probe = rows(1, 40, 9)[0];
  const before = m.predictScores(probe.x);
  const truth = new Set(probe.labels);
  const wrong = [...before.keys()].filter((l) => !truth.has(l))
    .sort((a, b) => before[b] - before[a] || a - b);
  m.learnOne(probe.x, probe.labels);
  const after = m.predictScores(probe.x);
  for (const l of wrong.slice(0, 2)) assert(after[l] < before[l], `hard negative ${l} moved up`);
  for (const l of wrong.slice(2)) assertEquals(after[l], before[l], `label ${l} moved`);
  for (const l of truth) assert(after[l] > before[l], `positive ${l} did not move up`);
});

Deno.test("ova: top-k equals the top-k of every label's score, also with many rarely seen labels", () => {
  // 3000 labels, 3000 rows: most labels are seen once or twice; the fast path scores the labels a
  // row's features touch and walks the others in bias order, the exact one scores every label
  // (as a dense SDK scan of the model file would)
  const m = new OvaEstimator({ seed: 2 });
  learn(m, rows(3000, 3000, 5));
  let walkedPastTouched = 0;
  const bias = m.toState().tensors.bias as Float32Array;
  for (
    const e of [...rows(300, 3000, 6), {
      x: { indices: new Int32Array(0), values: new Float32Array(0) },
      labels: [],
    }]
  ) {
    for (const k of [1, 5, 40]) {
      const fast = m.predictTopK(e.x, k), exact = m.predictTopK(e.x, k, { exact: true });
      assertEquals([...fast.labels], [...exact.labels]);
      assertEquals([...fast.scores], [...exact.scores]);
      const s = m.predictScores(e.x);
      for (const l of fast.labels) {
        if (e.x.indices.length === 0 || s[l] === bias[l]) walkedPastTouched++;
      }
    }
  }
  assert(walkedPastTouched > 0, "no answer needed an untouched label: the bias walk went untested");
});

Deno.test("ova: a feature never carries more than maxLabelsPerFeature labels", () => {
  const m = new OvaEstimator({ seed: 1, maxLabelsPerFeature: 8 });
  learn(m, rows(1500, 200, 7));
  const s = m.toState();
  const ptr = s.tensors.featPtr as Int32Array;
  let widest = 0;
  for (let j = 0; j + 1 < ptr.length; j++) widest = Math.max(widest, ptr[j + 1] - ptr[j]);
  assert(widest <= 8, `a feature holds ${widest} labels`);
  assert(m.stats.evictions > 0, "the cap was never reached: the test proves nothing");
});

Deno.test("ova: the memory budget holds on every row", () => {
  const m = new OvaEstimator({ seed: 1, maxWeights: 2000 });
  let peak = 0, prunes = 0;
  for (const e of rows(1500, 200, 8)) {
    m.learnOne(e.x, e.labels);
    peak = Math.max(peak, m.stats.weights);
    if (m.stats.prunes > prunes) {
      // a prune frees 40% of the budget, and not much more: 1,200 weights stay, ties aside
      prunes = m.stats.prunes;
      const kept = m.stats.weights;
      assert(kept <= 1200 && kept >= 1100, `prune ${prunes} kept ${kept} weights`);
    }
  }
  assert(peak <= 2000, `peak ${peak} weights`);
  assert(prunes > 0, "the budget was never reached: the test proves nothing");
  // still a working model
  const e = rows(1, 200, 8)[0];
  assertEquals(m.predictTopK(e.x, 3).labels.length, 3);
});

Deno.test("ova: with explicit negatives only the observed labels move", () => {
  const m = new OvaEstimator({ seed: 1 });
  learn(m, rows(300, 30, 10));
  const e = rows(1, 30, 11)[0];
  const before = m.predictScores(e.x);
  const batch = makeBatch([{ x: e.x, labels: Int32Array.from(e.labels) }], m.numFeatures, 30);
  const neg = [...Array(30).keys()].find((l) => !e.labels.includes(l))!;
  const observed = {
    numRows: 1,
    numCols: 30,
    indptr: Int32Array.of(0, 1),
    indices: Int32Array.of(neg),
  };
  m.learnMany({ ...batch, observed, fullyObserved: Uint8Array.of(0) });
  const after = m.predictScores(e.x);
  for (let l = 0; l < 30; l++) {
    if (l === neg) assert(after[l] < before[l], "the observed negative did not move down");
    else if (e.labels.includes(l)) assert(after[l] > before[l], `positive ${l}`);
    else assertEquals(after[l], before[l], `unobserved label ${l} moved`);
  }
});

Deno.test("ova: settings are validated at the boundary, naming the key", () => {
  assertBadInput([
    [() => resolveOvaConfig({ hardNegativs: 3 }), /unknown option "hardNegativs"/],
    [
      () => resolveOvaConfig({ negatives: -1 }),
      /negatives must be an integer in \[0, 4096\], got -1/,
    ],
    [() => resolveOvaConfig({ learningRate: "fast" }), /learningRate must be a finite number/],
    [() => resolveOvaConfig({ loss: "hinge" }), /loss must be one of logistic, squared-hinge/],
    [() => resolveOvaConfig({ l2Normalize: 1 }), /l2Normalize must be true or false/],
    [
      () => new OvaEstimator({ maxLabelsPerFeature: 2.5 }),
      /maxLabelsPerFeature must be an integer/,
    ],
  ]);
  assertEquals(resolveOvaConfig({ numLabels: 5 }).hardNegatives, 24);
});

Deno.test("ova.restore refuses a damaged state with a clear error", () => {
  const m = new OvaEstimator({ seed: 1 });
  learn(m, rows(100, 20, 12));
  const s = m.toState();
  assertBadInput([
    [() => OvaEstimator.restore({ ...s, kind: "br" }), /state kind is "br", not "ova"/],
    [
      () => OvaEstimator.restore({ ...s, tensors: { ...s.tensors, bias: new Float32Array(1) } }),
      /tensor bias must be a Float32Array of length 20, got length 1$/,
    ],
    [
      () =>
        OvaEstimator.restore({
          ...s,
          tensors: { ...s.tensors, labels: (s.tensors.labels as Int32Array).map(() => 99) },
        }),
      /label 99 >= 20/,
    ],
    [() => OvaEstimator.restore({ ...s, scalars: { ...s.scalars, rows: -1 } }), /scalar rows/],
  ]);
});

Deno.test("ova: the model file read straight from the blocks equals the transposed label weights", () => {
  const m = new OvaEstimator({ seed: 4, maxLabelsPerFeature: 16 });
  learn(m, rows(1500, 400, 13));
  const meta = { trainer: "ova", ...withoutLimits(m.config), rows: m.stats.rows };
  const viaLabels = encodeModelFile(
    linearSparseContent(m.toLabelWeights(), { preprocess: { l2Normalize: true }, meta }),
  );
  const direct = m.toModelFile();
  assertEquals(direct.length, viaLabels.length);
  let diff = 0;
  for (let i = 0; i < direct.length; i++) if (direct[i] !== viaLabels[i]) diff++;
  assertEquals(diff, 0, "bytes differ");
  const f = m.toFeatureMajor();
  for (let j = 0; j + 1 < f.featPtr.length; j++) {
    for (let e = f.featPtr[j] + 1; e < f.featPtr[j + 1]; e++) {
      assert(f.labelIdx[e] > f.labelIdx[e - 1], `feature ${j}: labels not increasing`);
    }
  }
});
