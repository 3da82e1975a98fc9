/**
 * The nearest-rank quantile every benchmark quotes its percentiles (p50, p99) and medians by.
 *
 * @module
 */

/**
 * The q-quantile (0..1) of `values` by nearest rank: the smallest value with at least q·n
 * values at or below it (the lower median for an even count; p99 of 100 values is the 99th,
 * not the largest). NaN when `values` is empty. `values` is not reordered.
 *
 * @example
 * ```ts
 * import { quantile } from "./quantile.ts";
 * console.log(quantile([5, 1, 3, 2, 4], 0.5), quantile([4, 1, 3, 2], 0.5)); // 3 2
 * const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
 * console.log(quantile(hundred, 0.99), quantile(hundred, 1)); // 99 100
 * ```
 */
export function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return NaN;
  const s = Float64Array.from(values).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
