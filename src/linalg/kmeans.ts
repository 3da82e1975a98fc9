/**
 * Seeded spherical k-means on sparse rows: rows are L2-normalised, centroids are unit vectors,
 * a row goes to the centroid with the largest inner product (ties: the smaller index).
 *
 * @module
 */
import type { CsrMatrix } from "../data/types.ts";
import { Rng } from "../random/mod.ts";

/**
 * Result of {@linkcode sphericalKMeans}.
 *
 * @example
 * ```ts
 * import { type KMeansResult, sphericalKMeans } from "./kmeans.ts";
 * const x = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const r: KMeansResult = sphericalKMeans(x, 2);
 * console.log(r.clusters, r.assignment[0] !== r.assignment[1]); // 2 true
 * ```
 */
export interface KMeansResult {
  /** Unit-norm centroids, row-major `clusters × numCols` (a centroid of an empty cluster is 0). */
  centroids: Float64Array;
  /** Cluster of each row. */
  assignment: Int32Array;
  /** Number of clusters. */
  clusters: number;
  /**
   * Iterations that moved a row (the last pass, which found every row where it was, is not
   * counted; `iterations` when none converged).
   */
  iterations: number;
}

/**
 * Index of the centroid with the largest inner product with a sparse row (ties: smaller index).
 *
 * @example
 * ```ts
 * import { nearestCentroid } from "./kmeans.ts";
 * const c = Float64Array.of(1, 0, 0, 1); // two centroids in R^2
 * console.log(nearestCentroid(c, 2, 2, Int32Array.of(1), Float32Array.of(1), 0, 1)); // 1
 * ```
 */
export function nearestCentroid(
  centroids: ArrayLike<number>,
  clusters: number,
  dim: number,
  indices: ArrayLike<number>,
  values: ArrayLike<number>,
  start: number,
  end: number,
): number {
  let best = 0, bestDot = -Infinity;
  for (let c = 0; c < clusters; c++) {
    const o = c * dim;
    let s = 0;
    for (let e = start; e < end; e++) {
      const j = indices[e];
      if (j < dim) s += values[e] * centroids[o + j];
    }
    if (s > bestDot) {
      bestDot = s;
      best = c;
    }
  }
  return best;
}

/**
 * Clusters the rows of `x` (assumed L2-normalised) into `clusters` groups (at most one per row):
 * greedy k-means++ seeding on the cosine distance `1 − ⟨x, c⟩` (each new centroid is the best
 * of `2 + ⌊ln clusters⌋` rows sampled in proportion to their distance, with a seeded
 * {@linkcode Rng}), then
 * Lloyd iterations (assign to the most similar centroid, re-normalise the mean) until no row
 * moves or `iterations` is reached. A cluster left empty takes over the row least similar to
 * its own centroid, so every centroid keeps at least one row (with fewer distinct rows than
 * clusters, some centroids coincide).
 *
 * @throws {RangeError} when `clusters` is not an integer >= 1 or `iterations` not an integer
 * >= 1.
 *
 * @example
 * ```ts
 * import { sphericalKMeans } from "./kmeans.ts";
 * const x = {
 *   numRows: 4, numCols: 2, indptr: Int32Array.of(0, 1, 2, 3, 4),
 *   indices: Int32Array.of(0, 0, 1, 1), values: Float32Array.of(1, 1, 1, 1),
 * };
 * const r = sphericalKMeans(x, 2, { seed: 3 });
 * console.log(r.assignment[0] === r.assignment[1], r.assignment[0] !== r.assignment[2]); // true true
 * ```
 */
export function sphericalKMeans(
  x: CsrMatrix,
  clusters: number,
  options: { seed?: number; iterations?: number } = {},
): KMeansResult {
  const n = x.numRows, d = x.numCols;
  if (!(clusters >= 1)) {
    throw new RangeError(`sphericalKMeans: clusters must be >= 1, got ${clusters}`);
  }
  if (!Number.isSafeInteger(clusters)) {
    throw new RangeError(`sphericalKMeans: clusters must be an integer, got ${clusters}`);
  }
  const C = Math.min(clusters, Math.max(1, n));
  const maxIter = options.iterations ?? 10;
  if (!Number.isSafeInteger(maxIter) || maxIter < 1) {
    // with no iteration no row would be assigned: every row would be left in cluster 0
    throw new RangeError(`sphericalKMeans: iterations must be an integer >= 1, got ${maxIter}`);
  }
  const { indptr, indices, values } = x;
  const centroids = new Float64Array(C * d);
  const assignment = new Int32Array(n);
  const rng = new Rng(options.seed ?? 0);
  // greedy k-means++ seeding on the cosine distance 1 − ⟨x, c⟩ (= ½‖x − c‖² for unit
  // vectors): each new centroid is the best of a few rows sampled ∝ distance.
  const dist = new Float64Array(n).fill(Infinity);
  const trial = new Float64Array(n);
  const trials = 2 + Math.floor(Math.log(C));
  const simToRow = (r: number, i: number): number => {
    // ⟨x_i, x_r⟩ by a merge of the two sorted index lists
    let s = 0, p = indptr[i], q = indptr[r];
    const pe = indptr[i + 1], qe = indptr[r + 1];
    while (p < pe && q < qe) {
      if (indices[p] === indices[q]) s += values[p++] * values[q++];
      else if (indices[p] < indices[q]) p++;
      else q++;
    }
    return s;
  };
  const setCentroidFromRow = (c: number, i: number) => {
    for (let e = indptr[i]; e < indptr[i + 1]; e++) centroids[c * d + indices[e]] = values[e];
  };
  if (n > 0) {
    const first = rng.nextInt(n);
    setCentroidFromRow(0, first);
    for (let i = 0; i < n; i++) dist[i] = Math.max(0, 1 - simToRow(first, i));
  }
  for (let c = 1; c < C; c++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += dist[i];
    let pick = -1, pickCost = Infinity;
    for (let t = 0; t < trials; t++) {
      let u = rng.next() * total, cand = n - 1;
      for (let i = 0; i < n; i++) {
        u -= dist[i];
        if (u <= 0 && dist[i] > 0) {
          cand = i;
          break;
        }
      }
      let cost = 0;
      for (let i = 0; i < n; i++) {
        trial[i] = Math.min(dist[i], Math.max(0, 1 - simToRow(cand, i)));
        cost += trial[i];
      }
      if (cost < pickCost) {
        pickCost = cost;
        pick = cand;
      }
    }
    setCentroidFromRow(c, pick);
    for (let i = 0; i < n; i++) dist[i] = Math.min(dist[i], Math.max(0, 1 - simToRow(pick, i)));
  }
  const size = new Int32Array(C);
  const sim = new Float64Array(n);
  let it = 0;
  for (; it < maxIter; it++) {
    let changed = 0;
    size.fill(0);
    for (let i = 0; i < n; i++) {
      const a = nearestCentroid(centroids, C, d, indices, values, indptr[i], indptr[i + 1]);
      if (a !== assignment[i] || it === 0) changed++;
      assignment[i] = a;
      size[a]++;
      let s = 0;
      for (let e = indptr[i]; e < indptr[i + 1]; e++) {
        s += values[e] * centroids[a * d + indices[e]];
      }
      sim[i] = s;
    }
    // an empty cluster takes over the row worst served by its centroid (deterministic)
    for (let c = 0; c < C; c++) {
      if (size[c] > 0 || n <= c) continue;
      let worst = -1;
      for (let i = 0; i < n; i++) {
        if (size[assignment[i]] > 1 && (worst < 0 || sim[i] < sim[worst])) worst = i;
      }
      if (worst < 0) break;
      size[assignment[worst]]--;
      assignment[worst] = c;
      size[c] = 1;
      sim[worst] = Infinity;
      changed++;
    }
    centroids.fill(0);
    for (let i = 0; i < n; i++) {
      const o = assignment[i] * d;
      for (let e = indptr[i]; e < indptr[i + 1]; e++) centroids[o + indices[e]] += values[e];
    }
    for (let c = 0; c < C; c++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += centroids[c * d + j] ** 2;
      if (s > 0) {
        const inv = 1 / Math.sqrt(s);
        for (let j = 0; j < d; j++) centroids[c * d + j] *= inv;
      }
    }
    if (changed === 0) break;
  }
  return { centroids, assignment, clusters: C, iterations: it };
}
