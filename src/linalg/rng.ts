/**
 * Small deterministic random helpers whose whole state is one 32-bit number (so it fits in a
 * model state's scalars), used by the models and the replay reservoir, plus a stateless hash
 * used to initialise factor rows: row r of a factor always gets the same initial values for the
 * same seed, whenever it is created.
 *
 * @module
 */

/**
 * A mulberry32 generator whose state is the public field `state` (a uint32).
 *
 * @example
 * ```ts
 * import { SmallRng } from "./rng.ts";
 * const a = new SmallRng(5), b = new SmallRng(a.state);
 * console.log(a.next() === b.next()); // true
 * ```
 */
export class SmallRng {
  /** The whole generator state. */
  state: number;
  /** @param state initial state (any number; its low 32 bits are used). */
  constructor(state: number) {
    this.state = state >>> 0;
  }
  /**
   * Uniform in [0, 1).
   *
   * @example
   * ```ts
   * import { SmallRng } from "./rng.ts";
   * const u = new SmallRng(1).next();
   * console.log(u >= 0 && u < 1); // true
   * ```
   */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /**
   * Uniform integer in [0, n).
   *
   * @example
   * ```ts
   * import { SmallRng } from "./rng.ts";
   * console.log(new SmallRng(2).nextInt(1)); // 0
   * ```
   */
  nextInt(n: number): number {
    return Math.floor(this.next() * n);
  }
}

/**
 * A deterministic value in [-1, 1) from (seed, row, col): used for initial factor entries.
 *
 * @example
 * ```ts
 * import { hashUniform } from "./rng.ts";
 * console.log(hashUniform(1, 2, 3) === hashUniform(1, 2, 3)); // true
 * ```
 */
export function hashUniform(seed: number, row: number, col: number): number {
  let h = Math.imul((seed | 0) ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (row | 0) ^ (h >>> 13), 0xc2b2ae35);
  h = Math.imul(h ^ (col | 0) ^ (h >>> 16), 0x27d4eb2f);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h >>> 0) / 2147483648 - 1;
}
