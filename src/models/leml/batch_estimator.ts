/**
 * The batch LEML trainer behind the {@linkcode Estimator} contract: `learnMany` appends the
 * batch to the rows seen so far and refits by alternating minimisation, warm-started from the
 * current factors (new features start at zero, new labels from the seeded hash). Each call costs
 * a refit over all rows seen, so this is for datasets that fit in memory; use the streaming
 * estimator for streams.
 *
 * @module
 */
import { checkBatch } from "../../data/batch_check.ts";
import { learnOneVia } from "../learn_one.ts";
import type { Batch, BinaryCsr, CsrMatrix, SparseVector } from "../../data/types.ts";
import type { Estimator, ModelState } from "../estimator.ts";
import { type LemlBatchOptions, trainLemlBatch } from "./batch.ts";
import { LEML_BATCH_SETTINGS, LEML_BATCH_SOLVER_KEYS, type LemlBatchSettings } from "./settings.ts";
import { LowRankScorer } from "./lowrank.ts";
import { hashUniform } from "../../random/mod.ts";
import { preprocessRows } from "../../data/preprocess.ts";
import { spaceLimits, withStoredLimits } from "../space_limits.ts";
import { checkFinite, checkScalar, checkStateKind, requireTensor } from "../state_check.ts";
import { shown } from "../../data/option_check.ts";

/**
 * Options of {@linkcode LemlBatch}: the declared {@linkcode LEML_BATCH_SETTINGS}.
 *
 * @example
 * ```ts
 * import type { LemlBatchEstimatorOptions } from "./batch_estimator.ts";
 * const o: LemlBatchEstimatorOptions = { rank: 8, lambda: 1, iterations: 5 };
 * console.log(o.iterations); // 5
 * ```
 */
export type LemlBatchEstimatorOptions = LemlBatchSettings;

/** The resolved configuration: every declared setting but the initial sizes. */
type Config = Required<Omit<LemlBatchSettings, "numFeatures" | "numLabels">>;

/** The settings of a configuration the solver takes ({@linkcode LEML_BATCH_SOLVER_KEYS}). */
type SolverSettings = Pick<Config, (typeof LEML_BATCH_SOLVER_KEYS)[number]>;

/** The solver's settings of a configuration. */
function solverSettings(c: Config): SolverSettings {
  return Object.fromEntries(LEML_BATCH_SOLVER_KEYS.map((key) => [key, c[key]])) as SolverSettings;
}

function makeConfig(o: Record<string, unknown>): Config {
  const s = LEML_BATCH_SETTINGS.resolve(o) as Required<LemlBatchSettings>;
  const { numFeatures: _d, numLabels: _l, ...config } = s; // in declaration order
  return config;
}

/** Growable row store (CSR chunks concatenated), with each row's observed-label mask. */
class RowStore {
  xPtr: number[] = [0];
  xIdx: number[] = [];
  xVal: number[] = [];
  yPtr: number[] = [0];
  yIdx: number[] = [];
  /** Observed labels of the partially observed rows (empty for fully observed rows). */
  oPtr: number[] = [0];
  oIdx: number[] = [];
  /** 1 where a row's labels are all known. */
  full: number[] = [];
  get rows(): number {
    return this.xPtr.length - 1;
  }
}

/**
 * Batch-trained LEML as an estimator (kind "leml").
 *
 * @example
 * ```ts
 * import { LemlBatch } from "./batch_estimator.ts";
 * const m = new LemlBatch({ rank: 2, lambda: 0.01 });
 * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
 * m.learnOne({ indices: Int32Array.of(1), values: Float32Array.of(1) }, [1]);
 * console.log(m.predictTopK({ indices: Int32Array.of(1), values: Float32Array.of(1) }, 1).labels[0]); // 1
 * ```
 */
export class LemlBatch extends LowRankScorer implements Estimator {
  readonly config: Readonly<Config>;
  #data = new RowStore();
  #dataFeatures = 0;

  /** @param options see {@linkcode LemlBatchEstimatorOptions}. */
  constructor(options: LemlBatchEstimatorOptions | Record<string, unknown> = {}) {
    const o = options as Record<string, unknown>;
    const config = makeConfig(o);
    super(config.rank, 0, 0, config.threshold, config.l2Normalize);
    this.config = config;
    // validated by makeConfig: non-negative integers
    const numFeatures = Number(o.numFeatures ?? 0), numLabels = Number(o.numLabels ?? 0);
    spaceLimits("leml batch", { ...config, numFeatures, numLabels });
    this.#grow(numFeatures, numLabels);
  }

  #grow(D: number, L: number): void {
    this.markLearned(); // the label index no longer describes the model
    this.w.resize(D);
    if (L > this.h.rows) {
      const from = this.h.rows, k = this.rank;
      this.h.resize(L);
      this.bias.resize(L);
      // same initial rows as trainLemlBatch: a zero H would be a fixed point of the alternation
      const sc = 1 / Math.sqrt(k), seed = this.config.seed;
      for (let a = from * k; a < L * k; a++) {
        this.h.data[a] = sc * hashUniform(seed, Math.floor(a / k), a % k);
      }
    }
  }

  /**
   * Fits on a whole dataset at once (no copy of the rows is kept for later refits).
   *
   * @example
   * ```ts
   * import { LemlBatch } from "./batch_estimator.ts";
   * const m = LemlBatch.fit(
   *   { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1), values: Float32Array.of(1) },
   *   { numRows: 1, numCols: 3, indptr: Int32Array.of(0, 1), indices: Int32Array.of(2) },
   *   { rank: 2 },
   * );
   * console.log(m.numFeatures, m.numLabels); // 2 3
   * ```
   */
  static fit(
    x: CsrMatrix,
    y: BinaryCsr,
    options:
      & LemlBatchEstimatorOptions
      & Pick<
        LemlBatchOptions,
        "observed" | "fullyObserved" | "onIteration" | "trackObjective"
      > = {},
  ): LemlBatch {
    const { observed, fullyObserved, onIteration, trackObjective, ...settings } = options;
    const m = new LemlBatch(settings);
    const c = m.config;
    const f = trainLemlBatch(m.#preprocess(x), y, {
      ...solverSettings(c),
      observed,
      fullyObserved,
      onIteration,
      trackObjective,
    });
    m.w.load(Float32Array.from(f.W));
    m.h.load(Float32Array.from(f.H));
    m.bias.load(Float32Array.from(f.bias));
    return m;
  }

  /**
   * Appends the batch's rows and refits (warm start). A batch's `observed` mask (explicit
   * negatives: the rows' observed labels) is kept with its rows: those rows contribute only
   * their observed entries, as in the paper's missing-label objective.
   *
   * @example
   * ```ts
   * import { LemlBatch } from "./batch_estimator.ts";
   * const m = new LemlBatch({ rank: 1, iterations: 2 });
   * m.learnMany({
   *   x: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1), values: Float32Array.of(1) },
   *   y: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) },
   * });
   * console.log(m.numFeatures, m.numLabels); // 2 1
   * ```
   */
  learnMany(batch: Batch): void {
    const { x, y } = batch;
    const n = x.numRows;
    const [D, L] = checkBatch(batch, "leml batch.learnMany", this.config);
    const obs = batch.observed, full = batch.fullyObserved;
    const s = this.#data;
    for (let i = 0; i < n; i++) {
      for (let p = x.indptr[i]; p < x.indptr[i + 1]; p++) {
        s.xIdx.push(x.indices[p]);
        s.xVal.push(x.values[p]);
      }
      s.xPtr.push(s.xIdx.length);
      for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) s.yIdx.push(y.indices[p]);
      s.yPtr.push(s.yIdx.length);
      const partial = obs !== undefined && !(full !== undefined && full[i] === 1);
      if (partial) {
        for (let p = obs.indptr[i]; p < obs.indptr[i + 1]; p++) s.oIdx.push(obs.indices[p]);
      }
      s.oPtr.push(s.oIdx.length);
      s.full.push(partial ? 0 : 1);
    }
    this.#grow(Math.max(D, this.numFeatures), Math.max(L, this.numLabels));
    this.#dataFeatures = Math.max(this.#dataFeatures, D);
    this.#refit();
  }

  /**
   * Learns one example (appends it and refits).
   *
   * @example
   * ```ts
   * import { LemlBatch } from "./batch_estimator.ts";
   * const m = new LemlBatch({ rank: 1, iterations: 1 });
   * m.learnOne({ indices: Int32Array.of(3), values: Float32Array.of(1) }, [1]);
   * console.log(m.numFeatures, m.numLabels); // 4 2
   * ```
   */
  learnOne(x: SparseVector, y: ArrayLike<number>): void {
    learnOneVia(this, x, y, "leml batch");
  }

  /** The rows as the factors see them (unit L2 norm when configured; never mutates `x`). */
  #preprocess(x: CsrMatrix): CsrMatrix {
    return this.config.l2Normalize ? preprocessRows(x, { l2Normalize: true }) : x;
  }

  #refit(): void {
    this.markLearned();
    const s = this.#data, D = this.numFeatures, L = this.numLabels;
    const x: CsrMatrix = {
      numRows: s.rows,
      numCols: D,
      indptr: Int32Array.from(s.xPtr),
      indices: Int32Array.from(s.xIdx),
      values: Float32Array.from(s.xVal),
    };
    const y: BinaryCsr = {
      numRows: s.rows,
      numCols: L,
      indptr: Int32Array.from(s.yPtr),
      indices: Int32Array.from(s.yIdx),
    };
    const partial = s.full.some((v) => v === 0);
    const f = trainLemlBatch(this.#preprocess(x), y, {
      ...solverSettings(this.config),
      init: { W: this.w.data, H: this.h.data, bias: this.bias.data },
      observed: partial
        ? {
          numRows: s.rows,
          numCols: L,
          indptr: Int32Array.from(s.oPtr),
          indices: Int32Array.from(s.oIdx),
        }
        : undefined,
      fullyObserved: partial ? Uint8Array.from(s.full) : undefined,
    });
    this.w.load(Float32Array.from(f.W));
    this.h.load(Float32Array.from(f.H));
    this.bias.load(Float32Array.from(f.bias));
  }

  /**
   * Full state: config, factors and the rows seen (needed to refit exactly after a restore).
   *
   * @example
   * ```ts
   * import { LemlBatch } from "./batch_estimator.ts";
   * const s = new LemlBatch({ rank: 2, numFeatures: 3, numLabels: 1 }).toState();
   * console.log(s.config.trainer, s.tensors.W.length); // "batch" 6
   * ```
   */
  toState(): ModelState {
    const s = this.#data;
    return {
      kind: "leml",
      config: { trainer: "batch", ...this.config },
      scalars: { numFeatures: this.numFeatures, numLabels: this.numLabels },
      tensors: {
        W: this.w.snapshot(),
        H: this.h.snapshot(),
        bias: this.bias.snapshot(),
        xIndptr: Int32Array.from(s.xPtr),
        xIndices: Int32Array.from(s.xIdx),
        xValues: Float32Array.from(s.xVal),
        yIndptr: Int32Array.from(s.yPtr),
        yIndices: Int32Array.from(s.yIdx),
        oIndptr: Int32Array.from(s.oPtr),
        oIndices: Int32Array.from(s.oIdx),
        fullyObserved: Uint8Array.from(s.full),
      },
    };
  }

  /**
   * Rebuilds from {@linkcode toState}. Every value is checked first: sizes (non-negative
   * integers within the limits), finite factors, and the stored rows as `learnMany` checked
   * them (a `RangeError` naming the field or the row).
   *
   * @example
   * ```ts
   * import { LemlBatch } from "./batch_estimator.ts";
   * const a = new LemlBatch({ rank: 2, numFeatures: 3, numLabels: 1 });
   * console.log(LemlBatch.fromState(a.toState()).numFeatures); // 3
   * ```
   */
  static fromState(state: ModelState): LemlBatch {
    checkStateKind(state, "leml", "leml batch restore");
    if (state.config?.trainer !== "batch") {
      throw new TypeError(
        `leml batch restore: not a batch LEML state (config.trainer is ${
          shown(state.config?.trainer)
        }, not "batch")`,
      );
    }
    const { trainer: _t, ...config } = withStoredLimits(state.config);
    const m = new LemlBatch(config);
    const t = state.tensors, where = "leml batch restore";
    const D = checkScalar(state.scalars ?? {}, "numFeatures", where);
    const L = checkScalar(state.scalars ?? {}, "numLabels", where);
    spaceLimits(where, { ...m.config, numFeatures: D, numLabels: L });
    const k = m.rank;
    for (const [name, len] of [["W", D * k], ["H", L * k], ["bias", L]] as const) {
      checkFinite(requireTensor(t, name, Float32Array, where, len), name, where);
    }
    // the stored rows, which every later learnMany refits on: checked as learnMany checked them
    // (sorted indices, finite values), and within the sizes
    const rows = (t.xIndptr?.length ?? 1) - 1;
    const csr = (ptr: string, idx: string, fallbackPtr: ArrayLike<number>) => ({
      numRows: rows,
      numCols: 0,
      indptr: (t[ptr] ?? fallbackPtr) as Int32Array,
      indices: (t[idx] ?? new Int32Array(0)) as Int32Array,
    });
    const stored: Batch = {
      x: {
        ...csr("xIndptr", "xIndices", [0]),
        values: (t.xValues ?? new Float32Array(0)) as Float32Array,
      },
      y: csr("yIndptr", "yIndices", [0]),
      observed: csr("oIndptr", "oIndices", new Int32Array(rows + 1)),
    };
    const [needD, needL] = checkBatch(stored, `${where} (stored rows)`);
    if (needD > D || needL > L) {
      throw new RangeError(
        `${where}: the stored rows need ${needD} features and ${needL} labels, the state declares ${D} and ${L}`,
      );
    }
    m.w.load(t.W);
    m.h.load(t.H);
    m.bias.load(t.bias);
    const s = m.#data;
    s.xPtr = Array.from(t.xIndptr ?? [0]);
    s.xIdx = Array.from(t.xIndices ?? []);
    s.xVal = Array.from(t.xValues ?? []);
    s.yPtr = Array.from(t.yIndptr ?? [0]);
    s.yIdx = Array.from(t.yIndices ?? []);
    s.oPtr = Array.from(t.oIndptr ?? new Int32Array(s.yPtr.length));
    s.oIdx = Array.from(t.oIndices ?? []);
    s.full = Array.from(t.fullyObserved ?? new Uint8Array(s.yPtr.length - 1).fill(1));
    if (s.oPtr.length !== s.yPtr.length || s.full.length !== s.yPtr.length - 1) {
      throw new RangeError(`leml batch restore: the observed-label mask does not match the rows`);
    }
    for (const j of s.xIdx) m.#dataFeatures = Math.max(m.#dataFeatures, j + 1);
    return m;
  }
}
