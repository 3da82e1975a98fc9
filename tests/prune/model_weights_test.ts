// Reading POP's per-label weights from model files: BR files in every storage, LEML files as
// the product W·Hᵀ (scores must equal the low-rank model's), preprocessing, and clear errors.
import {
  labelWeightsOfContent,
  lowRankProduct,
  rowPreprocessOfContent,
} from "../../src/prune/model_weights.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import {
  type LabelWeights,
  linearSparseContent,
  roundWeights,
  scoreFeatureMajor,
  toFeatureMajor,
} from "../../src/models/label_weights.ts";
import { LemlBatch } from "../../src/models/leml/mod.ts";
import { Rng } from "../../src/random/mod.ts";
import { randomLabelWeights } from "../models/br/helpers.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert } from "../helpers.ts";

function sameWeights(a: LabelWeights, b: LabelWeights, what: string): void {
  assert(a.labelPtr.join() === b.labelPtr.join(), `${what}: labelPtr`);
  assert(a.featIdx.join() === b.featIdx.join(), `${what}: featIdx`);
  assert(a.values.join() === b.values.join(), `${what}: values`);
  assert((a.bias ?? []).join() === (b.bias ?? []).join(), `${what}: bias`);
}

Deno.test("a linear-sparse file reads back as its (rounded) weights in every storage", () => {
  const w = randomLabelWeights(23, 7, 1, { density: 0.4 });
  for (const weightType of ["f32", "f16"] as const) {
    for (const indexType of ["i32", "u16"] as const) {
      const bytes = encodeModelFile(linearSparseContent(w, { weightType, indexType }));
      const back = labelWeightsOfContent(decodeModelFile(bytes));
      sameWeights(back, roundWeights(w, weightType), `${weightType}/${indexType}`);
    }
  }
});

Deno.test("the product of a low-rank file scores exactly like W·Hᵀ computed by hand", () => {
  const D = 6, L = 4, r = 3, rng = new Rng(2);
  const W = Float32Array.from({ length: D * r }, () => rng.normal());
  const H = Float32Array.from({ length: L * r }, () => rng.normal());
  W.fill(0, 3 * r, 4 * r); // feature 3 has a zero row: its product entries are dropped
  const bias = Float32Array.of(0.5, -1, 0, 2);
  const content: ModelFileContent = {
    kind: "linear-lowrank",
    numFeatures: D,
    numLabels: L,
    params: { rank: r },
    tensors: {
      W: { dtype: "f32", shape: [D, r], data: W },
      H: { dtype: "f32", shape: [L, r], data: H },
      bias: { dtype: "f32", shape: [L], data: bias },
    },
  };
  const m = labelWeightsOfContent(decodeModelFile(encodeModelFile(content)));
  assert(m.labelPtr[L] === (D - 1) * L, `nnz ${m.labelPtr[L]}, expected ${(D - 1) * L}`);
  for (let l = 0; l < L; l++) {
    for (let p = m.labelPtr[l]; p < m.labelPtr[l + 1]; p++) {
      const j = m.featIdx[p];
      let want = 0;
      for (let c = 0; c < r; c++) want += W[j * r + c] * H[l * r + c];
      assert(j !== 3, "zero row kept");
      assert(Math.abs(m.values[p] - want) < 1e-6, `M[${j},${l}] ${m.values[p]} vs ${want}`);
    }
  }
  assert(m.bias!.join() === bias.join(), "bias carried over");
  let threw = "";
  try {
    lowRankProduct(W, H, D, L, r + 1);
  } catch (e) {
    threw = e instanceof RangeError ? e.message : "";
  }
  assert(/expected 6×4 and 4×4/.test(threw), `got "${threw}"`);
});

Deno.test("a trained LEML model's product gives the LEML scores on every row", () => {
  const data = plantedData(120, 5, 11);
  const b = makeBatch(data.rows, data.numFeatures, data.numLabels);
  const leml = LemlBatch.fit(b.x, b.y, { rank: 3, lambda: 1, iterations: 3, seed: 1 });
  const m = labelWeightsOfContent(decodeModelFile(leml.toModelFile()));
  const f = toFeatureMajor(m);
  const s = new Float64Array(m.numLabels);
  for (const row of data.rows.slice(0, 40)) {
    scoreFeatureMajor(f, m.bias, row.x, s);
    const want = leml.predictScores(row.x);
    for (let l = 0; l < m.numLabels; l++) {
      assert(Math.abs(s[l] - want[l]) < 1e-4, `label ${l}: ${s[l]} vs ${want[l]}`);
    }
  }
});

Deno.test("preprocessing and unsupported kinds are reported clearly", () => {
  const idf = Float32Array.of(1, 2, 3);
  const pre = rowPreprocessOfContent({
    kind: "linear-sparse",
    numFeatures: 3,
    numLabels: 1,
    params: {},
    preprocess: { tfidf: true, l2Normalize: true },
    tensors: { idf: { dtype: "f32", shape: [3], data: idf } },
  });
  assert(pre?.tfidf && pre.l2Normalize && pre.idf?.join() === "1,2,3", "tfidf + l2 + idf");
  const none = rowPreprocessOfContent({
    kind: "linear-sparse",
    numFeatures: 0,
    numLabels: 0,
    params: {},
    tensors: {},
  });
  assert(none === undefined, "no preprocessing");
  const cases: [ModelFileContent, RegExp, string][] = [
    [
      { kind: "knn-embedding", numFeatures: 1, numLabels: 1, params: {}, tensors: {} },
      /POP prunes linear models .* not a knn-embedding model/,
      "TypeError",
    ],
    [
      { kind: "linear-sparse", numFeatures: 2, numLabels: 1, params: {}, tensors: {} },
      /has no tensor 'featPtr'/,
      "RangeError",
    ],
    [
      {
        kind: "linear-lowrank",
        numFeatures: 2,
        numLabels: 1,
        params: { rank: 1 },
        tensors: {
          W: { dtype: "f32", shape: [2, 1], data: Float32Array.of(1, 2) },
          H: { dtype: "f32", shape: [1, 1], data: Float32Array.of(1) },
          bias: { dtype: "f32", shape: [3], data: new Float32Array(3) },
        },
      },
      /tensor 'bias' has 3 values, expected 1/,
      "RangeError",
    ],
  ];
  for (const [c, re, type] of cases) {
    let got = "";
    try {
      labelWeightsOfContent(c);
    } catch (e) {
      got = `${(e as Error).name}: ${(e as Error).message}`;
    }
    assert(got.startsWith(type) && re.test(got), `${c.kind}: got "${got}"`);
  }
});
