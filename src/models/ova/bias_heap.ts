/**
 * The labels in decreasing order of their bias, kept up to date as biases change: an indexed
 * binary max-heap over every label (ties: the smaller label first), O(log L) per change, and a
 * walk that visits the labels best first in O(m log m) for the first m. The learner walks it for
 * the labels a row's features do not touch, whose score is their bias: the exact top-k of every
 * label never needs a scan of all L.
 *
 * @module
 */

/**
 * An indexed max-heap of labels by bias (see the module doc). It reads the biases from the array
 * it is given; call {@linkcode BiasHeap.update} after changing one, and
 * {@linkcode BiasHeap.grow} after adding labels (or replacing the array).
 *
 * @example
 * ```ts
 * import { BiasHeap } from "./bias_heap.ts";
 * const bias = Float32Array.of(0.5, 2, -1, 2);
 * const h = new BiasHeap(bias, 4);
 * const seen: number[] = [];
 * h.walk((l) => (seen.push(l), seen.length < 3));
 * console.log(seen); // [ 1, 3, 0 ]
 * bias[2] = 5;
 * h.update(2);
 * console.log(h.top()); // 2
 * ```
 */
export class BiasHeap {
  #bias: Float32Array;
  #heap: Int32Array;
  #pos: Int32Array;
  #n = 0;
  #front = new Int32Array(64);

  /** @param bias the biases (read, never written); @param n labels `[0, n)` */
  constructor(bias: Float32Array, n: number) {
    this.#bias = bias;
    this.#heap = new Int32Array(Math.max(16, n));
    this.#pos = new Int32Array(Math.max(16, n));
    for (let l = 0; l < n; l++) {
      this.#heap[l] = l;
      this.#pos[l] = l;
    }
    this.#n = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  /**
   * `new BiasHeap(bias, n)` in steps: the generator yields after about `step` labels placed or
   * sifted, and returns the same heap (the biases must not change meanwhile).
   *
   * @example
   * ```ts
   * import { BiasHeap } from "./bias_heap.ts";
   * const steps = BiasHeap.buildSteps(Float32Array.of(0.5, 2, -1, 2), 4, 1);
   * let r = steps.next(), yields = 0;
   * for (; !r.done; r = steps.next()) yields++;
   * console.log(yields > 1, r.value.top()); // true 1
   * ```
   */
  static *buildSteps(
    bias: Float32Array,
    n: number,
    step = 1 << 16,
  ): Generator<void, BiasHeap, void> {
    const h = new BiasHeap(bias, 0);
    h.#heap = new Int32Array(Math.max(16, n));
    h.#pos = new Int32Array(Math.max(16, n));
    let work = 0;
    for (let l = 0; l < n; l++) {
      h.#heap[l] = l;
      h.#pos[l] = l;
      if (++work >= step) {
        work = 0;
        yield;
      }
    }
    h.#n = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) {
      h.#down(i);
      if (++work >= step) {
        work = 0;
        yield;
      }
    }
    return h;
  }

  /** Labels in the heap. */
  get size(): number {
    return this.#n;
  }

  /** Bytes held. */
  get bytes(): number {
    return 4 * (this.#heap.length + this.#pos.length + this.#front.length);
  }

  /** The label with the largest bias (-1 when empty). */
  top(): number {
    return this.#n > 0 ? this.#heap[0] : -1;
  }

  /** Reads biases from `bias` from now on and adds labels `[size, n)`. */
  grow(bias: Float32Array, n: number): void {
    this.#bias = bias;
    if (n <= this.#n) return;
    if (n > this.#heap.length) {
      let cap = this.#heap.length;
      while (cap < n) cap *= 2;
      const heap = new Int32Array(cap);
      heap.set(this.#heap.subarray(0, this.#n));
      const pos = new Int32Array(cap);
      pos.set(this.#pos.subarray(0, this.#n));
      this.#heap = heap;
      this.#pos = pos;
    }
    for (let l = this.#n; l < n; l++) {
      this.#heap[l] = l;
      this.#pos[l] = l;
      this.#n = l + 1;
      this.#up(l);
    }
  }

  /** Restores the order after label `l`'s bias changed. */
  update(l: number): void {
    const i = this.#pos[l];
    this.#up(i);
    this.#down(this.#pos[l]);
  }

  /**
   * Visits labels in decreasing bias (ties: smaller label first) while `visit` returns true.
   * Prediction never changes the heap; the walk uses a scratch frontier.
   */
  walk(visit: (label: number, bias: number) => boolean): void {
    if (this.#n === 0) return;
    const heap = this.#heap, n = this.#n;
    let front = this.#front, f = 0;
    // the frontier: a max-heap of heap indices (their labels are the next candidates)
    front[f++] = 0;
    while (f > 0) {
      const i = front[0];
      f--;
      if (f > 0) {
        front[0] = front[f];
        this.#frontDown(front, f, 0);
      }
      const l = heap[i];
      if (!visit(l, this.#bias[l])) return;
      for (let c = 2 * i + 1; c <= 2 * i + 2 && c < n; c++) {
        if (f === front.length) {
          const bigger = new Int32Array(2 * front.length);
          bigger.set(front);
          front = this.#front = bigger;
        }
        let k = f++;
        front[k] = c;
        while (k > 0) {
          const p = (k - 1) >> 1;
          if (!this.#better(heap[front[k]], heap[front[p]])) break;
          const t = front[k];
          front[k] = front[p];
          front[p] = t;
          k = p;
        }
      }
    }
  }

  #frontDown(front: Int32Array, f: number, k: number): void {
    const heap = this.#heap;
    for (;;) {
      const a = 2 * k + 1;
      if (a >= f) return;
      let m = a;
      if (a + 1 < f && this.#better(heap[front[a + 1]], heap[front[a]])) m = a + 1;
      if (!this.#better(heap[front[m]], heap[front[k]])) return;
      const t = front[k];
      front[k] = front[m];
      front[m] = t;
      k = m;
    }
  }

  /** Whether label `a` comes before label `b`. */
  #better(a: number, b: number): boolean {
    const x = this.#bias[a], y = this.#bias[b];
    return x > y || (x === y && a < b);
  }

  #up(i: number): void {
    const heap = this.#heap, pos = this.#pos, l = heap[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#better(l, heap[p])) break;
      heap[i] = heap[p];
      pos[heap[i]] = i;
      i = p;
    }
    heap[i] = l;
    pos[l] = i;
  }

  #down(i: number): void {
    const heap = this.#heap, pos = this.#pos, n = this.#n, l = heap[i];
    for (;;) {
      const a = 2 * i + 1;
      if (a >= n) break;
      let m = a;
      if (a + 1 < n && this.#better(heap[a + 1], heap[a])) m = a + 1;
      if (!this.#better(heap[m], l)) break;
      heap[i] = heap[m];
      pos[heap[i]] = i;
      i = m;
    }
    heap[i] = l;
    pos[l] = i;
  }
}
