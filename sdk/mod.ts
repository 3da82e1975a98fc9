/**
 * The Tagstream edge SDK: load a model file and answer top-k queries. Imports only Web APIs and
 * `msgpackr/unpack`, so it runs unchanged in Deno, Deno Deploy, Cloudflare Workers and browsers.
 * Runtime adapters (model from a URL, Deno KV, Workers KV, R2 or static assets, decoded once per
 * isolate) are in `./deno_deploy.ts` and `./cloudflare.ts`.
 *
 * @example
 * ```ts
 * import { loadModel } from "./mod.ts";
 * const file = await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * const model = loadModel(file);
 * const top = model.predictTopK({ indices: Int32Array.of(0, 2), values: Float32Array.of(1, 1) }, 2);
 * console.log(top.labels.length, model.numLabels); // 2 3
 * ```
 *
 * @module
 */
export { loadModel, type Model, type TopKOptions } from "./model.ts";
export { ModelFormatError, type ModelFormatErrorReason } from "./errors.ts";
export { FORMAT_VERSION } from "./frame.ts";
export type { BinaryInput, FeatureRecord, ModelInput, SparseInput, TextInput } from "./features.ts";
export type { TextSettings } from "./tokenizer.ts";
export type { TopK } from "./topk.ts";
export type { DecodedModel, FeatureSpace, SdkTensor } from "./kinds/types.ts";
