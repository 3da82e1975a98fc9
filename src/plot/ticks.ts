/**
 * "Nice" axis ticks (1, 2, 5 × 10^n steps) for the SVG plots.
 *
 * @module
 */

/**
 * About `count` evenly spaced round tick values covering `[min, max]` (the first tick ≤ min,
 * the last ≥ max). A degenerate range (one value, or values that differ by rounding noise only)
 * is widened around its value.
 *
 * @example
 * ```ts
 * import { niceTicks } from "./ticks.ts";
 * console.log(niceTicks(0, 97, 5)); // [0, 20, 40, 60, 80, 100]
 * console.log(niceTicks(3, 3)); // [2, 2.5, 3, 3.5, 4]
 * ```
 */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) {
    throw new RangeError(`niceTicks: range must be finite, got [${min}, ${max}]`);
  }
  if (min > max) [min, max] = [max, min];
  // a range of rounding noise (0.3 vs 0.1 + 0.2) is one value: its step would not move `v`
  if (max - min <= 1e-9 * Math.max(Math.abs(min), Math.abs(max))) {
    max = min;
    const pad = min === 0 ? 1 : Math.abs(min) / 3;
    min -= pad;
    max += pad;
  }
  const raw = (max - min) / Math.max(1, count);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const norm = raw / mag;
  const step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  const ticks: number[] = [];
  // integer multiples of the step, not a running sum: -0.06 + 3 × 0.02 was 6.9e-18, not 0
  for (let i = Math.floor(min / step + 1e-9); i * step < max + step - 1e-9 * step; i++) {
    // round away binary noise such as 0.30000000000000004
    ticks.push(Number((i * step).toPrecision(12)));
    if (ticks.length > 1000) break;
  }
  return ticks;
}

/**
 * Formats a tick value compactly (`1.5k`, `2M`, `0.25`): 4 significant digits, or as many as it
 * takes for ticks `step` apart to read differently (41.2345 and 41.23455 are both 41.23 in 4).
 *
 * @param v the tick value
 * @param step the spacing of the axis' ticks (optional)
 *
 * @example
 * ```ts
 * import { formatTick } from "./ticks.ts";
 * console.log(formatTick(1500), formatTick(0.25), formatTick(2e6)); // 1.5k 0.25 2M
 * console.log(formatTick(41.23455, 5e-6)); // 41.23455
 * ```
 */
export function formatTick(v: number, step?: number): string {
  const a = Math.abs(v);
  const digits = step !== undefined && step > 0 && a > 0
    ? Math.min(15, Math.max(4, Math.floor(Math.log10(a)) - Math.floor(Math.log10(step)) + 1))
    : 4;
  const trim = (x: number) => String(Number(x.toPrecision(digits)));
  if (a >= 1e9) return `${trim(v / 1e9)}G`;
  if (a >= 1e6) return `${trim(v / 1e6)}M`;
  if (a >= 1000) return `${trim(v / 1e3)}k`;
  return trim(v);
}
