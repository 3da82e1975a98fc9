/**
 * A separable toy stream whose feature values have any magnitude, for the extreme-value tests of
 * the streaming learners: the rows of label c carry features 3c, 3c + 1 and 3c + 2 (values
 * `magnitude` times 1, 1.25 or 1.5, odd features negated with `mixedSigns`), so every learner
 * should rank c first for them whatever the magnitude.
 *
 * @module
 */
import type { Batch, SparseVector } from "../../src/data/types.ts";
import type { ModelState } from "../../src/models/estimator.ts";
import { csrBatch } from "../helpers.ts";

/** Labels of the toy stream. */
export const TOY_LABELS = 6;
/** Features of the toy stream. */
export const TOY_FEATURES = 3 * TOY_LABELS;

/** Batch `seed` of the toy stream: `rows` rows, labels cycling from `seed`. */
export function toyBatch(seed: number, magnitude: number, mixedSigns = false, rows = 32): Batch {
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (let i = 0; i < rows; i++) {
    const c = (i * 7 + seed) % TOY_LABELS;
    for (const j of [3 * c, 3 * c + 1, 3 * c + 2]) {
      xi.push(j);
      xv.push(magnitude * (mixedSigns && j % 2 === 1 ? -1 : 1) * (1 + ((i + j) % 3) * 0.25));
    }
    xp.push(xi.length);
    yi.push(c);
    yp.push(yi.length);
  }
  return csrBatch(TOY_FEATURES, TOY_LABELS, xp, xi, xv, yp, yi);
}

/** The query row of label c at the given magnitude. */
export function toyQuery(c: number, magnitude: number, mixedSigns = false): SparseVector {
  const idx = [3 * c, 3 * c + 1, 3 * c + 2];
  return {
    indices: Int32Array.from(idx),
    values: Float32Array.from(idx, (j) => magnitude * (mixedSigns && j % 2 === 1 ? -1 : 1)),
  };
}

/** The names of the state's tensors holding a non-finite entry (empty: all finite). */
export function nonFiniteTensors(state: ModelState): string[] {
  return Object.entries(state.tensors)
    .filter(([, t]) =>
      (t as ArrayLike<number> & Iterable<number>) && [...t].some((v) => !Number.isFinite(v))
    )
    .map(([k]) => k);
}

/** Labels ranked first wrongly for the toy queries at the given magnitude (empty: all right). */
export function toyMisses(
  model: { predictTopK(x: SparseVector, k: number): { labels: Int32Array; scores: Float32Array } },
  magnitude: number,
  mixedSigns = false,
): string[] {
  const misses: string[] = [];
  for (let c = 0; c < TOY_LABELS; c++) {
    const top = model.predictTopK(toyQuery(c, magnitude, mixedSigns), 3);
    if (top.labels[0] !== c || !top.scores.every(Number.isFinite)) {
      misses.push(`label ${c}: top ${[...top.labels]} scores ${[...top.scores]}`);
    }
  }
  return misses;
}

/** The largest |score| any label gets for the toy queries at the given magnitude. */
export function toyMaxAbsScore(
  model: { predictScores(x: SparseVector): ArrayLike<number> },
  magnitude: number,
): number {
  let a = 0;
  for (let c = 0; c < TOY_LABELS; c++) {
    for (const s of Array.from(model.predictScores(toyQuery(c, magnitude)))) {
      a = Math.max(a, Math.abs(s));
    }
  }
  return a;
}

/**
 * Unit rows of the toy stream: raw rows of squared norm about 0.77 (magnitude 0.4), or
 * l2Normalize on rows of norm about 11 (magnitude 5).
 */
export const UNIT_CASES = [
  { l2Normalize: false, magnitude: 0.4 },
  { l2Normalize: true, magnitude: 5 },
] as const;

/** Rows of feature values v, −2v, 3v and 0.5v, v (a mixed batch: one row at 1 and 1e-3). */
export function cornerBatch(v: number, mixed: boolean): Batch {
  return {
    x: {
      numRows: 3,
      numCols: 4,
      indptr: Int32Array.of(0, 2, 3, 5),
      indices: Int32Array.of(0, 1, 2, 0, 3),
      values: Float32Array.of(v, -2 * v, mixed ? 1 : 3 * v, 0.5 * v, mixed ? 1e-3 : v),
    },
    y: {
      numRows: 3,
      numCols: 3,
      indptr: Int32Array.of(0, 1, 2, 4),
      indices: Int32Array.of(0, 1, 0, 2),
    },
  };
}
