/**
 * `loadModel(bytes)`: a model file decoded once into a {@linkcode Model} that answers top-k
 * queries for every model kind (`linear-sparse`, `linear-lowrank`, `knn-embedding`,
 * `random-features`).
 *
 * @module
 */
import { decodeModel } from "./decode.ts";
import { ModelFormatError } from "./errors.ts";
import { Featurizer, type ModelInput } from "./features.ts";
import { knnEmbedding } from "./kinds/knn_embedding.ts";
import { linearLowrank } from "./kinds/linear_lowrank.ts";
import { linearSparse } from "./kinds/linear_sparse.ts";
import { randomFeatures } from "./kinds/random_features.ts";
import type { DecodedModel, KindFactory, KindScorer } from "./kinds/types.ts";
import type { TopK } from "./topk.ts";

const KINDS: Record<string, KindFactory> = {
  "linear-sparse": linearSparse,
  "linear-lowrank": linearLowrank,
  "knn-embedding": knnEmbedding,
  "random-features": randomFeatures,
};

/**
 * A loaded model. Prediction never mutates it (it keeps scratch buffers, so one `Model` serves
 * one request at a time, which is how JavaScript runs anyway).
 *
 * @example
 * ```ts
 * import { loadModel } from "./model.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const model = loadModel(file);
 * const top = model.predictTopK({ indices: [0, 2], values: [1, 1] }, 2);
 * console.log(model.kind, [...top.labels].map((l) => model.labelName(l)));
 * ```
 */
export class Model {
  /** Model kind, e.g. "linear-sparse". */
  readonly kind: string;
  /** Format version of the file it was loaded from. */
  readonly formatVersion: number;
  /** Number of feature columns. */
  readonly numFeatures: number;
  /** Number of labels. */
  readonly numLabels: number;
  /** Label names, when the file has them. */
  readonly labelNames?: readonly string[];
  /** Kind-specific parameters. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Training metadata and metrics recorded in the file. */
  readonly meta?: Readonly<Record<string, unknown>>;
  readonly #scorer: KindScorer;
  readonly #rows: Featurizer;

  /** Wraps a decoded model (use {@linkcode loadModel}). */
  constructor(decoded: DecodedModel, scorer: KindScorer, rows: Featurizer) {
    this.kind = decoded.kind;
    this.formatVersion = decoded.formatVersion;
    this.numFeatures = decoded.numFeatures;
    this.numLabels = decoded.numLabels;
    this.labelNames = decoded.labelNames;
    this.params = decoded.params;
    this.meta = decoded.meta;
    this.#scorer = scorer;
    this.#rows = rows;
  }

  /**
   * The `k` best labels for `x` (`{indices, values}` or a `{name: value}` record), in decreasing
   * score order, ties broken by the smaller label index.
   *
   * @throws {TypeError} when `x` is malformed; {RangeError} when `k` is not an integer >= 0.
   */
  predictTopK(x: ModelInput, k: number): TopK {
    if (!Number.isInteger(k) || k < 0) {
      throw new RangeError(`predictTopK: k must be a non-negative integer, got ${k}`);
    }
    const rows = this.#rows, n = rows.load(x);
    return this.#scorer.topK(
      rows.indices.subarray(0, n),
      rows.values.subarray(0, n),
      Math.min(k, this.numLabels),
    );
  }

  /**
   * {@linkcode predictTopK} for each row.
   *
   * @example
   * ```ts
   * import { loadModel } from "./model.ts";
   * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
   * const answers = loadModel(file).predictBatch([{ indices: [0], values: [1] }, { "1": 2 }], 1);
   * console.log(answers.length); // 2
   * ```
   */
  predictBatch(rows: Iterable<ModelInput>, k: number): TopK[] {
    const out: TopK[] = [];
    for (const x of rows) out.push(this.predictTopK(x, k));
    return out;
  }

  /**
   * The name of label `l` (its index as a string when the file has no names).
   *
   * @example
   * ```ts
   * import { loadModel } from "./model.ts";
   * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
   * console.log(loadModel(file).labelName(0)); // "tag-0"
   * ```
   */
  labelName(l: number): string {
    return this.labelNames?.[l] ?? String(l);
  }
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
 * console.log(loadModel(file).numLabels); // 3
 * try {
 *   loadModel(file.subarray(0, 50));
 * } catch (e) {
 *   console.log((e as ModelFormatError).reason); // "truncated"
 * }
 * ```
 */
export function loadModel(bytes: Uint8Array | ArrayBuffer): Model {
  const m = decodeModel(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes);
  const factory = KINDS[m.kind];
  const fail = (reason: "corrupt" | "unsupported", detail: string, cause?: unknown): never => {
    throw new ModelFormatError(reason, detail, { formatVersion: m.formatVersion, cause });
  };
  if (!Object.hasOwn(KINDS, m.kind)) {
    fail("unsupported", `model kind "${m.kind}" is not one of ${Object.keys(KINDS).join(", ")}`);
  }
  try {
    return new Model(m, factory(m), new Featurizer(m));
  } catch (e) {
    return fail("corrupt", (e as Error).message, e);
  }
}
