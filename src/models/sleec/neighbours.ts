/**
 * The SVP observation set Ω of SLEEC (Algorithm 1, step 3): for each training point, the n̄
 * points whose label vectors have the largest inner products with its own (itself included),
 * symmetrised, with the inner products as the observed values.
 *
 * With `normalize` (the default of the SLEEC trainer) label vectors are scaled to unit length
 * first, so the values are cosine similarities `|y_i ∩ y_j| / √(|y_i| |y_j|)`; without it they
 * are the raw counts `|y_i ∩ y_j|`.
 *
 * @module
 */
import type { SymSparse } from "../../linalg/svp.ts";
import { hashUniform } from "../../random/mod.ts";

/**
 * Options of {@linkcode labelNeighbourhood}.
 *
 * @example
 * ```ts
 * import type { NeighbourhoodOptions } from "./neighbours.ts";
 * const o: NeighbourhoodOptions = { normalize: false, seed: 2 };
 * console.log(o.normalize); // false
 * ```
 */
export interface NeighbourhoodOptions {
  /** Unit-length label vectors (cosine similarities) instead of raw counts (default true). */
  normalize?: boolean;
  /** Seed of the tie-breaking among equally similar points (default 0). */
  seed?: number;
  /**
   * Fill a neighbourhood with fewer than n̄ label-sharing rows up to n̄ with rows sharing no label
   * (value 0), drawn by a seeded hash, as the paper's N_i (the α·n rows of largest inner product,
   * ties at 0 included) does: their embeddings are then pulled apart, not left free (default
   * false: only label-sharing rows; `docs/deviations.md` S8).
   */
  pad?: boolean;
}

/**
 * A bounded selection of the `capacity` best (score, tie) pairs with their indices: a min-heap
 * whose root is the weakest kept entry. Larger score wins; equal scores: larger tie wins.
 *
 * @example
 * ```ts
 * import { BoundedHeap } from "./neighbours.ts";
 * const h = new BoundedHeap(2);
 * h.offer(1, 0, 10); h.offer(3, 0, 11); h.offer(2, 0, 12);
 * console.log(Array.from(h.indices.subarray(0, h.size)).sort()); // [ 11, 12 ]
 * ```
 */
export class BoundedHeap {
  /** Kept indices (the first `size` entries, heap order). */
  readonly indices: Int32Array;
  /** Their scores. */
  readonly scores: Float64Array;
  readonly #ties: Float64Array;
  /** Number of kept entries. */
  size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`BoundedHeap: capacity must be a positive integer, got ${capacity}`);
    }
    this.indices = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
    this.#ties = new Float64Array(capacity);
  }

  /** Empties the heap. */
  clear(): void {
    this.size = 0;
  }

  /** Offers an entry; keeps it when it beats the weakest kept one (or there is room). */
  offer(score: number, tie: number, index: number): void {
    const hs = this.scores, ht = this.#ties, hi = this.indices;
    if (this.size < this.capacity) {
      let p = this.size++;
      while (p > 0) {
        const parent = (p - 1) >> 1;
        if (!(score < hs[parent] || (score === hs[parent] && tie < ht[parent]))) break;
        hs[p] = hs[parent];
        ht[p] = ht[parent];
        hi[p] = hi[parent];
        p = parent;
      }
      hs[p] = score;
      ht[p] = tie;
      hi[p] = index;
      return;
    }
    if (!(hs[0] < score || (hs[0] === score && ht[0] < tie))) return;
    const h = this.size;
    let p = 0;
    for (;;) {
      const a = 2 * p + 1, b = a + 1;
      let m = p, ms = score, mt = tie;
      if (a < h && (hs[a] < ms || (hs[a] === ms && ht[a] < mt))) {
        m = a;
        ms = hs[a];
        mt = ht[a];
      }
      if (b < h && (hs[b] < ms || (hs[b] === ms && ht[b] < mt))) m = b;
      if (m === p) break;
      hs[p] = hs[m];
      ht[p] = ht[m];
      hi[p] = hi[m];
      p = m;
    }
    hs[p] = score;
    ht[p] = tie;
    hi[p] = index;
  }
}

/**
 * Builds `P_Ω(YYᵀ)` for the rows' label sets (each strictly increasing, labels in
 * `[0, numLabels)`). A row's n̄ neighbours are the rows sharing a label with it, most similar
 * first; ties are broken by a seeded hash of the pair, so no position in the data is favoured,
 * and the row itself always comes first. Rows without labels get no entry. Runs in
 * O(Σ_i Σ_{l ∈ y_i} |rows of l| · log n̄) time with no per-pair allocation.
 *
 * @throws {RangeError} on a label outside `[0, numLabels)` or a label list that is not
 *   strictly increasing (naming the row).
 *
 * @example
 * ```ts
 * import { labelNeighbourhood } from "./neighbours.ts";
 * const g = labelNeighbourhood([Int32Array.of(0, 1), Int32Array.of(1), Int32Array.of(2)], 3, 2, { normalize: false });
 * console.log(Array.from(g.indices.subarray(g.indptr[0], g.indptr[1]))); // [ 0, 1 ]
 * console.log(Array.from(g.values.subarray(g.indptr[0], g.indptr[1]))); // [ 2, 1 ]
 * ```
 */
export function labelNeighbourhood(
  labels: readonly Int32Array[],
  numLabels: number,
  neighbours: number,
  options: NeighbourhoodOptions = {},
): SymSparse {
  const n = labels.length;
  const normalize = options.normalize ?? true;
  const seed = options.seed ?? 0;
  const pad = options.pad ?? false;
  const nbar = Math.max(1, Math.floor(neighbours));
  // inverted index: label -> rows
  const lcount = new Int32Array(numLabels + 1);
  for (let i = 0; i < n; i++) {
    const ls = labels[i];
    for (let q = 0; q < ls.length; q++) {
      const l = ls[q];
      if (!(l >= 0 && l < numLabels) || (q > 0 && l <= ls[q - 1])) {
        throw new RangeError(
          `labelNeighbourhood: row ${i} has label ${l} at position ${q}: labels must be ` +
            `strictly increasing and in [0, ${numLabels})`,
        );
      }
      lcount[l + 1]++;
    }
  }
  for (let l = 0; l < numLabels; l++) lcount[l + 1] += lcount[l];
  const lrows = new Int32Array(lcount[numLabels]);
  const fill = lcount.slice(0, numLabels);
  for (let i = 0; i < n; i++) {
    const ls = labels[i];
    for (let q = 0; q < ls.length; q++) lrows[fill[ls[q]]++] = i;
  }
  const invNorm = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    invNorm[i] = labels[i].length > 0 ? (normalize ? 1 / Math.sqrt(labels[i].length) : 1) : 0;
  }

  const cnt = new Int32Array(n);
  const touched = new Int32Array(n);
  // rows with labels (the only candidates of padding) and a per-row stamp of the rows drawn
  let labelled = 0;
  for (let i = 0; i < n; i++) if (labels[i].length > 0) labelled++;
  const drawn = pad ? new Int32Array(n).fill(-1) : new Int32Array(0);
  const heap = new BoundedHeap(nbar);
  // directed edges i -> j (both directions are emitted)
  let edgeRow = new Int32Array(Math.max(16, 2 * n * Math.min(nbar, 32)));
  let edgeCol = new Int32Array(edgeRow.length);
  let ne = 0;
  const push = (i: number, j: number) => {
    if (ne === edgeRow.length) {
      const r = new Int32Array(edgeRow.length * 2);
      r.set(edgeRow);
      edgeRow = r;
      const c = new Int32Array(edgeCol.length * 2);
      c.set(edgeCol);
      edgeCol = c;
    }
    edgeRow[ne] = i;
    edgeCol[ne++] = j;
  };
  for (let i = 0; i < n; i++) {
    const ls = labels[i];
    let t = 0;
    for (let q = 0; q < ls.length; q++) {
      const l = ls[q];
      for (let e = lcount[l]; e < lcount[l + 1]; e++) {
        const j = lrows[e];
        if (cnt[j] === 0) touched[t++] = j;
        cnt[j]++;
      }
    }
    heap.clear();
    for (let q = 0; q < t; q++) {
      const j = touched[q];
      const tie = j === i ? 2 : hashUniform(seed, i < j ? i : j, i < j ? j : i);
      heap.offer(cnt[j] * invNorm[i] * invNorm[j], tie, j);
    }
    for (let q = 0; q < heap.size; q++) {
      const j = heap.indices[q];
      push(i, j);
      if (j !== i) push(j, i);
    }
    if (pad && ls.length > 0 && heap.size < nbar) {
      // the rest of N_i: rows sharing no label, drawn without replacement by a seeded hash (at
      // most 4 draws a row wanted, so a set nearly all sharing stops early)
      let want = Math.min(nbar - heap.size, labelled - t);
      for (let d = 0, tries = 4 * want + 16; want > 0 && d < tries; d++) {
        const j = Math.min(n - 1, Math.floor((hashUniform(seed + 1, i, d) + 1) * 0.5 * n));
        if (cnt[j] !== 0 || drawn[j] === i || labels[j].length === 0) continue;
        drawn[j] = i;
        push(i, j);
        push(j, i);
        want--;
      }
    }
    for (let q = 0; q < t; q++) cnt[touched[q]] = 0;
  }
  // CSR by row (counting sort), columns sorted and de-duplicated
  const start = new Int32Array(n + 1);
  for (let e = 0; e < ne; e++) start[edgeRow[e] + 1]++;
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const cols = new Int32Array(ne);
  const pos = start.slice(0, n);
  for (let e = 0; e < ne; e++) cols[pos[edgeRow[e]]++] = edgeCol[e];
  const indptr = new Int32Array(n + 1);
  let out = 0;
  for (let i = 0; i < n; i++) {
    const seg = cols.subarray(start[i], start[i + 1]);
    seg.sort();
    let last = -1;
    for (let q = 0; q < seg.length; q++) {
      if (seg[q] === last) continue;
      last = seg[q];
      cols[out++] = last; // out <= start[i] + q: compaction never overwrites unread entries
    }
    indptr[i + 1] = out;
  }
  // values: label-set intersections, through a per-row stamp of the row's labels
  const indices = cols.slice(0, out);
  const values = new Float64Array(out);
  const stamp = new Int32Array(numLabels).fill(-1);
  for (let i = 0; i < n; i++) {
    const li = labels[i];
    for (let q = 0; q < li.length; q++) stamp[li[q]] = i;
    for (let e = indptr[i]; e < indptr[i + 1]; e++) {
      const j = indices[e];
      const lj = labels[j];
      let c = 0;
      for (let q = 0; q < lj.length; q++) if (stamp[lj[q]] === i) c++;
      values[e] = c * invNorm[i] * invNorm[j];
    }
  }
  return { n, indptr, indices, values };
}

/**
 * The `heap.capacity` rows among `candidates[0..count)` most similar in label space to the
 * label set `query` (both strictly increasing), as in {@linkcode labelNeighbourhood}: cosine
 * similarity with `normalize`, else the overlap count; only rows sharing a label are kept; ties
 * are broken by a seeded hash of (`queryId`, candidate index). Results are left in `heap`
 * (indices into `candidates`, scores = similarities). `stamp` is scratch of at least
 * `numLabels` entries, `stampId` a value not yet used in it.
 *
 * @example
 * ```ts
 * import { BoundedHeap, nearestByLabels } from "./neighbours.ts";
 * const heap = new BoundedHeap(1);
 * const cands = [Int32Array.of(0), Int32Array.of(1, 2), Int32Array.of(2)];
 * nearestByLabels(Int32Array.of(2), cands, 3, heap, new Int32Array(3), 1, { normalize: true });
 * console.log(heap.indices[0], heap.scores[0]); // 2 1
 * ```
 */
export function nearestByLabels(
  query: Int32Array,
  candidates: readonly Int32Array[],
  count: number,
  heap: BoundedHeap,
  stamp: Int32Array,
  stampId: number,
  options: NeighbourhoodOptions & { queryId?: number } = {},
): void {
  heap.clear();
  if (query.length === 0) return;
  const normalize = options.normalize ?? true;
  const seed = options.seed ?? 0, qid = options.queryId ?? 0;
  for (let q = 0; q < query.length; q++) stamp[query[q]] = stampId;
  const qn = normalize ? 1 / Math.sqrt(query.length) : 1;
  for (let j = 0; j < count; j++) {
    const lj = candidates[j];
    let c = 0;
    for (let q = 0; q < lj.length; q++) if (stamp[lj[q]] === stampId) c++;
    if (c === 0) continue;
    heap.offer(normalize ? c * qn / Math.sqrt(lj.length) : c, hashUniform(seed, qid, j), j);
  }
}
