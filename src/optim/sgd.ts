/**
 * Plain stochastic gradient descent over flat typed arrays, dense or row-sparse, with an
 * optional 1/(1 + decay·t) learning-rate schedule. Every gradient element is clipped to
 * ±{@linkcode GRADIENT_LIMIT} (./limits.ts), as in Adam: a step moves a parameter by at most
 * lr·1e18, so a float32 parameter cannot jump to Infinity in one step (ordinary gradients are
 * far below the limit: their steps are unchanged bit for bit).
 *
 * @module
 */
import { GRADIENT_LIMIT } from "./limits.ts";

/**
 * The learning rate at 1-based step `t`: `lr / (1 + decay·(t-1))`.
 *
 * @example
 * ```ts
 * import { sgdRate } from "./sgd.ts";
 * console.log(sgdRate(0.5, 0.1, 11)); // 0.25
 * ```
 */
export function sgdRate(lr: number, decay: number, t: number): number {
  return lr / (1 + decay * (t - 1));
}

/**
 * One dense SGD step: `param[i] -= lr * grad[i]`.
 *
 * @example
 * ```ts
 * import { sgdUpdate } from "./sgd.ts";
 * const p = Float32Array.of(1, 2);
 * sgdUpdate(p, Float64Array.of(1, -2), 0.5);
 * console.log(Array.from(p).join()); // "0.5,3"
 * ```
 */
export function sgdUpdate(
  param: Float32Array | Float64Array,
  grad: ArrayLike<number>,
  lr: number,
): void {
  if (grad.length < param.length) {
    throw new RangeError(`sgdUpdate: gradient shorter than the parameters (${param.length})`);
  }
  const lim = GRADIENT_LIMIT;
  for (let i = 0; i < param.length; i++) {
    param[i] -= lr * Math.min(Math.max(grad[i], -lim), lim);
  }
}

/**
 * Row-sparse SGD step: for q in [0, count), row `rows[q]` of the row-major `param` (rows of
 * `rowLen`) moves by `-lr * grad[q*rowLen .. (q+1)*rowLen)`.
 *
 * @throws {RangeError} when `rows` holds fewer than `count` rows, `grad` fewer than
 * `count·rowLen` values, or a row is out of range.
 *
 * @example
 * ```ts
 * import { sgdUpdateRows } from "./sgd.ts";
 * const p = new Float32Array(4);
 * sgdUpdateRows(p, Float64Array.of(1, 2), Int32Array.of(1), 1, 2, 0.5);
 * console.log(Array.from(p).join()); // "0,0,-0.5,-1"
 * ```
 */
export function sgdUpdateRows(
  param: Float32Array | Float64Array,
  grad: ArrayLike<number>,
  rows: Int32Array,
  count: number,
  rowLen: number,
  lr: number,
): void {
  if (count > rows.length || grad.length < count * rowLen) {
    throw new RangeError(
      `sgdUpdateRows: ${count} rows of ${rowLen} need ${count} row indices and ` +
        `${count * rowLen} gradient values, got ${rows.length} and ${grad.length}`,
    );
  }
  const lim = GRADIENT_LIMIT;
  for (let q = 0; q < count; q++) {
    const base = rows[q] * rowLen;
    if (rows[q] < 0 || base + rowLen > param.length) {
      throw new RangeError(`sgdUpdateRows: row ${rows[q]} is out of range`);
    }
    const gb = q * rowLen;
    for (let j = 0; j < rowLen; j++) {
      param[base + j] -= lr * Math.min(Math.max(grad[gb + j], -lim), lim);
    }
  }
}
