/**
 * What one learner of a SLEEC ensemble is fit on: a seeded share of the rows and of the features
 * (`rowFraction`, `featureFraction`: bagging, for diversity beyond the clustering seeds).
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../../data/types.ts";
import { subsetRows } from "../../data/dataset.ts";
import { preprocessRows } from "../../data/preprocess.ts";
import { Rng } from "../../random/mod.ts";

/**
 * What one learner sees: a seeded subset of ⌈rowFraction · n⌉ rows (increasing, without
 * replacement; all rows at 1) and, with `featureFraction` < 1, only a seeded subset of
 * ⌈featureFraction · D⌉ features, the rows re-normalised to unit L2 (a row left empty stays
 * empty). `x` is not mutated; at fractions 1 and 1 the result is `x` itself.
 *
 * @example
 * ```ts
 * import { learnerView } from "./learner_view.ts";
 * const x = { numRows: 4, numCols: 1, indptr: Int32Array.of(0, 1, 2, 3, 4), indices: new Int32Array(4), values: Float32Array.of(1, 1, 1, 1) };
 * console.log(learnerView(x, 0.5, 1, { seed: 1 }).rows.length); // 2
 * ```
 */
export function learnerView(
  x: CsrMatrix,
  rowFraction: number,
  featureFraction: number,
  options: { seed: number },
): { rows: Int32Array; x: CsrMatrix } {
  const n = x.numRows, D = x.numCols;
  if (!(rowFraction > 0 && rowFraction <= 1 && featureFraction > 0 && featureFraction <= 1)) {
    throw new RangeError(
      `learnerView: rowFraction and featureFraction must be in (0, 1], got ${rowFraction}, ` +
        `${featureFraction}`,
    );
  }
  const rng = new Rng(options.seed);
  const pick = (total: number, fraction: number): Int32Array => {
    // ⌈fraction · total⌉ of the decimal fraction: a product a few ulps past an integer is that
    // integer (0.07 · 100 is 7.000000000000001 in floating point, and 8 rows were drawn)
    const p = fraction * total, near = Math.round(p);
    const m = Math.min(total, Math.abs(p - near) <= 4 * Number.EPSILON * p ? near : Math.ceil(p));
    const perm = Int32Array.from({ length: total }, (_, i) => i);
    for (let i = 0; i < m; i++) {
      const j = i + rng.nextInt(total - i);
      const t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    return perm.slice(0, m).sort();
  };
  const rows = rowFraction < 1 ? pick(n, rowFraction) : Int32Array.from({ length: n }, (_, i) => i);
  let view = rowFraction < 1
    ? subsetRows({ name: "learner", numFeatures: D, numLabels: 0, x, y: emptyLabels(n) }, rows).x
    : x;
  if (featureFraction < 1) {
    const keep = new Uint8Array(D);
    for (const j of pick(D, featureFraction)) keep[j] = 1;
    const indptr = new Int32Array(view.numRows + 1);
    const indices = new Int32Array(view.indptr[view.numRows]);
    const values = new Float32Array(indices.length);
    let m = 0;
    for (let i = 0; i < view.numRows; i++) {
      for (let e = view.indptr[i]; e < view.indptr[i + 1]; e++) {
        const j = view.indices[e];
        if (j >= 0 && j < D && keep[j] === 1) {
          indices[m] = j;
          values[m++] = view.values[e];
        }
      }
      indptr[i + 1] = m;
    }
    view = preprocessRows(
      {
        numRows: view.numRows,
        numCols: D,
        indptr,
        indices: indices.slice(0, m),
        values: values.slice(0, m),
      },
      { l2Normalize: true },
    );
  }
  return { rows, x: view };
}

/**
 * A label matrix of `n` empty rows (for {@linkcode subsetRows} on features only).
 *
 * @example
 * ```ts
 * import { emptyLabels } from "./learner_view.ts";
 * console.log(emptyLabels(2).indptr); // Int32Array(3) [ 0, 0, 0 ]
 * ```
 */
export function emptyLabels(n: number): BinaryCsr {
  return { numRows: n, numCols: 0, indptr: new Int32Array(n + 1), indices: new Int32Array(0) };
}
