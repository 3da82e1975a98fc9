/**
 * Top-k selection with the project's tie rule (decreasing score, ties broken by the smaller label
 * index; NaN ranks as -Infinity, below every finite number): the one implementation in the
 * project, used by the SDK's scorers and (through `sdk/internal.ts`) by the trainers and the
 * evaluator.
 *
 * @module
 */
import { F32, i32s, rankable, zeros } from "./vector.ts";

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
  /** Label indices, best first. */
  readonly labels: Int32Array;
  /** The score of each label in `labels`. */
  readonly scores: Float32Array;
}

/**
 * Whether label `l` with score `s` ranks above entry `i` of `labels`/`top`: a higher score, or
 * the same score and a smaller label.
 *
 * @example
 * ```ts
 * import { beats } from "./topk.ts";
 * const labels = Int32Array.of(4), top = Float64Array.of(0.5);
 * console.log(beats(labels, top, 0, 3, 0.5), beats(labels, top, 0, 5, 0.5)); // true false
 * ```
 */
export const beats = (labels: Int32Array, top: Float64Array, i: number, l: number, s: number) =>
  s > top[i] || s === top[i] && l < labels[i];

/**
 * Keeps the `cap` best entries seen so far in `labels`/`top`, in decreasing score order, ties
 * broken by the smaller label (labels pushed in increasing order: an equal score stays behind
 * the entries already kept): inserts label `l` with score `s` into the `size` entries held and
 * returns the new size. Also the neighbour selection of `knn-embedding`.
 *
 * @example
 * ```ts
 * import { pushTop } from "./topk.ts";
 * const labels = new Int32Array(2), top = new Float64Array(2);
 * let size = 0;
 * for (const [l, s] of [[7, 0.5], [8, 0.9], [9, 0.5], [10, 0.7]]) size = pushTop(labels, top, size, 2, l, s);
 * console.log(size, [...labels], [...top]); // 2 [ 8, 10 ] [ 0.9, 0.7 ]
 * ```
 */
export const pushTop = (
  labels: Int32Array,
  top: Float64Array,
  size: number,
  cap: number,
  l: number,
  s: number,
): number => {
  if (size === cap && !beats(labels, top, cap - 1, l, s)) return size;
  let pos = size < cap ? size++ : cap - 1;
  while (pos > 0 && beats(labels, top, pos - 1, l, s)) {
    top[pos] = top[pos - 1];
    labels[pos] = labels[pos - 1];
    pos--;
  }
  top[pos] = s;
  labels[pos] = l;
  return size;
};

/**
 * The answer of a full top-k list: its labels and its scores rounded to float32.
 *
 * @example
 * ```ts
 * import { answer } from "./topk.ts";
 * console.log(answer(Int32Array.of(2), Float64Array.of(0.1)).scores); // Float32Array(1) [ 0.10000000149011612 ]
 * ```
 */
export const answer = (labels: Int32Array, top: Float64Array): TopK => ({
  labels,
  scores: F32.from(top),
});

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
export const topK = (scores: ArrayLike<number>, n: number, k: number): TopK => {
  const cap = k < n ? k : n, labels = i32s(cap), top = zeros(cap);
  for (let l = 0, size = 0; l < n; l++) {
    const s = rankable(scores[l]);
    // a full list keeps only a higher score (labels come in increasing order)
    if (size < cap || s > top[cap - 1]) size = pushTop(labels, top, size, cap, l, s);
  }
  return answer(labels, top);
};

/**
 * The `k` best of `L` labels when only the `n` labels of `touched` (marked in `mark`) have scores
 * of their own, `s[l]`, and every other label l scores `key[l]` (0 without `key`): the touched
 * labels, then the others walked in `order` (0, 1, … without it), which must list the labels by
 * decreasing key, ties by the smaller label, until the walk cannot beat the k-th best. The same
 * answer as {@linkcode topK} of all L scores.
 *
 * @example
 * ```ts
 * import { topKTouched } from "./topk.ts";
 * // labels 0..4: label 3 scores 2 (touched), the others their key
 * const s = Float64Array.of(0, 0, 0, 2, 0), mark = Uint8Array.of(0, 0, 0, 1, 0);
 * const t = topKTouched(3, 5, s, Int32Array.of(3), 1, mark, Int32Array.of(1, 3, 0, 2, 4), Float32Array.of(0, 5, 0, -1, -2));
 * console.log([...t.labels]); // [ 1, 3, 0 ]
 * ```
 */
export const topKTouched = (
  k: number,
  L: number,
  s: Float64Array,
  touched: Int32Array,
  n: number,
  mark: Uint8Array,
  order?: Int32Array,
  key?: Float32Array,
): TopK => {
  const cap = k < L ? k : L, labels = i32s(cap), top = zeros(cap);
  let size = 0;
  for (let i = 0; i < n; i++) {
    size = pushTop(labels, top, size, cap, touched[i], rankable(s[touched[i]]));
  }
  for (let i = 0; i < L; i++) {
    const l = order ? order[i] : i, x = key ? rankable(key[l]) : 0;
    if (size === cap && !beats(labels, top, cap - 1, l, x)) break; // the rest rank lower
    if (!mark[l]) size = pushTop(labels, top, size, cap, l, x);
  }
  return answer(labels, top);
};

/**
 * The `k` best labels of a dense score vector (one score per label), as {@linkcode topK} of all
 * of them: `min(k, scores.length)` labels. The trainers' and the evaluator's top-k.
 *
 * @throws {RangeError} when `k` is negative or not an integer
 *
 * @example
 * ```ts
 * import { topKDense } from "./topk.ts";
 * const t = topKDense(Float32Array.of(0.5, 0.9, 0.5, 0.1), 3);
 * console.log([...t.labels]); // [ 1, 0, 2 ] (0 and 2 tie; the smaller index comes first)
 * ```
 */
export function topKDense(scores: ArrayLike<number>, k: number): TopK {
  checkK(k);
  return topK(scores, scores.length, k);
}

/**
 * The `k` best labels of a sparse score vector over `numLabels` labels, where every label not
 * listed in `indices` has score 0 (the convention of prediction files): the same answer as
 * {@linkcode topKDense} of the densified vector, in O(m log m + m·k) for m listed entries
 * (never O(numLabels)).
 *
 * @param indices listed label indices, any order, no duplicates, each in [0, numLabels)
 * @param scores their scores
 * @param numLabels size of the label space
 * @param k how many labels to return
 * @throws {RangeError} on a duplicate or out-of-range index, a bad `k` or a bad `numLabels`
 *
 * @example
 * ```ts
 * import { topKSparse } from "./topk.ts";
 * // labels 0..5; label 4 scores 2, label 1 scores -1, every other label scores 0
 * const t = topKSparse(Int32Array.of(4, 1), Float64Array.of(2, -1), 6, 3);
 * console.log([...t.labels]); // [ 4, 0, 2 ]
 * ```
 */
export function topKSparse(
  indices: ArrayLike<number>,
  scores: ArrayLike<number>,
  numLabels: number,
  k: number,
): TopK {
  checkK(k);
  if (!Number.isSafeInteger(numLabels) || numLabels < 0) {
    // NaN answered nothing and took every index as in range; a negative count failed to allocate
    throw new RangeError(`topKSparse: numLabels must be an integer >= 0, got ${numLabels}`);
  }
  const m = indices.length;
  if (scores.length !== m) {
    throw new RangeError(
      `topKSparse: ${m} indices but ${scores.length} scores (they must have the same length)`,
    );
  }
  const cap = Math.min(k, numLabels), labels = new Int32Array(cap), top = zeros(cap);
  if (cap === 0) return { labels, scores: new Float32Array(0) };
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
  let size = 0;
  for (let j = 0; j < m; j++) {
    const s = scores[j];
    size = pushTop(labels, top, size, cap, indices[j], s === s ? s : -Infinity);
  }
  // the smallest `cap` unlisted labels (score 0) are the only implicit candidates
  for (let l = 0, p = 0, taken = 0; l < numLabels && taken < cap; l++) {
    while (p < m && sorted[p] < l) p++;
    if (p < m && sorted[p] === l) continue;
    size = pushTop(labels, top, size, cap, l, 0);
    taken++;
  }
  return { labels: labels.slice(0, size), scores: Float32Array.from(top.subarray(0, size)) };
}

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 0) {
    throw new RangeError(`top-k: k must be an integer >= 0, got ${k}`);
  }
}

/**
 * The top k of a kind scorer, which every kind answers itself (`loadModel` calls it):
 * `linear-sparse` and `knn-embedding` exactly without scanning every label, `linear-lowrank` and
 * `random-features` from their label index when the file has one, else by scoring every label.
 *
 * @example
 * ```ts
 * import type { TopKScorer } from "./topk.ts";
 * const s: TopKScorer = { topK: (_i, _v, k) => ({ labels: new Int32Array(k), scores: new Float32Array(k) }) };
 * console.log(s.topK(new Int32Array(0), new Float64Array(0), 1).labels); // Int32Array(1) [ 0 ]
 * ```
 */
export interface TopKScorer {
  /**
   * The `k` best labels of a preprocessed row, as {@linkcode topK} of all its scores; `dense`
   * (the caller's `exact`) asks for the exact answer, by scoring every label or, for
   * `knn-embedding`, from the exact neighbours. A kind with an index (`linear-lowrank` and
   * `random-features` label index, `knn-embedding` lists) answers approximately from the
   * `probes` best clusters or lists (default: the file's), with exact scores.
   */
  topK: (
    indices: Int32Array,
    values: Float32Array | Float64Array,
    k: number,
    dense?: boolean,
    probes?: number,
  ) => TopK;
}
