/**
 * The LEML scorer shared by the streaming and batch estimators: Z = W·Hᵀ plus a per-label bias,
 * scores shifted by a decision threshold, optional unit-L2 input rows, growable factor storage,
 * top-k prediction in O(nnz(x)·k + L·k) with preallocated scratch, an optional label index (the
 * model file's, issue 15: {@linkcode LowRankScorer.indexLabels}) that answers top-k without
 * scoring every label, and export as a `linear-lowrank` model file.
 *
 * @module
 */
import { checkK, checkProbes, checkRow, scoresOut } from "../query_check.ts";
import type { SparseVector } from "../../data/types.ts";
import type { ModelFileOptions, TopK } from "../estimator.ts";
import type { ModelFileContent, Tensor } from "../../format/types.ts";
import { encodeModelFile } from "../../format/model_file.ts";
import { topKDense } from "../../../sdk/internal.ts";
import { applyModelFileOptions, checkModelFileOptions } from "../file_options.ts";
import { LABEL_INDEX_MIN_LABELS, withLabelIndex } from "../../linalg/mips_index.ts";
import {
  LabelIndex,
  type LabelIndexBuildOptions,
  type LabelIndexInput,
  type TopKQueryOptions,
} from "../label_index.ts";

/**
 * A row-major matrix of float32 rows with amortised O(1) row growth.
 *
 * @example
 * ```ts
 * import { GrowableRows } from "./lowrank.ts";
 * const m = new GrowableRows(2, 1);
 * m.resize(3);
 * console.log(m.rows, m.data.length >= 6); // 3 true
 * ```
 */
export class GrowableRows {
  /** Backing storage (capacity × width, zero beyond `rows`). */
  data: Float32Array;
  /** Number of live rows. */
  rows: number;
  /** Row width. */
  readonly width: number;
  /** @param width row width; @param rows initial number of rows. */
  constructor(width: number, rows: number) {
    this.width = width;
    this.rows = rows;
    this.data = new Float32Array(Math.max(1, rows) * width);
  }
  /**
   * Grows to `rows` rows (new rows are zero); never shrinks.
   *
   * @example
   * ```ts
   * import { GrowableRows } from "./lowrank.ts";
   * const m = new GrowableRows(1, 1);
   * m.resize(10);
   * console.log(m.rows); // 10
   * ```
   */
  resize(rows: number): void {
    if (rows <= this.rows) return;
    const need = rows * this.width;
    if (need > this.data.length) {
      const next = new Float32Array(Math.max(need, this.data.length * 2));
      next.set(this.data.subarray(0, this.rows * this.width));
      this.data = next;
    }
    this.rows = rows;
  }
  /**
   * A copy of the live rows.
   *
   * @example
   * ```ts
   * import { GrowableRows } from "./lowrank.ts";
   * console.log(new GrowableRows(2, 3).snapshot().length); // 6
   * ```
   */
  snapshot(): Float32Array {
    return this.data.slice(0, this.rows * this.width);
  }
  /**
   * Takes `values` (rows·width numbers) as the backing storage, without a copy: the caller
   * gives the array up.
   *
   * @example
   * ```ts
   * import { GrowableRows } from "./lowrank.ts";
   * const m = new GrowableRows(2, 0);
   * const v = Float32Array.of(1, 2, 3, 4);
   * m.adopt(v);
   * console.log(m.rows, m.data === v); // 2 true
   * ```
   */
  adopt(values: Float32Array): void {
    if (values.length % this.width !== 0) {
      throw new RangeError(
        `GrowableRows.adopt: ${values.length} values is not a multiple of ${this.width}`,
      );
    }
    this.rows = values.length / this.width;
    this.data = values.length > 0 ? values : new Float32Array(this.width);
  }
  /**
   * Replaces the content with `values` (rows·width numbers).
   *
   * @example
   * ```ts
   * import { GrowableRows } from "./lowrank.ts";
   * const m = new GrowableRows(2, 0);
   * m.load(Float32Array.of(1, 2, 3, 4));
   * console.log(m.rows); // 2
   * ```
   */
  load(values: ArrayLike<number>): void {
    if (values.length % this.width !== 0) {
      throw new RangeError(
        `GrowableRows.load: ${values.length} values is not a multiple of ${this.width}`,
      );
    }
    this.rows = values.length / this.width;
    this.data = new Float32Array(Math.max(1, this.rows) * this.width);
    this.data.set(values);
  }
}

/**
 * The inference side of LEML: factors W (features × rank), H (labels × rank), bias (labels) and
 * the decision threshold subtracted from every score. Subclasses add learning.
 *
 * @example
 * ```ts
 * import { LowRankScorer } from "./lowrank.ts";
 * const s = new LowRankScorer(1, 2, 2, 0);
 * s.w.data.set([1, 0]); // feature 0 → [1], feature 1 → [0]
 * s.h.data.set([2, -1]); // label 0 → [2], label 1 → [-1]
 * const top = s.predictTopK({ indices: Int32Array.of(0), values: Float32Array.of(1) }, 1);
 * console.log(top.labels[0], top.scores[0]); // 0 2
 * ```
 */
export class LowRankScorer {
  /** Model family. */
  readonly kind: string = "leml";
  /** Rank of the factorisation. */
  readonly rank: number;
  /** Feature factors, one row per feature. */
  w: GrowableRows;
  /** Label factors, one row per label. */
  h: GrowableRows;
  /** Per-label bias (width-1 rows). */
  bias: GrowableRows;
  /** Decision threshold subtracted from every raw score (0.5 for the squared loss on 0/1). */
  threshold: number;
  /** Rows are scaled to unit L2 norm before scoring (and before learning). */
  readonly l2Normalize: boolean;
  /**
   * Query rows the label index calibrates its probe counts on ({@linkcode LowRankScorer.queryRows}
   * of sample rows, `queries` of `LabelIndexOptions`), at {@linkcode LowRankScorer.indexLabels}
   * and at export alike; undefined: synthetic queries. Set it from rows like the ones the model
   * will be asked about (training rows), never from test rows.
   */
  calibration: Float32Array | undefined;
  #u: Float64Array;
  #scores: Float32Array;
  /** Learning steps so far (see {@linkcode LowRankScorer.markLearned}). */
  #learnCount = 0;
  /** The label index and what it was built on (the learn count, H, bias, threshold). */
  #index: LabelIndex | undefined;
  #indexAt: { count: number; h: Float32Array; bias: Float32Array; threshold: number } = {
    count: -1,
    h: new Float32Array(0),
    bias: new Float32Array(0),
    threshold: 0,
  };

  /**
   * @param rank rank r; @param numFeatures D; @param numLabels L; @param threshold see above;
   * @param l2Normalize scale rows to unit L2 norm (default false).
   */
  constructor(
    rank: number,
    numFeatures: number,
    numLabels: number,
    threshold: number,
    l2Normalize = false,
  ) {
    if (!Number.isInteger(rank) || rank < 1) {
      throw new RangeError(`leml: rank must be a positive integer, got ${rank}`);
    }
    this.rank = rank;
    this.w = new GrowableRows(rank, numFeatures);
    this.h = new GrowableRows(rank, numLabels);
    this.bias = new GrowableRows(1, numLabels);
    this.threshold = threshold;
    this.l2Normalize = l2Normalize;
    this.calibration = undefined;
    this.#u = new Float64Array(rank);
    this.#scores = new Float32Array(numLabels);
  }

  /** Current feature-space size. */
  get numFeatures(): number {
    return this.w.rows;
  }
  /** Current label-space size. */
  get numLabels(): number {
    return this.h.rows;
  }

  /**
   * Scores of every label for `x` (features beyond the model are ignored), raw score minus the
   * threshold, written into `out` when given.
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * const s = new LowRankScorer(1, 1, 2, 0.5);
   * s.w.data[0] = 1;
   * s.h.data.set([1, 0]);
   * const x = { indices: Int32Array.of(0), values: Float32Array.of(2) };
   * console.log(Array.from(s.predictScores(x)).join()); // "1.5,-0.5"
   * ```
   */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "leml.predictScores");
    const L = this.numLabels;
    // the first L entries of a longer out (the rest were returned as label scores)
    const res = scoresOut(out, L, "leml.predictScores");
    this.#scoreInto(x, res);
    return res;
  }

  /**
   * The k best labels for `x` in O(nnz(x)·k + L·k): the scores go to a preallocated scratch
   * vector (reallocated only when the label space grows), so a query allocates only its answer.
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * const s = new LowRankScorer(1, 1, 3, 0);
   * s.w.data[0] = 1;
   * s.h.data.set([1, 3, 2]);
   * const t = s.predictTopK({ indices: Int32Array.of(0), values: Float32Array.of(1) }, 2);
   * console.log(Array.from(t.labels).join()); // "1,2"
   * ```
   */
  predictTopK(x: SparseVector, k: number, options: TopKQueryOptions = {}): TopK {
    checkRow(x, "leml.predictTopK");
    checkK(k, "leml.predictTopK");
    checkProbes(options.probes, "leml.predictTopK");
    const L = this.numLabels, index = options.exact ? undefined : this.labelIndex;
    if (index !== undefined) {
      const top = index.search(this.#latent(x), k, options.probes);
      if (top !== undefined) return this.#rescore(top);
    }
    if (this.#scores.length !== L) this.#scores = new Float32Array(L);
    this.#scoreInto(x, this.#scores);
    return topKDense(this.#scores, k);
  }

  /**
   * Builds the label index of the current model (issue 15): the index the model file gets at
   * export (`withLabelIndex` over H and bias − threshold, the same defaults: none below
   * `options.minLabels`, 4096 unless given; returns undefined then; `options.reuse` keeps an
   * earlier index's partition and recomputes only its means, O(L·r)), searched as the SDK
   * searches it. From then on {@linkcode LowRankScorer.predictTopK} answers from it (unless asked
   * `exact`) until the model learns: every learning entry point (`learnMany`, `learnOne`,
   * `scoreThenLearn`, `refresh`, growing, a refit) calls {@linkcode LowRankScorer.markLearned},
   * which drops it, and so does a change of H's or the bias's storage or of the threshold.
   *
   * The answer from the index: the labels the SDK's search returns from the exported file's
   * index for this model (the same probed leaves, the same top k among them), each with the
   * model's own score ({@linkcode LowRankScorer.predictScores}' arithmetic), sorted by that
   * score, ties by the smaller label. The SDK ranks the probed labels by scores summed serially
   * from the bias, this model by four partial sums: the two differ by float32 rounding only, so
   * the labels differ only between near-ties (equal within an ulp) at the k-th place; the
   * query row is this model's u = xᵀW (with `l2Normalize`, scaled after the product, where the
   * SDK scales the row first: again rounding only).
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * const L = 600, s = new LowRankScorer(2, 1, L, 0);
   * s.w.data.set([1, 0.5]);
   * for (let i = 0; i < L * 2; i++) s.h.data[i] = Math.sin(i * 1.7);
   * console.log(s.indexLabels()); // undefined (below 4096 labels)
   * const idx = s.indexLabels({ minLabels: 0 })!;
   * const x = { indices: Int32Array.of(0), values: Float32Array.of(1) };
   * const all = s.predictTopK(x, 5, { probes: idx.leaves }), exact = s.predictTopK(x, 5, { exact: true });
   * console.log(all.labels.join() === exact.labels.join(), s.labelIndex === idx); // true true
   * ```
   */
  indexLabels(options: LabelIndexBuildOptions = {}): LabelIndex | undefined {
    const i = this.labelIndexInput(), b = this.bias.data, t = this.threshold;
    this.#index = LabelIndex.build(i, options);
    this.#indexAt = { count: this.#learnCount, h: this.h.data, bias: b, threshold: t };
    return this.#index;
  }

  /**
   * The query rows the label index calibrates its probes on, at
   * {@linkcode LowRankScorer.indexLabels} and at export alike: {@linkcode
   * LowRankScorer.calibration} (a subclass may derive them from rows it holds); undefined:
   * synthetic queries.
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * const s = new LowRankScorer(1, 1, 2, 0);
   * s.calibration = Float32Array.of(1, 2);
   * console.log(s.calibrationQueries()); // Float32Array(2) [ 1, 2 ]
   * ```
   */
  calibrationQueries(): Float32Array | undefined {
    return this.calibration;
  }

  /**
   * The query rows u = xᵀW (scaled when rows are unit-L2) of `rows`, [n, r] row-major: what the
   * label index scores labels with, and calibrates its probe counts on
   * ({@linkcode LowRankScorer.calibration}).
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * const s = new LowRankScorer(2, 2, 3, 0);
   * s.w.data.set([1, 2, 3, 4]);
   * const x = { indices: Int32Array.of(1), values: Float32Array.of(2) };
   * console.log(Array.from(s.queryRows([x]))); // [ 6, 8 ]
   * ```
   */
  queryRows(rows: readonly SparseVector[]): Float32Array {
    const r = this.rank, out = new Float32Array(rows.length * r);
    for (let i = 0; i < rows.length; i++) out.set(this.#latent(rows[i]), i * r);
    return out;
  }

  /**
   * What {@linkcode LowRankScorer.indexLabels} builds from: H (a view, not copied) and the
   * biases less the threshold (a fresh array), as the `linear-lowrank` file's index uses them,
   * and the {@linkcode LowRankScorer.calibration} queries when set.
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * const i = new LowRankScorer(1, 1, 3, 0).labelIndexInput();
   * console.log(i.kind, i.rowsName, i.numLabels, i.rank); // linear-lowrank H 3 1
   * ```
   */
  labelIndexInput(): LabelIndexInput {
    const L = this.numLabels, b = this.bias.data, t = this.threshold;
    const queries = this.calibrationQueries();
    const bias = new Float32Array(L);
    for (let l = 0; l < L; l++) bias[l] = b[l] - t;
    return {
      kind: "linear-lowrank",
      rowsName: "H",
      rows: this.h.data,
      bias,
      numLabels: L,
      rank: this.rank,
      ...(queries !== undefined ? { queries } : {}),
    };
  }

  /**
   * The label index built by {@linkcode LowRankScorer.indexLabels}, while it still describes the
   * model (no learning since); undefined otherwise.
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * console.log(new LowRankScorer(1, 1, 2, 0).labelIndex); // undefined
   * ```
   */
  get labelIndex(): LabelIndex | undefined {
    const at = this.#indexAt, idx = this.#index;
    if (idx === undefined) return undefined;
    const fresh = at.count === this.#learnCount && at.h === this.h.data &&
      at.bias === this.bias.data && at.threshold === this.threshold &&
      idx.numLabels === this.numLabels;
    if (!fresh) this.#index = undefined;
    return fresh ? idx : undefined;
  }

  /**
   * Counts a change of the model (W, H, bias, the label space) and drops the label index: the
   * learning entry points call it, and so must any code that writes the factors directly while
   * an index may be held.
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * const s = new LowRankScorer(1, 1, 100, 0);
   * s.indexLabels({ minLabels: 0 });
   * s.markLearned();
   * console.log(s.labelIndex); // undefined
   * ```
   */
  markLearned(): void {
    this.#learnCount++;
    this.#index = undefined;
  }

  /** The index's labels with this model's own scores, by decreasing score (ties: label). */
  #rescore(top: TopK): TopK {
    const n = top.labels.length, u = this.#u, order = new Array<number>(n);
    const scores = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      scores[i] = this.#scoreLabel(u, top.labels[i]);
      order[i] = i;
    }
    order.sort((a, b) => scores[b] - scores[a] || top.labels[a] - top.labels[b]);
    return {
      labels: Int32Array.from(order, (i) => top.labels[i]),
      scores: Float32Array.from(order, (i) => scores[i]),
    };
  }

  /** The score of label `l` for the latent row `u`: {@linkcode scoreLatent}'s arithmetic. */
  #scoreLabel(u: Float64Array, l: number): number {
    const r = this.rank, H = this.h.data, q0 = l * r, r4 = r - (r % 4);
    let a0 = 0, a1 = 0, a2 = 0, a3 = 0, c = 0;
    for (; c < r4; c += 4) {
      a0 += u[c] * H[q0 + c];
      a1 += u[c + 1] * H[q0 + c + 1];
      a2 += u[c + 2] * H[q0 + c + 2];
      a3 += u[c + 3] * H[q0 + c + 3];
    }
    for (; c < r; c++) a0 += u[c] * H[q0 + c];
    return Math.fround(this.bias.data[l] - this.threshold + (a0 + a1) + (a2 + a3));
  }

  #scoreInto(x: SparseVector, out: Float32Array): void {
    this.scoreLatent(this.#latent(x), 0, out, this.numLabels);
  }

  /** u = xᵀW (scaled when rows are unit-L2) into the scratch row, returned. */
  #latent(x: SparseVector): Float64Array {
    const r = this.rank, D = this.numFeatures;
    const u = this.#u, W = this.w.data;
    const idx = x.indices, val = x.values, n = idx.length;
    let ss = 0;
    for (let p = 0; p < n; p++) {
      const j = idx[p];
      if (j >= 0 && j < D) ss += val[p] * val[p];
    }
    // u = xᵀW, eight latent columns at a time in registers (each column still sums its terms
    // in feature order, so u is bit-identical to a column-by-column loop; 1.9 -> 1.2 us for 70
    // features at rank 32)
    let c = 0;
    for (; c + 8 <= r; c += 8) {
      let u0 = 0, u1 = 0, u2 = 0, u3 = 0, u4 = 0, u5 = 0, u6 = 0, u7 = 0;
      for (let p = 0; p < n; p++) {
        const j = idx[p];
        if (j < 0 || j >= D) continue;
        const v = val[p], q = j * r + c;
        u0 += v * W[q];
        u1 += v * W[q + 1];
        u2 += v * W[q + 2];
        u3 += v * W[q + 3];
        u4 += v * W[q + 4];
        u5 += v * W[q + 5];
        u6 += v * W[q + 6];
        u7 += v * W[q + 7];
      }
      u[c] = u0;
      u[c + 1] = u1;
      u[c + 2] = u2;
      u[c + 3] = u3;
      u[c + 4] = u4;
      u[c + 5] = u5;
      u[c + 6] = u6;
      u[c + 7] = u7;
    }
    for (; c < r; c++) {
      let s = 0;
      for (let p = 0; p < n; p++) {
        const j = idx[p];
        if (j >= 0 && j < D) s += val[p] * W[j * r + c];
      }
      u[c] = s;
    }
    if (this.l2Normalize) {
      // the norm over the features the model knows, as the SDK's preprocessing computes it
      const f = ss > 0 ? 1 / Math.sqrt(ss) : 0;
      for (let c = 0; c < r; c++) u[c] *= f;
    }
    return u;
  }

  /**
   * Scores of labels `0 .. numLabels − 1` for a latent row u = xᵀW (already scaled when rows are
   * unit-L2), read from `u[offset .. offset + rank)`: `out[l] = u·h_l + b_l − threshold`, the
   * exact arithmetic of {@linkcode predictScores} (so a caller that computed u itself, e.g. to
   * reuse it for learning, gets bit-identical scores).
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * const s = new LowRankScorer(1, 1, 2, 0.5);
   * s.h.data.set([1, 0]);
   * const out = new Float32Array(2);
   * s.scoreLatent(Float64Array.of(2), 0, out, 2);
   * console.log(Array.from(out).join()); // "1.5,-0.5"
   * ```
   */
  scoreLatent(u: Float64Array, offset: number, out: Float32Array, numLabels: number): void {
    const r = this.rank, H = this.h.data, b = this.bias.data;
    if (numLabels > this.numLabels || out.length < numLabels || u.length < offset + r) {
      throw new RangeError(
        `leml.scoreLatent: ${numLabels} labels (model has ${this.numLabels}), out of length ${out.length}, u of length ${u.length} at ${offset}`,
      );
    }
    const t = this.threshold;
    // Four independent partial sums per label (about 3× faster than one serial sum in V8 at
    // rank ≥ 64), and two labels per pass sharing each load of u: 3.2 -> 2.3 µs for 159 labels
    // at rank 32. Each label still sums the same terms in the same order (bit-identical).
    const r4 = r - (r % 4);
    let l = 0;
    for (; l + 2 <= numLabels; l += 2) {
      const q0 = l * r, q1 = q0 + r;
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0, c = 0;
      for (; c < r4; c += 4) {
        const o = offset + c;
        const u0 = u[o], u1 = u[o + 1], u2 = u[o + 2], u3 = u[o + 3];
        a0 += u0 * H[q0 + c];
        a1 += u1 * H[q0 + c + 1];
        a2 += u2 * H[q0 + c + 2];
        a3 += u3 * H[q0 + c + 3];
        b0 += u0 * H[q1 + c];
        b1 += u1 * H[q1 + c + 1];
        b2 += u2 * H[q1 + c + 2];
        b3 += u3 * H[q1 + c + 3];
      }
      for (; c < r; c++) {
        const uc = u[offset + c];
        a0 += uc * H[q0 + c];
        b0 += uc * H[q1 + c];
      }
      out[l] = b[l] - t + (a0 + a1) + (a2 + a3);
      out[l + 1] = b[l + 1] - t + (b0 + b1) + (b2 + b3);
    }
    if (l < numLabels) {
      const q0 = l * r;
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0, c = 0;
      for (; c < r4; c += 4) {
        const o = offset + c;
        a0 += u[o] * H[q0 + c];
        a1 += u[o + 1] * H[q0 + c + 1];
        a2 += u[o + 2] * H[q0 + c + 2];
        a3 += u[o + 3] * H[q0 + c + 3];
      }
      for (; c < r; c++) a0 += u[offset + c] * H[q0 + c];
      out[l] = b[l] - t + (a0 + a1) + (a2 + a3);
    }
  }

  /**
   * The inference model as `linear-lowrank` content: W [D, r], H [L, r], bias [L] (the learned
   * bias minus the threshold, so that SDK scores equal {@linkcode predictScores}).
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * const c = new LowRankScorer(2, 3, 4, 0.5).toModelContent();
   * console.log(c.kind, c.tensors.W.shape.join("x"), c.tensors.bias.data[0]); // "linear-lowrank" "3x2" -0.5
   * ```
   */
  toModelContent(options: ModelFileOptions = {}): ModelFileContent {
    const D = this.numFeatures, L = this.numLabels, r = this.rank;
    const bias = new Float32Array(L);
    const b = this.bias.data;
    for (let l = 0; l < L; l++) bias[l] = b[l] - this.threshold;
    const tensors: Record<string, Tensor> = {
      W: { dtype: "f32", shape: [D, r], data: this.w.snapshot() },
      H: { dtype: "f32", shape: [L, r], data: this.h.snapshot() },
      bias: { dtype: "f32", shape: [L], data: bias },
    };
    const content: ModelFileContent = {
      kind: "linear-lowrank",
      numFeatures: D,
      numLabels: L,
      params: { rank: r },
      tensors,
    };
    const preprocess = this.l2Normalize
      ? { ...options.preprocess, l2Normalize: true }
      : options.preprocess;
    // the label index over H's rows and bias (from 4096 labels; docs/model-format.md), its
    // probes calibrated as the trainer's own index is (on its calibration queries, if any)
    const queries = L >= LABEL_INDEX_MIN_LABELS ? this.calibrationQueries() : undefined;
    return withLabelIndex(
      applyModelFileOptions(content, { ...options, preprocess }, "leml.toModelFile"),
      "H",
      queries ? { queries } : {},
    );
  }

  /**
   * Encodes {@linkcode toModelContent} as a model file (see docs/model-format.md).
   *
   * @example
   * ```ts
   * import { LowRankScorer } from "./lowrank.ts";
   * const bytes = new LowRankScorer(2, 3, 4, 0).toModelFile();
   * console.log(bytes.length > 0); // true
   * ```
   */
  toModelFile(options: ModelFileOptions = {}): Uint8Array {
    checkModelFileOptions(options, "leml.toModelFile");
    const content = this.toModelContent(options);
    return options.quantize
      ? encodeModelFile(content, { quantize: options.quantize })
      : encodeModelFile(content);
  }
}
