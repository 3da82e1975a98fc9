/**
 * Top-k selection over a score array without sorting it: a bounded insertion list (ties go to
 * the smaller index), O(n + k·m) where m is the number of insertions.
 *
 * @module
 */
import type { TopK } from "../estimator.ts";

/**
 * The `k` largest of `scores[0..n)`, in decreasing order, ties broken by the smaller index.
 * Allocates only the returned arrays.
 *
 * @example
 * ```ts
 * import { selectTopK } from "./topk.ts";
 * const t = selectTopK(Float32Array.of(0.1, 0.9, 0.5, 0.9), 4, 3);
 * console.log(Array.from(t.labels).join()); // "1,3,2"
 * ```
 */
export function selectTopK(scores: ArrayLike<number>, n: number, k: number): TopK {
  const m = Math.max(0, Math.min(k | 0, n));
  const labels = new Int32Array(m);
  const vals = new Float32Array(m);
  if (m === 0) return { labels, scores: vals };
  let size = 0;
  for (let i = 0; i < n; i++) {
    const s = scores[i];
    // strict comparison: an equal score with a larger index never displaces an earlier one
    if (size === m && !(s > vals[m - 1])) continue;
    let p = size < m ? size : m - 1;
    while (p > 0 && s > vals[p - 1]) {
      vals[p] = vals[p - 1];
      labels[p] = labels[p - 1];
      p--;
    }
    vals[p] = s;
    labels[p] = i;
    if (size < m) size++;
  }
  return { labels, scores: vals };
}
