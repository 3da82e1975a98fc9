/**
 * A small seeded pseudo-random generator (sfc32, seeded through splitmix32), deterministic across
 * runs and platforms. Use it everywhere randomness must be reproducible.
 *
 * @module
 */

/**
 * Seeded PRNG (sfc32). The same seed always gives the same sequence.
 *
 * @example
 * ```ts
 * import { Rng } from "./random.ts";
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
   * import { Rng } from "./random.ts";
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
   * import { Rng } from "./random.ts";
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
   * import { Rng } from "./random.ts";
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
   * import { Rng } from "./random.ts";
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
   * import { Rng } from "./random.ts";
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
