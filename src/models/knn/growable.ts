/**
 * Append-only typed-array lists for the kNN baseline's training rows and postings.
 *
 * @module
 */

/**
 * An append-only `Int32Array` list (amortised O(1) push, no per-element allocation).
 *
 * @example
 * ```ts
 * import { IntList } from "./growable.ts";
 * const a = new IntList();
 * a.push(4);
 * a.push(7);
 * console.log(a.length, [...a.view()]); // 2 [4, 7]
 * ```
 */
export class IntList {
  #data: Int32Array;
  #length = 0;

  /** @param capacity initial capacity */
  constructor(capacity = 8) {
    this.#data = new Int32Array(Math.max(1, capacity));
  }

  /** Number of elements. */
  get length(): number {
    return this.#length;
  }

  /** The backing array (valid entries: `[0, length)`). */
  get data(): Int32Array {
    return this.#data;
  }

  /** Appends one value. */
  push(v: number): void {
    if (this.#length === this.#data.length) this.#grow(this.#length + 1);
    this.#data[this.#length++] = v;
  }

  /** Appends all values of `src`. */
  pushAll(src: ArrayLike<number>): void {
    const n = src.length;
    if (this.#length + n > this.#data.length) this.#grow(this.#length + n);
    for (let i = 0; i < n; i++) this.#data[this.#length + i] = src[i];
    this.#length += n;
  }

  /** A view of the valid entries (invalidated by the next push). */
  view(): Int32Array {
    return this.#data.subarray(0, this.#length);
  }

  #grow(min: number): void {
    const next = new Int32Array(Math.max(min, this.#data.length * 2));
    next.set(this.#data.subarray(0, this.#length));
    this.#data = next;
  }
}

/**
 * An append-only `Float32Array` list.
 *
 * @example
 * ```ts
 * import { FloatList } from "./growable.ts";
 * const a = new FloatList();
 * a.push(0.5);
 * console.log([...a.view()]); // [0.5]
 * ```
 */
export class FloatList {
  #data: Float32Array;
  #length = 0;

  /** @param capacity initial capacity */
  constructor(capacity = 8) {
    this.#data = new Float32Array(Math.max(1, capacity));
  }

  /** Number of elements. */
  get length(): number {
    return this.#length;
  }

  /** The backing array (valid entries: `[0, length)`). */
  get data(): Float32Array {
    return this.#data;
  }

  /** Appends one value. */
  push(v: number): void {
    if (this.#length === this.#data.length) {
      const next = new Float32Array(this.#data.length * 2);
      next.set(this.#data);
      this.#data = next;
    }
    this.#data[this.#length++] = v;
  }

  /** A view of the valid entries (invalidated by the next push). */
  view(): Float32Array {
    return this.#data.subarray(0, this.#length);
  }
}
