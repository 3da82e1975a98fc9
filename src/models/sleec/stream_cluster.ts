/**
 * One cluster of a streaming SLEEC learner: its running centroid, a bounded reservoir of rows
 * (the rows its embedding is learned on, and its kNN points), the regressor V with its Adam
 * state, and the SVP refresh.
 *
 * Between refreshes a new row costs one Adam step on V against the SLEEC objective restricted
 * to the row (its label-space neighbours in the reservoir j, with their current embeddings z_j:
 * `½ Σ_j (⟨Vᵀx, z_j⟩ − ⟨y, y_j⟩)²`) and, when reservoir sampling keeps it, a kNN point
 * `Vᵀx / ‖Vᵀx‖`. Every `reembedEvery` Adam steps all kNN points are recomputed from the moved V,
 * so that queries and points stay in the same embedding. A refresh re-runs SVP on the reservoir (warm-started from the current
 * embeddings), ADMM (warm-started from V), and re-embeds every point.
 *
 * @module
 */
import type { CsrMatrix } from "../../data/types.ts";
import type { ModelState } from "../estimator.ts";
import { checkRowEntries } from "../../data/batch_check.ts";
import {
  type ArrayClass,
  checkFinite,
  checkIndices,
  checkScalar,
  checkSums,
  requireTensor,
} from "../state_check.ts";
import { adamUpdateRows } from "../../optim/adam.ts";
import { hashUniform } from "../../random/mod.ts";
import type { SleecConfig } from "./config.ts";
import { embedRow, normalizeInto, trainCluster } from "./learner.ts";
import { BoundedHeap, nearestByLabels } from "./neighbours.ts";
import type { KnnCluster } from "./predictor.ts";

type Tensors = ModelState["tensors"];
type Scalars = ModelState["scalars"];

function grown<T extends Float32Array | Float64Array>(a: T, length: number): T {
  if (a.length >= length) return a;
  const b = new (a.constructor as { new (n: number): T })(length);
  b.set(a);
  return b;
}

/**
 * A streaming cluster. `seedKey` identifies it in the seeded hashes (reservoir sampling,
 * tie-breaking) so that clusters and learners draw independent streams.
 *
 * @example
 * ```ts
 * import { StreamCluster } from "./stream_cluster.ts";
 * import { resolveConfig } from "./config.ts";
 * const c = new StreamCluster(resolveConfig({ rank: 2, reservoirSize: 4 }), 7, 3);
 * c.add(Int32Array.of(0), Float32Array.of(1), Int32Array.of(1), 0, 2);
 * c.refresh(3, 2);
 * console.log(c.size, c.refreshed); // 1 true
 * ```
 */
export class StreamCluster {
  readonly #cfg: SleecConfig;
  readonly #seedKey: number;
  #numFeatures: number;
  /** Sum of the unit-norm rows routed here (float64, numFeatures entries). */
  #centroid: Float64Array;
  #centroidNormSq = 0;
  /** Rows routed here so far (reservoir sampling counter). */
  #seen = 0;
  #size = 0;
  #xIdx: Int32Array[] = [];
  #xVal: Float32Array[] = [];
  #labels: Int32Array[] = [];
  /** Current embedding of each kept row (SVP's, or Vᵀx for rows added since). */
  #z: Float64Array = new Float64Array(0);
  #points: Float32Array = new Float32Array(0);
  #v: Float32Array;
  #adamM: Float32Array;
  #adamV: Float32Array;
  #adamStep = 0;
  #refreshed = false;
  /** Adam steps since the kNN points were last re-embedded. */
  #sinceEmbed = 0;
  // scratch (not state)
  readonly #u: Float64Array;
  readonly #gradU: Float64Array;
  #grad = new Float64Array(0);
  #rows = new Int32Array(0);
  #heap: BoundedHeap;
  #stamp = new Int32Array(0);
  #stampId = 0;

  constructor(cfg: SleecConfig, seedKey: number, numFeatures: number) {
    this.#cfg = cfg;
    this.#seedKey = seedKey;
    this.#numFeatures = numFeatures;
    this.#centroid = new Float64Array(numFeatures);
    const r = cfg.rank;
    this.#v = new Float32Array(numFeatures * r);
    this.#adamM = new Float32Array(numFeatures * r);
    this.#adamV = new Float32Array(numFeatures * r);
    this.#u = new Float64Array(r);
    this.#gradU = new Float64Array(r);
    // a row's neighbours come from the reservoir: a heap past reservoirSize is never filled (at
    // svpNeighbours 2^20 each cluster reserved 20 MB of it)
    this.#heap = new BoundedHeap(Math.min(cfg.svpNeighbours, cfg.reservoirSize));
  }

  /** Rows in the reservoir. */
  get size(): number {
    return this.#size;
  }

  /** Rows routed to the cluster so far. */
  get seen(): number {
    return this.#seen;
  }

  /** Whether the embedding has been learned (at least one refresh). */
  get refreshed(): boolean {
    return this.#refreshed;
  }

  /** Widens the feature space (V, Adam moments and centroid get zero rows). */
  growFeatures(numFeatures: number): void {
    this.prepareGrowth(numFeatures)();
  }

  /**
   * Allocates the arrays of a feature space of `numFeatures` and returns the function that
   * puts them in place: nothing changes until it is called, so an allocation that fails
   * (an absurd size) leaves the cluster as it was.
   */
  prepareGrowth(numFeatures: number): () => void {
    if (numFeatures <= this.#numFeatures) return () => {};
    const r = this.#cfg.rank;
    const centroid = grown(this.#centroid, numFeatures);
    const v = grown(this.#v, numFeatures * r);
    const adamM = grown(this.#adamM, numFeatures * r);
    const adamV = grown(this.#adamV, numFeatures * r);
    return () => {
      this.#centroid = centroid;
      this.#v = v;
      this.#adamM = adamM;
      this.#adamV = adamV;
      this.#numFeatures = numFeatures;
    };
  }

  /** Cosine similarity of a unit-norm row to the centroid (-Infinity while empty). */
  similarity(indices: Int32Array, values: Float32Array): number {
    if (!(this.#centroidNormSq > 0)) return -Infinity;
    const cen = this.#centroid;
    let s = 0;
    for (let e = 0; e < indices.length; e++) s += values[e] * cen[indices[e]];
    return s / Math.sqrt(this.#centroidNormSq);
  }

  /**
   * Learns one unit-norm row (indices below the feature size) with sorted labels: centroid
   * update, an Adam step on V once the embedding exists, then reservoir sampling. `row` is the
   * global row number (for the seeded hashes).
   */
  add(
    indices: Int32Array,
    values: Float32Array,
    labels: Int32Array,
    row: number,
    numLabels: number,
  ): void {
    const cen = this.#centroid;
    let dot = 0, xx = 0;
    for (let e = 0; e < indices.length; e++) {
      dot += cen[indices[e]] * values[e];
      xx += values[e] * values[e];
      cen[indices[e]] += values[e];
    }
    this.#centroidNormSq += 2 * dot + xx;
    const r = this.#cfg.rank;
    const u = this.#u;
    if (this.#refreshed && this.#cfg.learningRate > 0 && labels.length > 0) {
      if (this.#adamStep1(indices, values, labels, row, numLabels)) {
        if (++this.#sinceEmbed >= this.#cfg.reembedEvery) this.#reembed();
      }
    }
    this.#seen++;
    let slot = -1;
    const cap = this.#cfg.reservoirSize;
    if (this.#size < cap) {
      slot = this.#size++;
      if (this.#z.length < this.#size * r) {
        const rows = Math.min(cap, Math.max(16, 2 * this.#size));
        this.#z = grown(this.#z, rows * r);
        this.#points = grown(this.#points, rows * r);
      }
    } else {
      const h = 0.5 * (hashUniform(this.#cfg.seed ^ 0x5ee5, this.#seedKey, this.#seen) + 1);
      const j = Math.floor(h * this.#seen);
      if (j < cap) slot = j;
    }
    if (slot < 0) return;
    this.#xIdx[slot] = indices.slice();
    this.#xVal[slot] = values.slice();
    this.#labels[slot] = labels.slice();
    // a new row has no SVP embedding yet: z = 0 (the next SVP starts its entries of M at 0, as
    // a cold start would); its kNN point is Vᵀx with the current V
    this.#z.fill(0, slot * r, (slot + 1) * r);
    if (this.#refreshed) {
      embedRow(indices, values, 0, indices.length, this.#v, r, u);
      normalizeInto(u, r, this.#points, slot * r);
    } else {
      this.#points.fill(0, slot * r, (slot + 1) * r);
    }
  }

  /** One Adam step on the rows of V of the row's features. */
  #adamStep1(
    indices: Int32Array,
    values: Float32Array,
    labels: Int32Array,
    row: number,
    numLabels: number,
  ): boolean {
    const r = this.#cfg.rank;
    const u = this.#u, gu = this.#gradU;
    embedRow(indices, values, 0, indices.length, this.#v, r, u);
    if (this.#stamp.length < numLabels) {
      const grownStamp = new Int32Array(Math.max(numLabels, 2 * this.#stamp.length));
      grownStamp.set(this.#stamp);
      this.#stamp = grownStamp;
    }
    const heap = this.#heap;
    nearestByLabels(labels, this.#labels, this.#size, heap, this.#stamp, ++this.#stampId, {
      normalize: this.#cfg.normalizeLabels,
      seed: this.#cfg.seed,
      queryId: row,
    });
    if (heap.size === 0) return false;
    gu.fill(0);
    const z = this.#z;
    for (let q = 0; q < heap.size; q++) {
      const o = heap.indices[q] * r;
      let m = 0;
      for (let a = 0; a < r; a++) m += u[a] * z[o + a];
      const d = m - heap.scores[q];
      for (let a = 0; a < r; a++) gu[a] += d * z[o + a];
    }
    const nnz = indices.length;
    if (this.#grad.length < nnz * r) this.#grad = new Float64Array(nnz * r);
    if (this.#rows.length < nnz) this.#rows = new Int32Array(nnz);
    const g = this.#grad;
    for (let e = 0; e < nnz; e++) {
      this.#rows[e] = indices[e];
      const w = values[e];
      for (let a = 0; a < r; a++) g[e * r + a] = w * gu[a];
    }
    adamUpdateRows(this.#v, this.#adamM, this.#adamV, g, this.#rows, nnz, r, ++this.#adamStep, {
      lr: this.#cfg.learningRate,
    });
    return true;
  }

  /** Recomputes every kNN point from the current V (after Adam moved it). */
  #reembed(): void {
    const r = this.#cfg.rank, u = this.#u;
    for (let s = 0; s < this.#size; s++) {
      const idx = this.#xIdx[s];
      embedRow(idx, this.#xVal[s], 0, idx.length, this.#v, r, u);
      normalizeInto(u, r, this.#points, s * r);
    }
    this.#sinceEmbed = 0;
  }

  /**
   * Re-learns the embedding on the reservoir: SVP (warm-started from the current embeddings
   * after the first refresh), ADMM (warm-started from V), new kNN points; resets Adam.
   * `numLabels` bounds the label indices, `seedOffset` varies SVP's random start.
   */
  refresh(numLabels: number, seedOffset: number): void {
    const m = this.#size;
    if (m === 0) return;
    const cfg = this.#cfg, r = cfg.rank, D = this.#numFeatures;
    const indptr = new Int32Array(m + 1);
    for (let s = 0; s < m; s++) indptr[s + 1] = indptr[s] + this.#xIdx[s].length;
    const indices = new Int32Array(indptr[m]);
    const values = new Float32Array(indptr[m]);
    for (let s = 0; s < m; s++) {
      indices.set(this.#xIdx[s], indptr[s]);
      values.set(this.#xVal[s], indptr[s]);
    }
    const x: CsrMatrix = { numRows: m, numCols: D, indptr, indices, values };
    const warm = this.#refreshed;
    const fit = trainCluster(
      x,
      this.#labels.slice(0, m),
      numLabels,
      { ...cfg, seed: cfg.seed + seedOffset },
      warm
        ? {
          z: this.#z.subarray(0, m * r).slice(),
          v: this.#v,
          svpIterations: cfg.refreshSvpIterations,
          admmIterations: cfg.refreshAdmmIterations,
        }
        : {},
    );
    this.#v = fit.v;
    this.#z.set(fit.z);
    this.#points.set(fit.points);
    this.#adamM = new Float32Array(D * r);
    this.#adamV = new Float32Array(D * r);
    this.#adamStep = 0;
    this.#sinceEmbed = 0;
    this.#refreshed = true;
  }

  /** The cluster as the predictor sees it (views, not copies: rebuild after learning). */
  view(learner: number): KnnCluster {
    const D = this.#numFeatures;
    const centroid = new Float32Array(D);
    const inv = this.#centroidNormSq > 0 ? 1 / Math.sqrt(this.#centroidNormSq) : 0;
    for (let j = 0; j < D; j++) centroid[j] = this.#centroid[j] * inv;
    return {
      learner,
      centroid,
      v: this.#v,
      numPoints: this.#size,
      points: this.#points,
      labels: this.#labels,
    };
  }

  /** Writes the cluster's state under `prefix` (copies). */
  saveState(prefix: string, scalars: Scalars, tensors: Tensors): void {
    const m = this.#size, r = this.#cfg.rank;
    scalars[`${prefix}.seen`] = this.#seen;
    scalars[`${prefix}.size`] = m;
    scalars[`${prefix}.adamStep`] = this.#adamStep;
    scalars[`${prefix}.sinceEmbed`] = this.#sinceEmbed;
    scalars[`${prefix}.refreshed`] = this.#refreshed ? 1 : 0;
    scalars[`${prefix}.centroidNormSq`] = this.#centroidNormSq;
    const xPtr = new Int32Array(m + 1), labelPtr = new Int32Array(m + 1);
    for (let s = 0; s < m; s++) {
      xPtr[s + 1] = xPtr[s] + this.#xIdx[s].length;
      labelPtr[s + 1] = labelPtr[s] + this.#labels[s].length;
    }
    const xIdx = new Int32Array(xPtr[m]), xVal = new Float32Array(xPtr[m]);
    const labels = new Int32Array(labelPtr[m]);
    for (let s = 0; s < m; s++) {
      xIdx.set(this.#xIdx[s], xPtr[s]);
      xVal.set(this.#xVal[s], xPtr[s]);
      labels.set(this.#labels[s], labelPtr[s]);
    }
    tensors[`${prefix}.centroid`] = this.#centroid.slice(0, this.#numFeatures);
    tensors[`${prefix}.V`] = this.#v.slice();
    tensors[`${prefix}.adamM`] = this.#adamM.slice();
    tensors[`${prefix}.adamV`] = this.#adamV.slice();
    tensors[`${prefix}.xPtr`] = xPtr;
    tensors[`${prefix}.xIdx`] = xIdx;
    tensors[`${prefix}.xVal`] = xVal;
    tensors[`${prefix}.labelPtr`] = labelPtr;
    tensors[`${prefix}.labels`] = labels;
    tensors[`${prefix}.z`] = this.#z.slice(0, m * r);
    tensors[`${prefix}.points`] = this.#points.slice(0, m * r);
  }

  /**
   * Rebuilds a cluster from {@linkcode StreamCluster.saveState}, in a model of `numFeatures`
   * features and `numLabels` labels. Every value is checked before the cluster takes it: the
   * counters (`size` at most `reservoirSize`, `seen` at least `size`, `adamStep`, `sinceEmbed`:
   * non-negative integers), finite centroid, V, Adam's first moments, embeddings and points,
   * second moments >= 0, and the kept rows as `learnMany` checked them
   * (row pointers that fit, features sorted and within `numFeatures`, finite values, labels
   * within `numLabels`).
   *
   * @throws {TypeError | RangeError} when an entry is missing, mis-sized or out of range
   * (naming it).
   */
  static fromState(
    cfg: SleecConfig,
    seedKey: number,
    numFeatures: number,
    prefix: string,
    state: ModelState,
    numLabels: number = Infinity,
  ): StreamCluster {
    const c = new StreamCluster(cfg, seedKey, numFeatures);
    const r = cfg.rank;
    const where = "sleec.restore", sc = state.scalars;
    // a finite number (missing or not a number: a TypeError, as checkScalar's)
    const scalar = (name: string): number => {
      const v = sc[`${prefix}.${name}`];
      if (typeof v !== "number") {
        throw new TypeError(`${where}: scalar ${prefix}.${name} must be a number, got ${typeof v}`);
      }
      if (!Number.isFinite(v)) {
        throw new RangeError(`${where}: scalar ${prefix}.${name} must be finite, got ${v}`);
      }
      return v;
    };
    // a copy of the tensor (the shared words: ../state_check.ts)
    const tensor = <T extends Float32Array | Float64Array | Int32Array>(
      name: string,
      type: ArrayClass<T>,
      length?: number,
    ): T => requireTensor(state.tensors, `${prefix}.${name}`, type, where, length).slice() as T;
    const count = (name: string, min = 0, max = Infinity) =>
      checkScalar(sc, `${prefix}.${name}`, where, min, max);
    const m = count("size", 0, cfg.reservoirSize);
    const seen = count("seen", m);
    const adamStep = count("adamStep"), sinceEmbed = count("sinceEmbed");
    const normSq = scalar("centroidNormSq"); // finite (rounding may leave it just below 0)
    const name = (n: string) => `${prefix}.${n}`;
    const centroid = tensor("centroid", Float64Array, numFeatures);
    const v = tensor("V", Float32Array, numFeatures * r);
    const adamM = tensor("adamM", Float32Array, numFeatures * r);
    const adamV = tensor("adamV", Float32Array, numFeatures * r);
    checkFinite(centroid, name("centroid"), where);
    checkFinite(v, name("V"), where);
    checkFinite(adamM, name("adamM"), where);
    checkSums(adamV, name("adamV"), where);
    const xPtr = tensor("xPtr", Int32Array, m + 1);
    const labelPtr = tensor("labelPtr", Int32Array, m + 1);
    for (const [ptr, field] of [[xPtr, "xPtr"], [labelPtr, "labelPtr"]] as const) {
      for (let s = 0; s < m; s++) {
        if (!(ptr[s + 1] >= ptr[s]) || ptr[0] !== 0) {
          throw new RangeError(`${where}: tensor ${name(field)} is not a row pointer (at ${s})`);
        }
      }
    }
    const xIdx = tensor("xIdx", Int32Array, xPtr[m]);
    const xVal = tensor("xVal", Float32Array, xPtr[m]);
    const labels = tensor("labels", Int32Array, labelPtr[m]);
    for (let s = 0; s < m; s++) {
      const at = () => `${where}: ${name("xIdx")} row ${s}`; // built only for an error
      const last = checkRowEntries(xIdx, xVal, xPtr[s], xPtr[s + 1], at, "feature");
      if (last >= numFeatures) {
        throw new RangeError(`${at()}: feature index ${last} is out of range [0, ${numFeatures})`);
      }
    }
    checkIndices(labels, name("labels"), numLabels, where);
    const z = tensor("z", Float64Array, m * r), points = tensor("points", Float32Array, m * r);
    checkFinite(z, name("z"), where);
    checkFinite(points, name("points"), where);
    c.#seen = seen;
    c.#size = m;
    c.#adamStep = adamStep;
    c.#sinceEmbed = sinceEmbed;
    c.#refreshed = scalar("refreshed") === 1;
    c.#centroidNormSq = normSq;
    c.#centroid = centroid;
    c.#v = v;
    c.#adamM = adamM;
    c.#adamV = adamV;
    for (let s = 0; s < m; s++) {
      c.#xIdx.push(xIdx.slice(xPtr[s], xPtr[s + 1]));
      c.#xVal.push(xVal.slice(xPtr[s], xPtr[s + 1]));
      c.#labels.push(labels.slice(labelPtr[s], labelPtr[s + 1]));
    }
    c.#z = z;
    c.#points = points;
    return c;
  }
}
