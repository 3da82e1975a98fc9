/**
 * `loadModel(bytes)`: a model file decoded once into a {@linkcode Model} that answers top-k
 * queries for every model kind (`linear-sparse`, `linear-lowrank`, `knn-embedding`,
 * `random-features`).
 *
 * @module
 */
import { decodeModel } from "./decode.ts";
import { formatError } from "./errors.ts";
import { featurizer, int, type ModelInput } from "./features.ts";
import { KINDS } from "./kinds/mod.ts";
import { U8 } from "./vector.ts";
import type { DecodedModel, KindFactory } from "./kinds/types.ts";
import type { TopK } from "./topk.ts";

/**
 * Per-query options of {@linkcode Model.predictTopK}.
 *
 * @example
 * ```ts
 * import { loadModel, type TopKOptions } from "./model.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-lowrank.tsm", import.meta.url));
 * const exact: TopKOptions = { exact: true };
 * console.log(loadModel(file).predictTopK({ indices: [0], values: [1] }, 2, exact).labels.length); // 2
 * ```
 */
export interface TopKOptions {
  /**
   * The exact answer, whatever index the file has: every label scored, or for `knn-embedding`
   * the exact neighbours (their labels, then the rest by index, as scoring every label ranks them).
   */
  readonly exact?: boolean;
  /**
   * Label-index clusters to probe (more: slower, closer to exact); default (also for `null`) the
   * file's. An integer in [1, 2³²) (more than the file's clusters probes them all); anything else
   * is a `RangeError`, for every kind.
   */
  readonly probes?: number;
}

/**
 * A loaded model: the decoded file (kind, sizes, label names, params, meta, tensors) and its
 * queries. Prediction never mutates it; it reuses scratch buffers, so one model answers one
 * query at a time (as JavaScript runs anyway).
 *
 * @example
 * ```ts
 * import { loadModel, type Model } from "./model.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const model: Model = loadModel(file);
 * const top = model.predictTopK({ indices: [0, 2], values: [1, 1] }, 2);
 * console.log(model.kind, [...top.labels].map((l) => model.labelName(l))); // linear-sparse [ "tag-0", "tag-2" ]
 * ```
 */

export interface Model extends DecodedModel {
  /**
   * The `k` best labels for `x` (`{indices, values}` or a `{name: value}` record), in
   * decreasing score order, ties broken by the smaller label index. A `linear-lowrank` or
   * `random-features` file with a label index answers from its best clusters (exact scores,
   * recall measured by bench/sdk_scale.ts), a `knn-embedding` file with a neighbour index from
   * its best lists; `options.exact` gives the exact answer instead, and `options.probes` sets the
   * clusters or lists probed (default: the file's `mipsProbes` / `knnProbes`).
   *
   * `x.indices` are strictly increasing integers in [0, 2³²), as the trainers' rows (`[3, 3]`,
   * `[2, 1]`, `[-1]`, `[1.5]` or `[NaN]` is refused; an index at or past `numFeatures` is
   * dropped, as a feature the model never saw).
   *
   * @throws {TypeError} when `x` is malformed (a NaN or infinite value among them, as the
   * trainers' `predictTopK` refuses it); {RangeError} when an index of `x` is not an integer
   * above the one before it (`predictTopK: x.indices[1] must be an integer in [4, 4294967295],
   * got 3`), `k` is not an integer in [0, 2³²), `options.probes` not one in [1, 2³²) (each
   * message ends with the value it got), or when a `random-features` model cannot fold the row
   * in (its V holds a value that is not finite: the trainer's predictor refuses the same row).
   */
  predictTopK(x: ModelInput, k: number, options?: TopKOptions): TopK;
  /** {@linkcode Model.predictTopK} for each row. */
  predictBatch(rows: Iterable<ModelInput>, k: number, options?: TopKOptions): TopK[];
  /**
   * The name of label `l` (its index as a string when the file has no names).
   *
   * @throws {RangeError} when `l` is not a label of the model, an integer in [0, `numLabels`)
   * (`labelName: l must be an integer in [0, 2], got 1000000`).
   */
  labelName(l: number): string;
}

/**
 * Decodes a model file (once; keep the returned model) and builds its scorer. Aligned float32
 * tensors stay views into `bytes`: do not modify `bytes` afterwards.
 *
 * @throws {ModelFormatError} when the file cannot be read or is inconsistent (`reason` says
 * which: `bad-magic`, `truncated`, `newer-version`, `corrupt`, `unsupported`).
 *
 * @example
 * ```ts
 * import { loadModel, ModelFormatError } from "./mod.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-lowrank.tsm", import.meta.url));
 * const model = loadModel(file);
 * console.log(model.numLabels, model.predictBatch([{ "word:cat": 1 }, { a: 2 }], 1).length); // 3 2
 * try {
 *   loadModel(file.subarray(0, 50));
 * } catch (e) {
 *   console.log((e as ModelFormatError).reason); // "truncated"
 * }
 * ```
 */
export const loadModel = (bytes: Uint8Array | ArrayBuffer): Model => {
  const m = decodeModel(bytes instanceof ArrayBuffer ? new U8(bytes) : bytes);
  const rows = featurizer(m);
  let scorer: ReturnType<KindFactory>;
  try {
    scorer = KINDS[m.kind](m); // a known kind (checked by decodeModel)
  } catch (e) {
    return formatError("corrupt", (e as Error).message, m.formatVersion);
  }
  const predictTopK = (x: ModelInput, k: number, o?: TopKOptions) => {
    // k an integer in [0, 2³²), probes in [1, 2³²) when given (NaN or a string was served as
    // "every cluster" or as its number)
    int(k, "k", 0), int(o?.probes ?? 1, "options.probes", 1);
    return scorer.topK(...rows(x), k, o?.exact, o?.probes);
  };
  return {
    ...m,
    predictTopK,
    predictBatch: (xs, k, o) => Array.from(xs, (x) => predictTopK(x, k, o)),
    // a label of the model (1e6 or -1 named no label, and were answered "1000000" and "-1")
    labelName: (l) => (int(l, "l", 0, m.numLabels - 1, "labelName"), m.labelNames?.[l] ?? "" + l),
  };
};
