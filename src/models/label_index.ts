/**
 * The model file's label index (issue 15) on a trainer model, for the kinds whose score is
 * score_l = bias_l + q · M_l (LEML: q = xᵀW, M = H; the CoEmbed predictor: q = f(x̃) Q, M = P):
 * {@linkcode LabelIndex.build} runs the exporter's `withLabelIndex` (../linalg/mips_index.ts, the
 * same defaults, so the same index as the exported file's for the same rows and bias) and
 * searches it with the SDK's own search (`mipsIndex`, reached through sdk/internal.ts), so the
 * labels a trainer answers from its index are the labels the SDK answers from the file.
 *
 * The index holds a view of the rows it was built on and copies of them in leaf order (made as
 * leaves are first probed): the model must not change while it is used. The models that hold one
 * drop it at every learning entry point (see `LowRankScorer.predictTopK`).
 *
 * @module
 */
import type { ModelFileContent, Tensor } from "../format/types.ts";
import {
  LABEL_INDEX_MIN_LABELS,
  type LabelIndexOptions,
  refreshLabelIndex,
  withLabelIndex,
} from "../linalg/mips_index.ts";
import { FORMAT_VERSION, mipsIndex, type MipsSearch, type TopK } from "../../sdk/internal.ts";
import type { DecodedModel } from "../../sdk/mod.ts";

export type { LabelIndexOptions } from "../linalg/mips_index.ts";

/**
 * Options of {@linkcode LabelIndex.build}: the model file's (`withLabelIndex`), and `reuse`.
 *
 * @example
 * ```ts
 * import type { LabelIndexBuildOptions } from "./label_index.ts";
 * const o: LabelIndexBuildOptions = { minLabels: 0 };
 * console.log(o.reuse); // undefined
 * ```
 */
export interface LabelIndexBuildOptions extends LabelIndexOptions {
  /**
   * An index built earlier over the same number of labels and width: its partition and probe
   * counts are kept and only the leaves' and groups' means and spreads are recomputed from the
   * current rows (`refreshLabelIndex`: O(L·r), no clustering nor calibration; the scores stay
   * exact, the recall may drift as the partition ages). Ignored when the sizes differ.
   */
  reuse?: LabelIndexPartition;
}

/**
 * What a label index is built from: the rows and biases exactly as the index uses them (what
 * {@linkcode LabelIndex.build} takes), e.g. to build it elsewhere (src/service/index_worker.ts).
 *
 * @example
 * ```ts
 * import type { LabelIndexInput } from "./label_index.ts";
 * const i: LabelIndexInput = {
 *   kind: "linear-lowrank", rowsName: "H", rows: new Float32Array(4), bias: undefined,
 *   numLabels: 2, rank: 2,
 * };
 * console.log(i.numLabels * i.rank); // 4
 * ```
 */
export interface LabelIndexInput {
  /** The model file kind. */
  kind: "linear-lowrank" | "random-features";
  /** The rows tensor's name in the model file ("H", "P"). */
  rowsName: string;
  /** The label rows ([L, r] row-major; the first L·r values). */
  rows: Float32Array;
  /** The biases as the index uses them (length L), if any. */
  bias: Float32Array | undefined;
  /** Labels (L). */
  numLabels: number;
  /** Width of a label row (r). */
  rank: number;
  /**
   * Query rows ([n, r]) to calibrate the probe counts on (`queries` of `LabelIndexOptions`; the
   * options' own win), e.g. a model's `calibration`; absent: synthetic queries.
   */
  queries?: Float32Array;
}

/**
 * What a refresh (`reuse`) needs of an earlier index: its sizes, partition tensors and probe
 * params. A {@linkcode LabelIndex} is one; so is a partition built on another thread.
 *
 * @example
 * ```ts
 * import { LabelIndex, type LabelIndexPartition } from "./label_index.ts";
 * const M = Float32Array.from({ length: 400 }, (_, i) => Math.sin(i));
 * const p: LabelIndexPartition = LabelIndex.build({ kind: "linear-lowrank", rowsName: "H", rows: M, bias: undefined, numLabels: 200, rank: 2 }, { minLabels: 0 })!;
 * console.log(p.numLabels, p.rank); // 200 2
 * ```
 */
export interface LabelIndexPartition {
  /** Labels indexed (L). */
  readonly numLabels: number;
  /** Width of a label row (r). */
  readonly rank: number;
  /** The index tensors (`mips*`). */
  readonly tensors: Readonly<Record<string, Tensor>>;
  /** The index params (`mipsProbes`, `mipsGroupProbes`). */
  readonly params: Readonly<Record<string, number>>;
}

/**
 * Per-query options of the trainers' `predictTopK` when the model may hold a label index.
 *
 * @example
 * ```ts
 * import type { TopKQueryOptions } from "./label_index.ts";
 * const o: TopKQueryOptions = { exact: true };
 * console.log(o.exact, o.probes); // true undefined
 * ```
 */
export interface TopKQueryOptions {
  /** Score every label (the exact answer), whatever index the model holds. */
  exact?: boolean;
  /** Leaves to probe (more: slower, closer to exact); default the index's calibrated count. */
  probes?: number;
}

/**
 * A built label index: its search and what it was built on.
 *
 * @example
 * ```ts
 * import { LabelIndex } from "./label_index.ts";
 * const L = 400, r = 2;
 * const M = Float32Array.from({ length: L * r }, (_, i) => Math.sin(i * 7.1));
 * const idx = LabelIndex.build({ kind: "linear-lowrank", rowsName: "H", rows: M, bias: undefined, numLabels: L, rank: r }, { minLabels: 0 })!;
 * const top = idx.search(Float64Array.of(1, 0.5), 3, idx.leaves); // every leaf: the exact top 3
 * console.log(idx.numLabels, top === undefined); // 400 true
 * console.log(idx.search(Float64Array.of(1, 0.5), 3, 1)?.labels.length); // 3
 * ```
 */
export class LabelIndex {
  /** Labels indexed (L). */
  readonly numLabels: number;
  /** Width of a label row (r). */
  readonly rank: number;
  /** Leaves (clusters of labels). */
  readonly leaves: number;
  /** Groups of leaves (1: flat). */
  readonly groups: number;
  /** The calibrated (or given) leaf probe count, the default of {@linkcode LabelIndex.search}. */
  readonly probes: number;
  /** The group probe count that goes with it. */
  readonly groupProbes: number;
  /** Milliseconds the build took. */
  readonly buildMs: number;
  /** The label rows indexed ([L, r], a view: the model's own array). */
  readonly rows: Float32Array;
  /** The biases indexed (length L), if any. */
  readonly bias: Float32Array | undefined;
  /** The index tensors (`mips*`, as written to the model file). */
  readonly tensors: Readonly<Record<string, Tensor>>;
  /** The index params (`mipsProbes`, `mipsGroupProbes`). */
  readonly params: Readonly<Record<string, number>>;
  /** Whether it kept an earlier index's partition (`reuse`) rather than clustering anew. */
  readonly reused: boolean;
  readonly #search: MipsSearch;

  private constructor(
    content: ModelFileContent,
    rows: Float32Array,
    bias: Float32Array | undefined,
    r: number,
    ms: number,
    reused: boolean,
  ) {
    const tensors: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(content.tensors)) {
      if (name.startsWith("mips")) tensors[name] = t;
    }
    const decoded: DecodedModel = {
      kind: content.kind,
      formatVersion: FORMAT_VERSION,
      numFeatures: content.numFeatures,
      numLabels: content.numLabels,
      params: content.params,
      tensors: tensors as DecodedModel["tensors"],
    };
    this.#search = mipsIndex(decoded, rows, bias, r)!;
    this.numLabels = content.numLabels;
    this.rank = r;
    this.leaves = tensors.mipsPtr.shape[0] - 1;
    this.groups = tensors.mipsGroupPtr ? tensors.mipsGroupPtr.shape[0] - 1 : 1;
    this.probes = content.params.mipsProbes as number;
    this.groupProbes = (content.params.mipsGroupProbes as number | undefined) ?? this.groups;
    this.rows = rows;
    this.bias = bias;
    this.tensors = tensors;
    this.params = { mipsProbes: this.probes, mipsGroupProbes: this.groupProbes };
    this.reused = reused;
    this.buildMs = ms;
  }

  /**
   * Builds the index of the `input.numLabels` (L) label rows `input.rows` ([L, r] row-major;
   * only the first L·r values are read) with biases `input.bias`, exactly as the exporter does
   * for a `kind` file whose rows tensor is `rowsName` (`withLabelIndex`: the defaults are the
   * model file's, `minLabels` 4096), or refreshes `options.reuse` (see
   * {@linkcode LabelIndexBuildOptions}). Undefined below `minLabels` labels. `rows` and `bias`
   * are kept (not copied).
   *
   * @example
   * ```ts
   * import { LabelIndex } from "./label_index.ts";
   * const input = { kind: "linear-lowrank" as const, rowsName: "H", rows: new Float32Array(20), bias: undefined, numLabels: 10, rank: 2 };
   * console.log(LabelIndex.build(input)); // undefined
   * ```
   */
  static build(
    input: LabelIndexInput,
    options: LabelIndexBuildOptions = {},
  ): LabelIndex | undefined {
    const { kind, rowsName, rows, bias, numLabels: L, rank: r } = input;
    if (rows.length < L * r || (bias !== undefined && bias.length < L)) {
      throw new RangeError(`LabelIndex.build: ${L} labels of width ${r} need more rows or biases`);
    }
    const M = rows.subarray(0, L * r), b = bias?.subarray(0, L);
    const t0 = performance.now();
    const tensors: Record<string, Tensor> = {
      [rowsName]: { dtype: "f32", shape: [L, r], data: M },
    };
    if (b !== undefined) tensors.bias = { dtype: "f32", shape: [L], data: b };
    const bare: ModelFileContent = { kind, numFeatures: 0, numLabels: L, params: {}, tensors };
    const { reuse, ...rest } = options;
    if (rest.queries === undefined && input.queries !== undefined) rest.queries = input.queries;
    const reused = reuse !== undefined && reuse.numLabels === L && reuse.rank === r &&
      L >= (options.minLabels ?? LABEL_INDEX_MIN_LABELS);
    const content = reused
      ? refreshLabelIndex(bare, rowsName, reuse)
      : withLabelIndex(bare, rowsName, rest);
    if (!content.tensors.mipsPtr) return undefined;
    return new LabelIndex(content, M, b, r, performance.now() - t0, reused);
  }

  /**
   * The SDK's search of this index (sdk/kinds/mips_index.ts): the top `k` labels for the query
   * `q` (length r) among the labels of the `probes` best leaves (default {@linkcode
   * LabelIndex.probes}), scored bias_l + q·M_l in float64 then rounded to float32 (a serial sum
   * from the bias); undefined when the probed leaves hold more than a quarter of the labels or
   * fewer than `k` (the caller scans every label then).
   *
   * @example
   * ```ts
   * import { LabelIndex } from "./label_index.ts";
   * const L = 800, M = Float32Array.from({ length: L }, (_, l) => l % 7 - 3);
   * const idx = LabelIndex.build({ kind: "linear-lowrank", rowsName: "H", rows: M, bias: undefined, numLabels: L, rank: 1 }, { minLabels: 0, probes: 1 })!;
   * console.log(idx.search(Float64Array.of(1), 2)?.scores); // Float32Array(2) [ 3, 3 ]
   * ```
   */
  search(q: Float64Array, k: number, probes?: number): TopK | undefined {
    return this.#search(q, k, probes);
  }
}
