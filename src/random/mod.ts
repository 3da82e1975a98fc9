/**
 * Every random number of the project, deterministic across runs and platforms (the same seed
 * always gives the same numbers, so models and experiments are reproducible bit for bit):
 *
 * - {@linkcode Rng}: a seeded sfc32 generator (seeded through splitmix32) with uniform, integer
 *   and normal samples and shuffles, for data sets, experiments and batch solvers.
 * - {@linkcode SmallRng}: a mulberry32 generator whose whole state is one 32-bit number (so it
 *   fits in a model state's scalars), for the streaming models and the replay reservoir.
 * - {@linkcode hashUniform}: a stateless hash of (seed, row, col) to [-1, 1), used to initialise
 *   factor rows: row r of a factor always gets the same initial values for the same seed,
 *   whenever it is created.
 *
 * It imports nothing, so every folder of `src/` can use it.
 *
 * @module
 */

/**
 * Seeded PRNG (sfc32). The same seed always gives the same sequence.
 *
 * @example
 * ```ts
 * import { Rng } from "./mod.ts";
 * const a = new Rng(42), b = new Rng(42);
 * console.log(a.next() === b.next()); // true
 * console.log(a.nextInt(10) < 10); // true
 * ```
 */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;
  #spare = 0;
  #hasSpare = false;

  /**
   * @param seed any finite number; its integer part (mod 2^32) and its fraction seed the state.
   */
  constructor(seed: number) {
    if (!Number.isFinite(seed)) {
      throw new TypeError(`Rng: seed must be a finite number, got ${seed}`);
    }
    let s = (Math.floor(seed) >>> 0) ^ Math.floor((seed - Math.floor(seed)) * 0x100000000);
    const split = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = split();
    this.#b = split();
    this.#c = split();
    this.#d = split();
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /**
   * Next raw 32-bit unsigned integer.
   *
   * @example
   * ```ts
   * import { Rng } from "./mod.ts";
   * const u = new Rng(1).nextUint32();
   * console.log(u >= 0 && u < 2 ** 32); // true
   * ```
   */
  nextUint32(): number {
    const a = this.#a, b = this.#b, c = this.#c, d = this.#d;
    const t = (((a + b) | 0) + d) | 0;
    this.#d = (d + 1) | 0;
    this.#a = b ^ (b >>> 9);
    this.#b = (c + (c << 3)) | 0;
    const r = (c << 21) | (c >>> 11);
    this.#c = (r + t) | 0;
    return t >>> 0;
  }

  /**
   * Uniform number in [0, 1) with 32 random bits.
   *
   * @example
   * ```ts
   * import { Rng } from "./mod.ts";
   * const u = new Rng(7).next();
   * console.log(u >= 0 && u < 1); // true
   * ```
   */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /**
   * Uniform integer in [0, n).
   *
   * @example
   * ```ts
   * import { Rng } from "./mod.ts";
   * console.log(new Rng(3).nextInt(1)); // 0
   * ```
   */
  nextInt(n: number): number {
    if (!(n >= 1)) throw new RangeError(`Rng.nextInt: n must be >= 1, got ${n}`);
    return Math.floor(this.next() * n);
  }

  /**
   * Standard normal sample (Box-Muller, spare value cached).
   *
   * @example
   * ```ts
   * import { Rng } from "./mod.ts";
   * console.log(Number.isFinite(new Rng(5).normal())); // true
   * ```
   */
  normal(): number {
    if (this.#hasSpare) {
      this.#hasSpare = false;
      return this.#spare;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.#spare = r * Math.sin(2 * Math.PI * v);
    this.#hasSpare = true;
    return r * Math.cos(2 * Math.PI * v);
  }

  /**
   * Fisher-Yates shuffle in place.
   *
   * @example
   * ```ts
   * import { Rng } from "./mod.ts";
   * const a = Int32Array.of(0, 1, 2, 3);
   * new Rng(9).shuffle(a);
   * console.log([...a].sort().join()); // "0,1,2,3"
   * ```
   */
  shuffle(a: Int32Array): void {
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}

/**
 * A mulberry32 generator whose state is the public field `state` (a uint32).
 *
 * @example
 * ```ts
 * import { SmallRng } from "./mod.ts";
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
   * import { SmallRng } from "./mod.ts";
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
   * import { SmallRng } from "./mod.ts";
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
 * import { hashUniform } from "./mod.ts";
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
