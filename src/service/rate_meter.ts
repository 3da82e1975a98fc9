/**
 * Events per second over a sliding window of a few seconds, from a growing count sampled
 * whenever the rate is read (the status line and `/metrics` read it).
 *
 * @module
 */

/**
 * A sliding-window rate of a monotone count.
 *
 * @example
 * ```ts
 * import { RateMeter } from "./rate_meter.ts";
 * const m = new RateMeter(5000);
 * m.rate(0, 0);
 * console.log(m.rate(300, 2000)); // 150
 * ```
 */
export class RateMeter {
  #samples: { t: number; count: number }[] = [];
  readonly #windowMs: number;

  /** @param windowMs the window length in milliseconds (default 5000) */
  constructor(windowMs = 5000) {
    this.#windowMs = windowMs;
  }

  /**
   * Records `count` at time `now` (milliseconds, default `performance.now()`) and returns the
   * count's rate per second since the oldest sample within the window (0 for the first call).
   */
  rate(count: number, now: number = performance.now()): number {
    const s = this.#samples;
    s.push({ t: now, count });
    while (s.length > 2 && now - s[1].t > this.#windowMs) s.shift();
    const dt = (now - s[0].t) / 1000;
    return dt > 0 ? (count - s[0].count) / dt : 0;
  }
}
