/**
 * Top-k selection with the project's tie rule: decreasing score, ties broken by the smaller
 * label index. NaN scores rank below every number (as if they were -Infinity).
 *
 * @module
 */
import type { TopK } from "../models/estimator.ts";

/** Inserts (label, score) into the sorted buffer of `n` entries (capacity k); returns new n. */
function insert(
  labels: Int32Array,
  scores: Float64Array,
  n: number,
  k: number,
  label: number,
  score: number,
): number {
  // position of the first entry that ranks below (score, label)
  let pos = n;
  while (pos > 0) {
    const s = scores[pos - 1];
    if (s > score || (s === score && labels[pos - 1] < label)) break;
    pos--;
  }
  if (pos >= k) return n;
  const end = n < k ? n : k - 1;
  for (let j = end; j > pos; j--) {
    labels[j] = labels[j - 1];
    scores[j] = scores[j - 1];
  }
  labels[pos] = label;
  scores[pos] = score;
  return n < k ? n + 1 : n;
}

function finish(labels: Int32Array, scores: Float64Array, n: number): TopK {
  const outScores = new Float32Array(n);
  for (let j = 0; j < n; j++) outScores[j] = scores[j];
  return { labels: labels.slice(0, n), scores: outScores };
}

/**
 * The `k` best labels of a dense score vector, in decreasing score order, ties broken by the
 * smaller label index (so the answer is unique). Runs in O(L·k) worst case, O(L) typically; no
 * per-element allocation. Returns `min(k, scores.length)` labels.
 *
 * @param scores one score per label
 * @param k how many labels to return (>= 0)
 * @throws {RangeError} when `k` is negative or not an integer
 *
 * @example
 * ```ts
 * import { topKDense } from "./topk.ts";
 * const t = topKDense(Float32Array.of(0.5, 0.9, 0.5, 0.1), 3);
 * console.log([...t.labels]); // [1, 0, 2] (0 and 2 tie; the smaller index comes first)
 * ```
 */
export function topKDense(scores: ArrayLike<number>, k: number): TopK {
  checkK(k);
  const cap = Math.min(k, scores.length);
  const labels = new Int32Array(cap);
  const buf = new Float64Array(cap);
  let n = 0;
  if (cap === 0) return finish(labels, buf, 0);
  for (let l = 0; l < scores.length; l++) {
    const raw = scores[l];
    const s = raw !== raw ? -Infinity : raw;
    // fast reject: full buffer and not strictly better than the last entry (l is larger)
    if (n === cap && !(s > buf[cap - 1])) continue;
    n = insert(labels, buf, n, cap, l, s);
  }
  return finish(labels, buf, n);
}

/**
 * The `k` best labels of a sparse score vector over `numLabels` labels, where every label not
 * listed in `indices` has score 0 (the convention of prediction files). Same order and tie rule
 * as {@linkcode topKDense}, so it equals `topKDense` of the densified vector, in
 * O(m log m + m·k) for m listed entries (never O(numLabels)).
 *
 * @param indices listed label indices, any order, no duplicates, each in [0, numLabels)
 * @param scores their scores
 * @param numLabels size of the label space
 * @param k how many labels to return
 * @throws {RangeError} on a duplicate or out-of-range index, or a bad `k`
 *
 * @example
 * ```ts
 * import { topKSparse } from "./topk.ts";
 * // labels 0..5; label 4 scores 2, label 1 scores -1, every other label scores 0
 * const t = topKSparse(Int32Array.of(4, 1), Float64Array.of(2, -1), 6, 3);
 * console.log([...t.labels]); // [4, 0, 2]
 * ```
 */
export function topKSparse(
  indices: ArrayLike<number>,
  scores: ArrayLike<number>,
  numLabels: number,
  k: number,
): TopK {
  checkK(k);
  const m = indices.length;
  if (scores.length !== m) {
    throw new RangeError(
      `topKSparse: ${m} indices but ${scores.length} scores (they must have the same length)`,
    );
  }
  const cap = Math.min(k, numLabels);
  const labels = new Int32Array(cap);
  const buf = new Float64Array(cap);
  let n = 0;
  if (cap === 0) return finish(labels, buf, 0);
  for (let j = 0; j < m; j++) {
    const l = indices[j];
    if (!Number.isInteger(l) || l < 0 || l >= numLabels) {
      throw new RangeError(`topKSparse: label index ${l} is out of range [0, ${numLabels})`);
    }
  }
  const sorted = Int32Array.from(indices).sort();
  for (let j = 1; j < m; j++) {
    if (sorted[j - 1] === sorted[j]) {
      throw new RangeError(`topKSparse: label index ${sorted[j]} is listed twice`);
    }
  }
  for (let j = 0; j < m; j++) {
    const raw = scores[j];
    const s = raw !== raw ? -Infinity : raw;
    n = insert(labels, buf, n, cap, indices[j], s);
  }
  // the smallest `cap` unlisted labels (score 0) are the only implicit candidates
  let taken = 0;
  let p = 0;
  for (let l = 0; l < numLabels && taken < cap; l++) {
    while (p < m && sorted[p] < l) p++;
    if (p < m && sorted[p] === l) continue;
    n = insert(labels, buf, n, cap, l, 0);
    taken++;
  }
  return finish(labels, buf, n);
}

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 0) {
    throw new RangeError(`top-k: k must be an integer >= 0, got ${k}`);
  }
}
