// validationPsp finds each row's top k through the row's postings and the labels in bias order
// (sparseTopK) instead of scoring every label: its answers must be exactly those of scoring
// every label (scoreFeatureMajor + topKDense, what it did before), including bias-only labels,
// ties, NaN and -0 biases, rows with no known feature, repeated features and k above L.
import { assertEquals } from "../helpers.ts";
import { mulberry32 } from "../mulberry32.ts";
import {
  type LabelWeights,
  scoreFeatureMajor,
  toFeatureMajor,
} from "../../src/models/label_weights.ts";
import { sparseTopK, validationPsp, type ValidationRows } from "../../src/prune/validation.ts";
import { PspAtK } from "../../src/metrics/psp.ts";
import { topKDense } from "../../sdk/internal.ts";

/** Random label-major weights; biases drawn from few values (ties), some NaN and -0. */
function randomWeights(seed: number, D: number, L: number, withBias: boolean): LabelWeights {
  const r = mulberry32(seed);
  const labelPtr = new Int32Array(L + 1), feats: number[] = [], vals: number[] = [];
  for (let l = 0; l < L; l++) {
    for (let j = 0; j < D; j++) {
      if (r() < 0.08) {
        feats.push(j);
        // a few exact zeros and repeated values make ties between touched labels
        vals.push(r() < 0.1 ? 0 : Math.round((r() * 2 - 1) * 8) / 4);
      }
    }
    labelPtr[l + 1] = feats.length;
  }
  const pick = [0.5, -0.25, 0, -0, -1, NaN, 1.5, -Infinity];
  const bias = withBias
    ? Float32Array.from({ length: L }, () => pick[(r() * pick.length) | 0])
    : undefined;
  return {
    numFeatures: D,
    numLabels: L,
    labelPtr,
    featIdx: Int32Array.from(feats),
    values: Float32Array.from(vals),
    bias,
  };
}

/** Random rows: repeated features, features beyond the model, empty rows, and labels. */
function randomRows(seed: number, D: number, L: number, n: number): ValidationRows {
  const r = mulberry32(seed);
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (let i = 0; i < n; i++) {
    const m = i % 7 === 0 ? 0 : 1 + ((r() * 6) | 0);
    for (let p = 0; p < m; p++) {
      xi.push(r() < 0.05 ? D + 3 : (r() * D) | 0);
      xv.push(Math.round(r() * 8) / 4);
    }
    xp.push(xi.length);
    const labels = new Set<number>();
    for (let p = 0, c = 1 + ((r() * 3) | 0); p < c; p++) labels.add((r() * L) | 0);
    yi.push(...[...labels].sort((a, b) => a - b));
    yp.push(yi.length);
  }
  return {
    x: {
      numRows: n,
      numCols: D + 4,
      indptr: Int32Array.from(xp),
      indices: Int32Array.from(xi),
      values: Float32Array.from(xv),
    },
    y: { numRows: n, numCols: L, indptr: Int32Array.from(yp), indices: Int32Array.from(yi) },
  };
}

/** PSP@k as validationPsp computed it before: every label scored, topKDense. */
function densePsp(w: LabelWeights, rows: ValidationRows, p: ArrayLike<number>, ks: number[]) {
  const f = toFeatureMajor(w), scores = new Float64Array(w.numLabels);
  const psp = new PspAtK(p, ks);
  for (let i = 0; i < rows.x.numRows; i++) {
    const s = rows.x.indptr[i], e = rows.x.indptr[i + 1];
    scoreFeatureMajor(f, w.bias, {
      indices: rows.x.indices.subarray(s, e),
      values: rows.x.values.subarray(s, e),
    }, scores);
    const top = topKDense(scores, Math.max(...ks));
    psp.add(top.labels, rows.y.indices.subarray(rows.y.indptr[i], rows.y.indptr[i + 1]));
  }
  const r = psp.result();
  return ks.map((k) => r[`PSP@${k}`]);
}

Deno.test("sparseTopK gives the labels and scores of topKDense over every label's score", () => {
  let rowsChecked = 0, biasOnlyInTop = 0;
  for (const seed of [1, 2, 3, 4]) {
    for (const withBias of [true, false]) {
      const D = 30, L = 40 + seed * 7;
      const w = randomWeights(seed, D, L, withBias);
      const rows = randomRows(seed + 100, D, L, 60);
      const top = sparseTopK(w), f = toFeatureMajor(w), scores = new Float64Array(L);
      for (let i = 0; i < rows.x.numRows; i++) {
        const s = rows.x.indptr[i], e = rows.x.indptr[i + 1];
        const indices = rows.x.indices.subarray(s, e), values = rows.x.values.subarray(s, e);
        scoreFeatureMajor(f, w.bias, { indices, values }, scores);
        for (const k of [0, 1, 3, 5, 17, L, L + 5]) {
          const want = topKDense(scores, k), got = top(indices, values, k);
          assertEquals([...got.labels], [...want.labels], `seed ${seed} row ${i} k ${k}`);
          assertEquals([...got.scores], [...want.scores], `seed ${seed} row ${i} k ${k}`);
          rowsChecked++;
        }
        // rows whose top 5 holds a label none of the row's features touch (scored by its bias)
        const touched = new Set<number>();
        for (const j of indices) {
          for (let q = f.featPtr[j]; j < D && q < f.featPtr[j + 1]; q++) touched.add(f.labelIdx[q]);
        }
        if ([...topKDense(scores, 5).labels].some((l) => !touched.has(l))) biasOnlyInTop++;
      }
    }
  }
  // the cases a wrong walk of the untouched labels would get wrong did occur
  assertEquals(rowsChecked > 3000 && biasOnlyInTop > 100, true, `${rowsChecked} ${biasOnlyInTop}`);
});

Deno.test("validationPsp equals PSP@k of every label scored, for models of one bias", () => {
  // successive calls with the same bias values reuse the bias order; another bias must not
  const D = 25, L = 90;
  const base = randomWeights(11, D, L, true);
  const other = { ...randomWeights(12, D, L, true) };
  const rows = randomRows(13, D, L, 200);
  const p = Float64Array.from({ length: L }, (_, l) => 0.2 + (l % 9) / 10);
  const ks = [1, 3, 5, 10];
  for (
    const w of [base, { ...base, bias: base.bias!.slice() }, other, base, {
      ...base,
      bias: undefined,
    }]
  ) {
    assertEquals(validationPsp(w, rows, p, ks), densePsp(w, rows, p, ks));
  }
});
