/**
 * The seeded uniform generator of the test suites (mulberry32): tiny, fast and the same on every
 * platform, so a test's random data is fixed by its seed. Trainer code uses `src/random/mod.ts`.
 *
 * @module
 */

/**
 * A seeded uniform generator in [0, 1) (mulberry32); the same seed gives the same sequence.
 *
 * @example
 * ```ts
 * import { mulberry32 } from "./mulberry32.ts";
 * const a = mulberry32(7), b = mulberry32(7);
 * console.log(a() === b(), a() < 1); // true true
 * ```
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
