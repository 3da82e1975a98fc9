/**
 * The members of `repro sleec-pool`: neighbour finders an ensemble of the `knn-embedding` kind can
 * hold (routing centroids over the features, a linear map V per cluster, unit-norm points), built
 * from a spec string, and their k nearest fit rows for each validation row.
 *
 * - `sleec:C:SEED` — a SLEEC learner as `trainSleec` builds learner 0 with `{seed: SEED,
 *   numClusters: C}` (spherical k-means on the unit rows, SVP + ADMM per cluster).
 * - `sleec:C:SEED:BETA` — the same, clustered on the unit rows with their label vectors appended
 *   (weight BETA); the query is routed by the clusters' feature part.
 * - `pca:W` — one cluster, V = the top `rank` eigenvectors of X̂ᵀX̂ scaled by eigenvalue^−W (W = 0:
 *   cosine in the leading principal subspace; W > 0 whitens it partly).
 * - `leml:LAMBDA` — one cluster, V = W·U·Λ^½ from a rank-`rank` squared-loss LEML fit (X̂WHᵀ ≈ Y,
 *   HᵀH = UΛUᵀ): the cosine of two rows' predicted label scores.
 * - `raw` — one cluster, V = identity (rank D): the cosine of the unit rows themselves. Not
 *   servable at the ensemble's rank; measured for reference.
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../../src/data/types.ts";
import { sphericalKMeans } from "../../src/linalg/kmeans.ts";
import { gram, matMul, symmetricEigen } from "../../src/linalg/dense.ts";
import { preprocessRows } from "../../src/data/preprocess.ts";
import { trainLemlBatch } from "../../src/models/leml/batch.ts";
import { resolveConfig, type SleecConfig } from "../../src/models/sleec/config.ts";
import { embedPoints } from "../../src/models/sleec/learner.ts";
import { fitClusters } from "../../src/models/sleec/batch.ts";
import { type KnnCluster, KnnPredictor } from "../../src/models/sleec/predictor.ts";

/**
 * One cluster of a member: its routing centroid (unit norm over the features), its map V
 * (numFeatures × rank, row-major), its unit-norm points and the fit rows they stand for.
 *
 * @example
 * ```ts
 * import type { PoolCluster } from "./sleec_pool_members.ts";
 * const c: PoolCluster = { centroid: Float32Array.of(1), v: Float32Array.of(1), rank: 1, points: Float32Array.of(1), rows: Int32Array.of(0) };
 * console.log(c.rows.length); // 1
 * ```
 */
export interface PoolCluster {
  centroid: Float32Array;
  v: Float32Array;
  rank: number;
  points: Float32Array;
  rows: Int32Array;
}

/**
 * Each query row's `K` nearest fit rows by one member (row-major numQueries × K, best first; −1
 * past the end of a cluster smaller than K) and their cosine similarities.
 *
 * @example
 * ```ts
 * import type { Neighbours } from "./sleec_pool_members.ts";
 * const n: Neighbours = { K: 1, rows: Int32Array.of(3), sims: Float32Array.of(0.5) };
 * console.log(n.rows[0]); // 3
 * ```
 */
export interface Neighbours {
  K: number;
  rows: Int32Array;
  sims: Float32Array;
}

/**
 * The most features a `pca` or `raw` member takes (both hold a dense D × D matrix).
 *
 * @example
 * ```ts
 * import { MAX_DENSE_FEATURES } from "./sleec_pool_members.ts";
 * console.log(MAX_DENSE_FEATURES); // 4096
 * ```
 */
export const MAX_DENSE_FEATURES = 4096;

/**
 * Builds the member `spec` on the unit-normalised fit rows `xn` with labels `labels` (`y` for LEML).
 *
 * @throws {TypeError} naming the spec when it is not one of the forms above; {RangeError} for
 *   `pca` or `raw` on more than {@linkcode MAX_DENSE_FEATURES} features.
 *
 * @example
 * ```ts
 * import { buildMember } from "./sleec_pool_members.ts";
 * const xn = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const y = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) };
 * console.log(buildMember("raw", xn, y, [Int32Array.of(0), Int32Array.of(1)], {})[0].rank); // 2
 * ```
 */
export function buildMember(
  spec: string,
  xn: CsrMatrix,
  y: BinaryCsr,
  labels: readonly Int32Array[],
  config: Partial<SleecConfig>,
): PoolCluster[] {
  const member = parseMember(spec);
  const cfg = resolveConfig(config as Record<string, unknown>);
  const D = xn.numCols, all = Int32Array.from({ length: xn.numRows }, (_, i) => i);
  const single = (v: Float32Array, rank: number): PoolCluster[] => [{
    centroid: new Float32Array(D).fill(1 / Math.sqrt(D)),
    v,
    rank,
    points: embedPoints(xn, v, rank),
    rows: all,
  }];
  checkDense(spec, member.kind, D, "sleec-pool");
  switch (member.kind) {
    case "sleec": {
      const [clusters, seed, beta] = member.args;
      return sleecMember(xn, labels, y.numCols, Math.max(1, clusters), seed, beta, cfg);
    }
    case "pca":
      return single(principalMap(xn, Math.min(cfg.rank, D), member.args[0]), Math.min(cfg.rank, D));
    case "leml":
      return single(lemlMap(xn, y, cfg.rank, member.args[0]), cfg.rank);
    case "raw":
      return single(identity(D), D);
  }
}

/** Refuses a `pca` or `raw` member on more than {@linkcode MAX_DENSE_FEATURES} features. */
function checkDense(spec: string, kind: string, D: number, where: string): void {
  if ((kind === "pca" || kind === "raw") && D > MAX_DENSE_FEATURES) {
    throw new RangeError(
      `${where}: member '${spec}' needs a dense ${D} × ${D} matrix; at most ${MAX_DENSE_FEATURES} features`,
    );
  }
}

/**
 * Checks member specs before any member is fitted: every spec parses ({@linkcode parseMember}),
 * and, given `numFeatures`, a `pca` or `raw` member has at most {@linkcode MAX_DENSE_FEATURES}
 * features. {@linkcode buildMember} would refuse either only when it reaches that member, after
 * fitting the ones before it. Errors start with `where`.
 *
 * @throws {TypeError} naming a spec that is not one of the forms of the module doc
 * @throws {RangeError} naming a `pca` or `raw` spec on more than MAX_DENSE_FEATURES features
 *
 * @example
 * ```ts
 * import { checkMembers } from "./sleec_pool_members.ts";
 * checkMembers(["sleec:1:0", "raw"], "split-check", 500); // fine
 * try { checkMembers(["sleec:1:0", "pca"], "split-check"); } catch (e) { console.log((e as Error).message); }
 * // split-check: unknown member 'pca' (sleec:C:SEED[:BETA], pca:W, leml:LAMBDA or raw)
 * try { checkMembers(["raw"], "split-check", 5000); } catch (e) { console.log((e as Error).message); }
 * // split-check: member 'raw' needs a dense 5000 × 5000 matrix; at most 4096 features
 * ```
 */
export function checkMembers(
  specs: readonly string[],
  where: string,
  numFeatures?: number,
): void {
  for (const spec of specs) {
    const { kind } = parseMember(spec, where);
    if (numFeatures !== undefined) checkDense(spec, kind, numFeatures, where);
  }
}

/**
 * A member spec parsed: its kind and its numbers (`sleec`: clusters, seed and β, 0 when not
 * given; `pca`: W; `leml`: λ; `raw`: none). What {@linkcode buildMember} builds from, and what a
 * caller can check before any work; errors start with `where`.
 *
 * @throws {TypeError} naming the spec when it is not one of the forms of the module doc
 * @throws {RangeError} for `sleec:0:SEED` (C, the clusters, is at least 1)
 *
 * @example
 * ```ts
 * import { parseMember } from "./sleec_pool_members.ts";
 * console.log(parseMember("sleec:6:2")); // { kind: "sleec", args: [ 6, 2, 0 ] }
 * try { parseMember("pca"); } catch (e) { console.log((e as Error).message); }
 * // sleec-pool: unknown member 'pca' (sleec:C:SEED[:BETA], pca:W, leml:LAMBDA or raw)
 * ```
 */
export function parseMember(
  spec: string,
  where = "sleec-pool",
): { kind: "sleec" | "pca" | "leml" | "raw"; args: number[] } {
  const parts = spec.split(":");
  const num = (i: number, integer = false) => {
    const v = Number(parts[i]);
    if (parts[i] === "" || !Number.isFinite(v) || v < 0 || (integer && !Number.isInteger(v))) {
      throw new TypeError(
        `${where}: member '${spec}': part ${i + 1} must be ${
          integer ? "an integer" : "a number"
        } >= 0`,
      );
    }
    return v;
  };
  switch (parts[0]) {
    case "sleec": {
      if (parts.length < 3 || parts.length > 4) break;
      const clusters = num(1, true);
      if (clusters < 1) {
        // 0 was fitted as one cluster, under the name of the spec
        throw new RangeError(`${where}: member '${spec}': C, the clusters, must be at least 1`);
      }
      return { kind: "sleec", args: [clusters, num(2, true), parts.length > 3 ? num(3) : 0] };
    }
    case "pca":
    case "leml":
      if (parts.length !== 2) break;
      return { kind: parts[0], args: [num(1)] };
    case "raw":
      if (parts.length !== 1) break;
      return { kind: "raw", args: [] };
  }
  throw new TypeError(
    `${where}: unknown member '${spec}' (sleec:C:SEED[:BETA], pca:W, leml:LAMBDA or raw)`,
  );
}

function sleecMember(
  xn: CsrMatrix,
  labels: readonly Int32Array[],
  L: number,
  numClusters: number,
  seed: number,
  beta: number,
  cfg: SleecConfig,
): PoolCluster[] {
  const D = xn.numCols;
  const xc = beta > 0 ? withLabels(xn, labels, L, beta) : xn, Dc = xc.numCols;
  const km = sphericalKMeans(xc, numClusters, {
    seed,
    iterations: cfg.kmeansIterations,
  });
  const out: PoolCluster[] = [];
  // the seeds trainSleec gives learner 0 of `{seed}`: cluster c trains with seed + c
  fitClusters(xn, labels, L, km.assignment, km.clusters, cfg, seed, (c, rows, fit) => {
    const centroid = new Float32Array(D);
    let s = 0;
    for (let j = 0; j < D; j++) s += (centroid[j] = km.centroids[c * Dc + j]) ** 2;
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let j = 0; j < D; j++) centroid[j] *= inv;
    out.push({ centroid, v: fit.v, rank: cfg.rank, points: fit.points, rows });
  });
  return out;
}

/** The unit rows with their label vectors appended (weight beta / √|y_i| each), unit again. */
function withLabels(
  xn: CsrMatrix,
  labels: readonly Int32Array[],
  L: number,
  beta: number,
): CsrMatrix {
  const D = xn.numCols, indptr = new Int32Array(xn.numRows + 1);
  const nnz = xn.indices.length + labels.reduce((s, ls) => s + ls.length, 0);
  const indices = new Int32Array(nnz), values = new Float32Array(nnz);
  let p = 0;
  for (let i = 0; i < xn.numRows; i++) {
    for (let e = xn.indptr[i]; e < xn.indptr[i + 1]; e++) {
      indices[p] = xn.indices[e];
      values[p++] = xn.values[e];
    }
    for (const l of labels[i]) {
      indices[p] = D + l;
      values[p++] = beta / Math.sqrt(labels[i].length);
    }
    indptr[i + 1] = p;
  }
  return preprocessRows({ numRows: xn.numRows, numCols: D + L, indptr, indices, values }, {
    l2Normalize: true,
  });
}

/** The top `rank` eigenvectors of X̂ᵀX̂ (as columns of a D × rank map), scaled by λ^−w. */
function principalMap(xn: CsrMatrix, rank: number, w: number): Float32Array {
  const D = xn.numCols, G = new Float64Array(D * D);
  for (let i = 0; i < xn.numRows; i++) {
    for (let e = xn.indptr[i]; e < xn.indptr[i + 1]; e++) {
      const o = xn.indices[e] * D, a = xn.values[e];
      for (let f = xn.indptr[i]; f < xn.indptr[i + 1]; f++) {
        G[o + xn.indices[f]] += a * xn.values[f];
      }
    }
  }
  const { values, vectors } = symmetricEigen(G, D);
  const order = Array.from({ length: D }, (_, i) => i)
    .sort((a, b) => values[b] - values[a] || a - b).slice(0, rank);
  const v = new Float32Array(D * rank);
  for (let j = 0; j < D; j++) {
    for (let b = 0; b < rank; b++) {
      v[j * rank + b] = vectors[j * D + order[b]] * Math.max(values[order[b]], 1e-9) ** -w;
    }
  }
  return v;
}

/** V = W·U·Λ^½ of a squared-loss LEML fit (HᵀH = UΛUᵀ). */
function lemlMap(xn: CsrMatrix, y: BinaryCsr, rank: number, lambda: number): Float32Array {
  const f = trainLemlBatch(xn, y, { rank, lambda, iterations: 10, seed: 1 });
  const k = f.rank, D = xn.numCols;
  const { values, vectors } = symmetricEigen(gram(f.H, y.numCols, k), k);
  // W·U, then column b times √λ_b
  const wu = matMul(f.W, vectors, D, k, k);
  return Float32Array.from(wu, (s, i) => s * Math.sqrt(Math.max(0, values[i % k])));
}

function identity(D: number): Float32Array {
  const v = new Float32Array(D * D);
  for (let j = 0; j < D; j++) v[j * D + j] = 1;
  return v;
}

/**
 * Each unit-normalised query row's `K` nearest points of its member's cluster, as the
 * `knn-embedding` scoring rule finds them (`KnnPredictor.nearest`: the cluster whose centroid
 * has the largest inner product with the row, then cosine similarity to its points, ties to the
 * smaller fit row).
 *
 * @example
 * ```ts
 * import { buildMember, nearestRows } from "./sleec_pool_members.ts";
 * const xn = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const y = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) };
 * const m = buildMember("raw", xn, y, [Int32Array.of(0), Int32Array.of(1)], {});
 * console.log(nearestRows(m, xn, 1).rows); // Int32Array(2) [ 0, 1 ]
 * ```
 */
export function nearestRows(clusters: PoolCluster[], qn: CsrMatrix, K: number): Neighbours {
  const n = qn.numRows, rows = new Int32Array(n * K).fill(-1), sims = new Float32Array(n * K);
  // the member as one learner of a model (the search reads no labels)
  const predictor = new KnnPredictor({
    numFeatures: qn.numCols,
    numLabels: 0,
    rank: clusters[0]?.rank ?? 1,
    numLearners: 1,
    k: K,
    weighted: true,
    clusters: clusters.map((c) => ({ ...c, learner: 0, numPoints: c.rows.length, labels: [] })),
  });
  for (let i = 0; i < n; i++) {
    const a = qn.indptr[i], b = qn.indptr[i + 1];
    const near = predictor.nearest(qn.indices.subarray(a, b), qn.values.subarray(a, b), 0);
    for (let q = 0; q < near.points.length; q++) {
      rows[i * K + q] = clusters[near.cluster].rows[near.points[q]];
      sims[i * K + q] = near.sims[q];
    }
  }
  return { K, rows, sims };
}

/**
 * The member `spec` as clusters of learner `learner` of a `knn-embedding` model: each point
 * carries its fit row's labels. The model must score raw rows as `xn` was made (unit rows, no
 * TF-IDF).
 *
 * @example
 * ```ts
 * import { memberClusters } from "./sleec_pool_members.ts";
 * const xn = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
 * const y = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(1, 0) };
 * const [c] = memberClusters("raw", 3, xn, y, [Int32Array.of(1), Int32Array.of(0)], {});
 * console.log(c.learner, c.numPoints, [...c.labels[1]]); // 3 2 [ 0 ]
 * ```
 */
export function memberClusters(
  spec: string,
  learner: number,
  xn: CsrMatrix,
  y: BinaryCsr,
  labels: readonly Int32Array[],
  config: Partial<SleecConfig>,
): KnnCluster[] {
  return buildMember(spec, xn, y, labels, config).map((c) => ({
    learner,
    centroid: c.centroid,
    v: c.v,
    numPoints: c.rows.length,
    points: c.points,
    labels: Array.from(c.rows, (i) => labels[i]),
  }));
}
