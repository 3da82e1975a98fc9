/**
 * Top-k selection with the project's tie rule (decreasing score, ties broken by the smaller label
 * index; NaN ranks below every number), the same answer as the trainers' `topKDense`.
 *
 * @module
 */

/**
 * A top-k answer: label indices in decreasing score order and their scores.
 *
 * @example
 * ```ts
 * import type { TopK } from "./topk.ts";
 * const t: TopK = { labels: Int32Array.of(3), scores: Float32Array.of(0.5) };
 * console.log(t.labels[0]); // 3
 * ```
 */
export interface TopK {
  readonly labels: Int32Array;
  readonly scores: Float32Array;
}

/**
 * The `k` best of the first `n` scores (k is clamped to [0, n]).
 *
 * @example
 * ```ts
 * import { topK } from "./topk.ts";
 * const t = topK(Float64Array.of(0.5, 0.9, 0.5, 0.1), 4, 3);
 * console.log([...t.labels]); // [ 1, 0, 2 ]
 * ```
 */
export function topK(scores: Float32Array | Float64Array, n: number, k: number): TopK {
  const cap = k < n ? k : n;
  const labels = new Int32Array(cap), top = new Float64Array(cap);
  let size = 0;
  for (let l = 0; l < n; l++) {
    const raw = scores[l], s = raw !== raw ? -Infinity : raw;
    if (size === cap && !(s > top[cap - 1])) continue;
    // entries with equal scores keep their (smaller) labels ahead
    let pos = size < cap ? size : cap - 1;
    while (pos > 0 && s > top[pos - 1]) {
      top[pos] = top[pos - 1];
      labels[pos] = labels[pos - 1];
      pos--;
    }
    top[pos] = s;
    labels[pos] = l;
    if (size < cap) size++;
  }
  return { labels, scores: Float32Array.from(top) };
}
