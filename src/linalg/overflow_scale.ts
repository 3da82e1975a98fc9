/**
 * The scale a homogeneous computation runs at when its inputs' squares would overflow or
 * underflow: the solvers of this folder (CG, ADMM, SVP, the block orthonormalisation, the dense
 * eigendecomposition) divide their input by it, solve, and scale the result back.
 *
 * @module
 */

/**
 * 1 when `largest` (the largest absolute entry of an input) lies within [1/limit, limit] or is
 * 0 (no scaling needed), else `largest` itself: dividing the input by it brings the entries to
 * at most 1, whose squares neither overflow nor underflow.
 *
 * @example
 * ```ts
 * import { overflowScale } from "./overflow_scale.ts";
 * console.log(overflowScale(3), overflowScale(0), overflowScale(1e200)); // 1 1 1e+200
 * ```
 */
export function overflowScale(largest: number, limit = 1e150): number {
  return largest > limit || (largest > 0 && largest < 1 / limit) ? largest : 1;
}

/**
 * The {@linkcode overflowScale} of each column of the row-major `m` (`cols` columns, from each
 * column's largest absolute entry; NaN is skipped), or undefined when every column is within
 * range: for solvers of several right-hand sides at once, where one scale for all would
 * underflow a small column next to a large one.
 *
 * @example
 * ```ts
 * import { columnOverflowScales } from "./overflow_scale.ts";
 * console.log(columnOverflowScales(Float64Array.of(1, 2, 3, 4), 2)); // undefined
 * console.log(columnOverflowScales(Float64Array.of(1e200, 1, 2e200, 1), 2)); // Float64Array(2) [ 2e+200, 1 ]
 * ```
 */
export function columnOverflowScales(
  m: ArrayLike<number>,
  cols: number,
): Float64Array | undefined {
  const big = new Float64Array(cols);
  for (let o = 0; o < m.length; o += cols) {
    for (let c = 0; c < cols; c++) {
      const v = Math.abs(m[o + c]);
      if (v > big[c]) big[c] = v;
    }
  }
  let scaled = false;
  for (let c = 0; c < cols; c++) {
    big[c] = overflowScale(big[c]);
    if (big[c] !== 1) scaled = true;
  }
  return scaled ? big : undefined;
}

/**
 * Solves the column-scaled system with `solve` (which works on `x` in place): `b` and `x`
 * (row-major, `cols` columns) divided column by column by `scales`, a column of `x` that
 * overflows there started from 0 (a start that far off is no start), then `x` scaled back.
 * Returns what `solve` returns.
 *
 * @example
 * ```ts
 * import { solveScaledColumns } from "./overflow_scale.ts";
 * const x = Float64Array.of(0, 0);
 * // the identity system x = b, solved at the scales 1e200 and 1
 * solveScaledColumns(Float64Array.of(1e200, 1), Float64Array.of(3e200, 5), x, 2, (bs) => x.set(bs));
 * console.log(x); // Float64Array(2) [ 3e+200, 5 ]
 * ```
 */
export function solveScaledColumns<T>(
  scales: Float64Array,
  b: ArrayLike<number>,
  x: Float64Array,
  cols: number,
  solve: (bs: Float64Array) => T,
): T {
  const n = x.length, bs = new Float64Array(n);
  let off: Uint8Array | undefined;
  for (let e = 0; e < n; e++) {
    bs[e] = b[e] / scales[e % cols];
    x[e] /= scales[e % cols];
    if (!Number.isFinite(x[e])) (off ??= new Uint8Array(cols))[e % cols] = 1;
  }
  if (off) { for (let e = 0; e < n; e++) if (off[e % cols]) x[e] = 0; }
  const result = solve(bs);
  for (let e = 0; e < n; e++) x[e] *= scales[e % cols];
  return result;
}
