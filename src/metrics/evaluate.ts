/**
 * Offline evaluation: all the metrics of a model (or of stored predictions) over a labelled test
 * set, in one pass. Top-k lists are derived from the scores with the project's tie rule
 * (decreasing score, ties broken by the smaller label index), so the same scores always give
 * the same metrics.
 *
 * Labels a row does not score (labels a model does not know, labels a predictions line does not
 * list) are never ranked: a row's top-k holds only scored labels, and when fewer than k are
 * scored the remaining positions are misses. In the AUCs they rank below every scored label
 * (as -Infinity, tying with each other); in the Hamming loss they are predicted negative.
 *
 * Reported keys: `P@k`, `nDCG@k`, `PSP@k`, `PSnDCG@k`, `coverage@k` (percent, 0-100) for k in
 * 1, 3, 5 (those up to `k`) and `k` itself; `instanceAUC`, `macroAUC` and `hamming` (fractions).
 * An AUC with no valid row or label is NaN (`null` in JSON), and so is the Hamming loss before
 * any row. Rows with no true label count 0 in P@k and nDCG@k (the Extreme Classification
 * Repository's convention); {@linkcode Evaluator.unlabelledRows} says how many there were.
 *
 * Inputs are checked before anything is counted, so a row that throws (a NaN score, a bad
 * label) leaves the evaluator as it was.
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix, SparseVector } from "../data/types.ts";
import type { Progress } from "../progress/mod.ts";
import { PrecisionAtK } from "./precision.ts";
import { NdcgAtK } from "./ndcg.ts";
import { PspAtK } from "./psp.ts";
import { PsNdcgAtK } from "./psndcg.ts";
import { HammingLoss } from "./hamming.ts";
import { InstanceAuc } from "./instance_auc.ts";
import { MacroAuc } from "./macro_auc.ts";
import { LabelCoverage } from "./coverage.ts";
import { pushTop, type TopK, topKDense } from "../../sdk/internal.ts";
import {
  checkArrayLike,
  checkDenseScores,
  checkLabels,
  checkListed,
  inversePropensities,
  ROW_CHECKED,
} from "./relevance.ts";

/** The first `n` entries of `a` (a view when it is a typed array). */
function subArray(a: ArrayLike<number>, n: number): ArrayLike<number> {
  if (ArrayBuffer.isView(a)) return (a as unknown as Float32Array).subarray(0, n);
  return Array.prototype.slice.call(a, 0, n) as number[];
}

/**
 * Options of {@linkcode Evaluator}.
 *
 * @example
 * ```ts
 * import type { EvaluatorOptions } from "./evaluate.ts";
 * const o: EvaluatorOptions = { propensities: Float64Array.of(0.5, 0.5), k: 3 };
 * console.log(o.k); // 3
 * ```
 */
export interface EvaluatorOptions {
  /** One propensity per label (see `propensities` in `./propensity.ts`), from training counts. */
  propensities: Float64Array;
  /** Largest cut-off (default 5); metrics are reported at 1, 3, 5 (up to k) and k. */
  k?: number;
  /** Compute the macro AUC (default true; it keeps every non-zero score until the end). */
  macroAuc?: boolean;
}

/**
 * The cut-offs reported for a largest cut-off `k`: 1, 3 and 5 when not above `k`, and `k`.
 *
 * @example
 * ```ts
 * import { reportedKs } from "./evaluate.ts";
 * console.log(reportedKs(5), reportedKs(10), reportedKs(2)); // [1, 3, 5] [1, 3, 5, 10] [1, 2]
 * ```
 */
export function reportedKs(k: number, who = "evaluation"): number[] {
  if (!Number.isSafeInteger(k) || k < 1) {
    throw new RangeError(`${who}: k must be an integer >= 1, got ${k}`);
  }
  return [...new Set([1, 3, 5].filter((c) => c <= k).concat([k]))].sort((a, b) => a - b);
}

/**
 * Accumulates every metric over rows given as dense or sparse score vectors plus true labels.
 *
 * @example
 * ```ts
 * import { Evaluator } from "./evaluate.ts";
 * const ev = new Evaluator(3, { propensities: Float64Array.of(0.5, 0.5, 0.5), k: 1 });
 * ev.addScores(Float32Array.of(0.2, 0.9, -1), Int32Array.of(1)); // right
 * ev.addSparseScores(Int32Array.of(2), Float64Array.of(0.4), Int32Array.of(0)); // wrong
 * const m = ev.result();
 * console.log(m["P@1"], m.instanceAUC, m.hamming); // 50 0.625 0.5
 * ```
 */
export class Evaluator {
  /** Size of the label space (scores may be longer when a model knows more labels). */
  readonly numLabels: number;
  /** Largest cut-off. */
  readonly k: number;
  readonly #p: PrecisionAtK;
  readonly #ndcg: NdcgAtK;
  readonly #psp: PspAtK;
  readonly #psndcg: PsNdcgAtK;
  readonly #coverage: LabelCoverage;
  readonly #hamming = new HammingLoss();
  readonly #instanceAuc = new InstanceAuc();
  readonly #macroAuc: MacroAuc | undefined;
  #rows = 0;
  /** 0, 1, 2, ...: the listed labels of a row whose first labels are scored. */
  #iota = new Int32Array(0);

  /**
   * An empty evaluator.
   *
   * @param numLabels size of the label space of the true labels
   * @param options propensities (at least `numLabels` of them, each in (0, 1]) and cut-offs
   * @throws {RangeError} on a bad `numLabels`, `k` or propensity
   * @throws {TypeError} when the propensities are missing
   */
  constructor(numLabels: number, options: EvaluatorOptions) {
    if (!Number.isSafeInteger(numLabels) || numLabels < 1) {
      throw new RangeError(`Evaluator: numLabels must be a positive integer, got ${numLabels}`);
    }
    const p = options?.propensities;
    checkArrayLike(
      p,
      "Evaluator",
      "options.propensities must be one propensity per label (see propensities())",
    );
    inversePropensities(p, "Evaluator"); // each in (0, 1], named as the Evaluator's
    if (options.propensities.length < numLabels) {
      throw new RangeError(
        `Evaluator: ${options.propensities.length} propensities for ${numLabels} labels`,
      );
    }
    this.numLabels = numLabels;
    this.k = options.k ?? 5;
    const ks = reportedKs(this.k, "Evaluator");
    this.#p = new PrecisionAtK(ks);
    this.#ndcg = new NdcgAtK(ks);
    this.#psp = new PspAtK(options.propensities, ks);
    this.#psndcg = new PsNdcgAtK(options.propensities, ks);
    this.#coverage = new LabelCoverage(ks);
    this.#macroAuc = options.macroAuc === false ? undefined : new MacroAuc();
  }

  /** Number of rows added. */
  get rows(): number {
    return this.#rows;
  }

  /**
   * Number of rows added with no true label: they count 0 in P@k and nDCG@k, nothing in PSP@k
   * and PSnDCG@k, and are left out of the instance AUC.
   *
   * @example
   * ```ts
   * import { Evaluator } from "./evaluate.ts";
   * const ev = new Evaluator(2, { propensities: Float64Array.of(0.5, 0.5), k: 1 });
   * ev.addScores(Float32Array.of(1, 0), Int32Array.of(0)); // hit
   * ev.addScores(Float32Array.of(1, 0), Int32Array.of()); // no true label
   * console.log(ev.result()["P@1"], ev.unlabelledRows); // 50 1
   * ```
   */
  get unlabelledRows(): number {
    return this.#p.unlabelledRows;
  }

  #topKMetrics(top: ArrayLike<number>, labels: ArrayLike<number>): void {
    this.#p.add(top, labels);
    this.#ndcg.add(top, labels);
    this.#psp.add(top, labels);
    this.#psndcg.add(top, labels);
    this.#coverage.add(top, labels);
  }

  /**
   * Adds a row from one score per label and its strictly increasing true labels. Returns the
   * top-k list it ranked. `scored` (default `numLabels`) says which labels the model scores:
   * labels `[0, scored)`, from the first `scored` entries of `scores`; the labels from `scored`
   * on are ones it does not know, never ranked (see the module doc). No score may be NaN
   * (±Infinity are fine). With the default `scored`, entries past `numLabels` (a model that knows
   * more labels than the evaluator's label space) are labels like any other: ranked (never true,
   * so misses), negatives in the AUCs and in the Hamming loss, whose row then spans all
   * `scores.length` labels; with a smaller `scored` only the first `scored` entries are read.
   *
   * @throws {RangeError} on too few scores, a NaN score, a bad `scored` or a bad true label,
   *   naming the row; nothing is counted then
   *
   * @example
   * ```ts
   * import { Evaluator } from "./evaluate.ts";
   * // a model that knows labels 0 and 1 (scoring both below 0); the row's true label 2 is new
   * const ev = new Evaluator(3, { propensities: Float64Array.of(0.5, 0.5, 0.5), k: 3 });
   * const top = ev.addScores(Float32Array.of(-0.5, -0.2), Int32Array.of(2), 2);
   * console.log([...top.labels], ev.result()["P@3"]); // [ 1, 0 ] 0
   * ```
   */
  addScores(
    scores: ArrayLike<number>,
    labels: ArrayLike<number>,
    scored: number = this.numLabels,
  ): TopK {
    const where = `Evaluator.addScores: row ${this.#rows}`;
    if (!Number.isInteger(scored) || scored < 0 || scored > this.numLabels) {
      throw new RangeError(
        `${where}: scored must be an integer in [0, ${this.numLabels}], got ${scored}`,
      );
    }
    if (scores.length < scored) {
      throw new RangeError(
        `${where}: ${scores.length} scores for ${
          scored === this.numLabels ? "a label space of" : "scored labels"
        } ${scored}`,
      );
    }
    checkLabels(labels, this.numLabels, where);
    // the listed pairs read only the first `scored` scores
    const read = scored < this.numLabels && scores.length > scored
      ? subArray(scores, scored)
      : scores;
    checkDenseScores(read, where);
    if (scored < this.numLabels) {
      if (this.#iota.length < scored) {
        this.#iota = Int32Array.from(
          { length: Math.max(scored, 2 * this.#iota.length) },
          (_, i) => i,
        );
      }
      return this.#addListed(this.#iota.subarray(0, scored), read, labels);
    }
    const top = topKDense(scores, this.k);
    this.#topKMetrics(top.labels, labels);
    // checked above, once for all three
    this.#hamming.addDense(scores, labels, ROW_CHECKED);
    this.#instanceAuc.addDense(scores, labels, ROW_CHECKED);
    this.#macroAuc?.addDense(scores, labels, ROW_CHECKED);
    this.#rows++;
    return top;
  }

  /**
   * Adds a row from listed (label, score) pairs (any order, no duplicates, labels in
   * `[0, numLabels)`) and its strictly increasing true labels. Unlisted labels are not scored:
   * the top-k list ranks only listed labels (fewer than k listed leave misses), see the module
   * doc. Returns the top-k list it ranked.
   *
   * @throws {RangeError} on a bad listed label, a NaN score or a bad true label, naming the row;
   *   nothing is counted then
   *
   * @example
   * ```ts
   * import { Evaluator } from "./evaluate.ts";
   * const ev = new Evaluator(4, { propensities: Float64Array.of(0.5, 0.5, 0.5, 0.5), k: 3 });
   * // only label 3 is listed, with a negative score; unlisted labels 0, 1 and 2 are not ranked
   * const top = ev.addSparseScores(Int32Array.of(3), Float64Array.of(-2), Int32Array.of(0));
   * console.log([...top.labels], ev.result()["P@1"]); // [ 3 ] 0
   * ```
   */
  addSparseScores(
    indices: ArrayLike<number>,
    scores: ArrayLike<number>,
    labels: ArrayLike<number>,
  ): TopK {
    const where = `Evaluator.addSparseScores: row ${this.#rows}`;
    checkListed(indices, scores, this.numLabels, where);
    checkLabels(labels, this.numLabels, where);
    return this.#addListed(indices, scores, labels);
  }

  /**
   * A row whose listed labels are the only scored ones; `scores[j]` scores `indices[j]` (as many
   * scores as listed labels). The caller has checked the pairs and the true labels against
   * `numLabels`, as {@linkcode checkListed} and {@linkcode checkLabels} do.
   */
  #addListed(
    indices: ArrayLike<number>,
    scores: ArrayLike<number>,
    labels: ArrayLike<number>,
  ): TopK {
    const m = indices.length, cap = Math.min(this.k, m);
    const topLabels = new Int32Array(cap), topScores = new Float64Array(cap);
    let size = 0;
    for (let j = 0; j < m; j++) {
      size = pushTop(topLabels, topScores, size, cap, indices[j], scores[j]);
    }
    const top = { labels: topLabels, scores: Float32Array.from(topScores) };
    this.#topKMetrics(top.labels, labels);
    // checked by the callers, once for all three
    const n = this.numLabels;
    this.#hamming.addSparse(indices, scores, n, labels, ROW_CHECKED);
    this.#instanceAuc.addSparse(indices, scores, n, labels, "unscored", ROW_CHECKED);
    this.#macroAuc?.addSparse(indices, scores, n, labels, "unscored", ROW_CHECKED);
    this.#rows++;
    return top;
  }

  /** All metrics so far (see the module doc for the keys). */
  result(): Record<string, number> {
    const out: Record<string, number> = {
      ...this.#p.result(),
      ...this.#ndcg.result(),
      ...this.#psp.result(),
      ...this.#psndcg.result(),
      instanceAUC: this.#instanceAuc.result(),
      hamming: this.#hamming.result(),
      ...this.#coverage.result(),
    };
    if (this.#macroAuc) out.macroAUC = this.#macroAuc.result();
    return out;
  }

  /**
   * The standard errors of the ranking metrics of {@linkcode Evaluator.result} (P@k, nDCG@k,
   * PSP@k, PSnDCG@k), in the same percent, the rows taken as independent draws (see
   * `RankGainAtK.standardErrors`).
   *
   * @example
   * ```ts
   * import { Evaluator } from "./evaluate.ts";
   * const ev = new Evaluator(2, { propensities: Float64Array.of(0.5, 0.5), k: 1 });
   * for (const y of [0, 1, 0, 0]) ev.addScores(Float32Array.of(1, 0), Int32Array.of(y)); // hits 1, 0, 1, 1
   * console.log(ev.standardErrors()["P@1"]); // 25
   * ```
   */
  standardErrors(): Record<string, number> {
    return {
      ...this.#p.standardErrors(),
      ...this.#ndcg.standardErrors(),
      ...this.#psp.standardErrors(),
      ...this.#psndcg.standardErrors(),
    };
  }
}

/**
 * What {@linkcode evaluateModel} needs from a model (any {@linkcode Estimator} fits).
 *
 * @example
 * ```ts
 * import type { ScoringModel } from "./evaluate.ts";
 * const constant: ScoringModel = { predictScores: () => Float32Array.of(1, 0) };
 * console.log(constant.predictScores({ indices: new Int32Array(0), values: new Float32Array(0) }));
 * ```
 */
export interface ScoringModel {
  /** Scores of every label for `x`. */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array;
  /** The k best labels (used when given, else derived from the scores). */
  predictTopK?(x: SparseVector, k: number): TopK;
}

/**
 * A labelled test set (a `Dataset` from `src/data/dataset.ts` fits).
 *
 * @example
 * ```ts
 * import type { LabelledRows } from "./evaluate.ts";
 * const empty: LabelledRows = {
 *   numLabels: 1,
 *   x: { numRows: 0, numCols: 1, indptr: Int32Array.of(0), indices: new Int32Array(0), values: new Float32Array(0) },
 *   y: { numRows: 0, numCols: 1, indptr: Int32Array.of(0), indices: new Int32Array(0) },
 * };
 * console.log(empty.x.numRows); // 0
 * ```
 */
export interface LabelledRows {
  /** Size of the label space. */
  numLabels: number;
  /** Features, one row per test example. */
  x: CsrMatrix;
  /** True labels. */
  y: BinaryCsr;
}

/**
 * Options of {@linkcode evaluateModel}.
 *
 * @example
 * ```ts
 * import type { EvaluateModelOptions } from "./evaluate.ts";
 * const o: EvaluateModelOptions = { propensities: Float64Array.of(0.5), timingRows: 100 };
 * console.log(o.timingRows); // 100
 * ```
 */
export interface EvaluateModelOptions extends EvaluatorOptions {
  /** Progress reporter (one tick per row). */
  progress?: Progress;
  /** Rows timed for `predictMsPerRow` (default: all; 0 skips timing and reports NaN). */
  timingRows?: number;
  /**
   * Score each row's `top` best labels only, from the model's `predictTopK` (its fast top-k
   * search), instead of every label: the others are not ranked (see the module doc). The top-k
   * metrics are unchanged for `top` >= `k`; the AUCs and the Hamming loss then rank the labels
   * past `top` last. Default: every label.
   */
  top?: number;
}

/**
 * Evaluates a model on every row of `test`: scores each row once (`predictScores`) for all the
 * metrics and the standard errors of the ranking ones (`stdErr`, see
 * {@linkcode Evaluator.standardErrors}), then times `predictTopK(x, 5)` (or `predictScores` when
 * the model has no `predictTopK`) over the rows for `predictMsPerRow`. With `top`, each row is
 * scored by `predictTopK(x, top)` instead: its `top` best labels only. Never mutates the model or
 * the data.
 *
 * @throws {RangeError} on an empty or malformed test set (no row, row counts or `indptr` lengths
 *   that disagree), a bad option (`k`, `timingRows`, propensities, a `top` below `k`) or a row
 *   the {@linkcode Evaluator} refuses (a NaN score, a bad label), naming it
 * @throws {TypeError} when `top` is given for a model without `predictTopK`
 *
 * @example
 * ```ts
 * import { evaluateModel } from "./evaluate.ts";
 * // a "model" that always ranks label 1 first
 * const model = { predictScores: () => Float32Array.of(0.1, 0.8) };
 * const test = {
 *   numLabels: 2,
 *   x: { numRows: 2, numCols: 1, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 0), values: Float32Array.of(1, 1) },
 *   y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(1, 0) },
 * };
 * const r = evaluateModel(model, test, { propensities: Float64Array.of(0.5, 0.5) });
 * console.log(r.metrics["P@1"], r.metrics.macroAUC, r.stdErr["P@1"]); // 50 0.5 50
 * ```
 */
export function evaluateModel(
  model: ScoringModel,
  test: LabelledRows,
  options: EvaluateModelOptions,
): { metrics: Record<string, number>; stdErr: Record<string, number>; predictMsPerRow: number } {
  const numRows = test.x.numRows;
  if (test.y.numRows !== numRows) {
    throw new RangeError(
      `evaluateModel: ${numRows} feature rows but ${test.y.numRows} label rows`,
    );
  }
  if (!Number.isSafeInteger(numRows) || numRows < 1) {
    throw new RangeError(
      `evaluateModel: the test set must have at least one row (nothing to evaluate), got ${numRows}`,
    );
  }
  for (const [name, m] of [["x", test.x], ["y", test.y]] as const) {
    if (m.indptr.length !== numRows + 1) {
      throw new RangeError(
        `evaluateModel: test.${name}.indptr has ${m.indptr.length} entries for ${numRows} rows ` +
          `(expected ${numRows + 1})`,
      );
    }
  }
  if (!Number.isSafeInteger(test.numLabels) || test.numLabels < 1) {
    throw new RangeError(
      `evaluateModel: test.numLabels must be an integer >= 1, got ${test.numLabels}`,
    );
  }
  const timing = options.timingRows;
  if (timing !== undefined && (!Number.isSafeInteger(timing) || timing < 0)) {
    throw new RangeError(`evaluateModel: timingRows must be an integer >= 0, got ${timing}`);
  }
  const numLabels = Math.max(test.numLabels, test.y.numCols);
  const ev = new Evaluator(numLabels, options);
  const top = checkTopOption(options.top, ev.k, model);
  const progress = options.progress;
  progress?.start(numRows, "evaluate");
  let buf: Float32Array | undefined;
  for (let i = 0; i < numRows; i++) {
    const x = row(test.x, i);
    const labels = test.y.indices.subarray(test.y.indptr[i], test.y.indptr[i + 1]);
    if (top !== undefined) {
      const t = model.predictTopK!(x, top);
      ev.addSparseScores(t.labels, t.scores, labels);
    } else {
      const s = buf ? model.predictScores(x, buf) : model.predictScores(x);
      if (!buf || buf.length !== s.length) buf = s;
      // labels the model never saw (from s.length on) are not scored: never ranked
      ev.addScores(s, labels, Math.min(s.length, numLabels));
    }
    progress?.tick();
  }
  progress?.done();
  const timed = Math.min(numRows, options.timingRows ?? numRows);
  let predictMsPerRow = NaN;
  if (timed > 0) {
    const t0 = performance.now();
    if (model.predictTopK) {
      for (let i = 0; i < timed; i++) model.predictTopK(row(test.x, i), 5);
    } else {
      let out: Float32Array | undefined;
      for (let i = 0; i < timed; i++) {
        out = out ? model.predictScores(row(test.x, i), out) : model.predictScores(row(test.x, i));
      }
    }
    predictMsPerRow = (performance.now() - t0) / timed;
  }
  return { metrics: ev.result(), stdErr: ev.standardErrors(), predictMsPerRow };
}

/** `top` of {@linkcode evaluateModel}: undefined, or an integer >= `k` for a model with top-k. */
function checkTopOption(
  top: number | undefined,
  k: number,
  model: ScoringModel,
): number | undefined {
  if (top === undefined) return undefined;
  if (!Number.isSafeInteger(top) || top < k) {
    throw new RangeError(
      `evaluateModel: top must be an integer >= k (${k}): fewer scored labels than the ` +
        `cut-off would count misses that are not, got ${top}`,
    );
  }
  if (typeof model.predictTopK !== "function") {
    throw new TypeError("evaluateModel: top needs a model with predictTopK");
  }
  return top;
}

function row(m: CsrMatrix, i: number): SparseVector {
  const a = m.indptr[i];
  const b = m.indptr[i + 1];
  return { indices: m.indices.subarray(a, b), values: m.values.subarray(a, b) };
}
