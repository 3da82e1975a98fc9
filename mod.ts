/**
 * Tagstream: learns extreme multi-label taggers continuously from event streams, prunes them with
 * POP and serves top-k predictions at the edge (the SDK lives in `sdk/mod.ts`).
 *
 * This module exports the stable API: the data contracts and streaming readers, the model
 * factories (each model also as a namespace), evaluation metrics, the model file, POP pruning and
 * the learning service.
 *
 * @example Stream synthetic rows through streaming LEML, then score a row
 * ```ts
 * import { factories, Minibatcher, syntheticExamples } from "./mod.ts";
 * const model = factories.leml!.create({ seed: 1 });
 * const examples = ReadableStream.from(syntheticExamples({ rows: 512, seed: 1 }));
 * for await (const batch of examples.pipeThrough(new Minibatcher({ batchSize: 64 }))) {
 *   model.learnMany(batch);
 * }
 * const top = model.predictTopK({ indices: Int32Array.of(1, 2), values: Float32Array.of(1, 1) }, 3);
 * console.log(top.labels.length); // 3
 * ```
 *
 * @module
 */

// Data: contracts, streaming readers, batching, vocabularies, transforms, synthetic data.
export type { Batch, BinaryCsr, CsrMatrix, Example, SparseVector } from "./src/data/types.ts";
export {
  type ExampleReader,
  readExamples,
  type ReadExamplesOptions,
  type StreamFormat,
} from "./src/data/readers.ts";
export {
  type ByteSource,
  openSource,
  type OpenSourceOptions,
  type SourceChunk,
  type SourceInput,
} from "./src/data/sources.ts";
export type { OnError, ParseErrorEntry, ParseReport } from "./src/data/parse_report.ts";
export type { FeatureKeys, NdjsonOptions } from "./src/data/ndjson.ts";
export {
  batchStream,
  examplesToBatch,
  Minibatcher,
  type MinibatcherOptions,
  type SpaceSizes,
} from "./src/data/batcher.ts";
export { Vocabulary, type VocabularyJSON } from "./src/data/vocabulary.ts";
export { FeatureHasher, type HashingJSON, type HashingOptions } from "./src/data/hashing.ts";
export { TfIdf, type TfIdfJSON } from "./src/data/tfidf.ts";
export { l2Normalized } from "./src/data/normalize.ts";
export {
  syntheticExamples,
  type SyntheticOptions,
  writeSyntheticXc,
} from "./src/data/synthetic.ts";
export {
  batchesOf,
  type Dataset,
  loadDataset,
  type LoadedDataset,
  type LoadOptions,
  loadXcFile,
} from "./src/data/dataset.ts";
export { resolveDataDir } from "./src/data/data_dir.ts";

// Models: the estimator contract, the registry, and each model family.
export type {
  Estimator,
  EstimatorFactory,
  ModelFileOptions,
  ModelState,
  TopK,
} from "./src/models/estimator.ts";
export { factories, loadFactory, MODEL_NAMES, type ModelName } from "./src/models/registry.ts";
export {
  defineSettings,
  type DerivedDefault,
  describeAllowed,
  type ModelSettings,
  parseSetting,
  type SettingCondition,
  type SettingSpec,
  type SettingSpecs,
  type SettingValue,
  SIZE_SPECS,
  whenIs,
  whenPositive,
} from "./src/models/settings.ts";
export {
  DEFAULT_LIMITS,
  LIMIT_SPECS,
  type SpaceLimitSettings,
  UNLIMITED,
} from "./src/models/space_limits.ts";
export type { SpaceLimits } from "./src/data/batch_check.ts";
export * as leml from "./src/models/leml/mod.ts";
export * as sleec from "./src/models/sleec/mod.ts";
export * as coembed from "./src/models/coembed/mod.ts";
export * as br from "./src/models/br/mod.ts";
export * as knn from "./src/models/knn/mod.ts";
export * as popularity from "./src/models/popularity/mod.ts";
export * as ova from "./src/models/ova/mod.ts";

// Evaluation.
export * as metrics from "./src/metrics/mod.ts";
export {
  evaluateModel,
  type EvaluateModelOptions,
  Evaluator,
  type EvaluatorOptions,
  type LabelledRows,
  type ScoringModel,
} from "./src/metrics/evaluate.ts";
export { type PrequentialState, PrequentialWindow } from "./src/metrics/prequential.ts";
export { propensities } from "./src/metrics/propensity.ts";

// Model file and pruning: the writer is the trainer's; the contract (reader, error, version,
// types) is the SDK's, so a ModelFormatError from either side is one class.
export { encodeModelFile, type EncodeOptions } from "./src/format/model_file.ts";
export {
  decodeModelFile,
  type FeatureSpace,
  FORMAT_VERSION,
  type ModelFileContent,
  ModelFormatError,
  type ModelFormatErrorReason,
  type ModelKind,
  type Preprocess,
  type Tensor,
} from "./sdk/internal.ts";
export * as prune from "./src/prune/mod.ts";

// Continuous learning service.
export {
  type BuiltModel,
  type IngestResult,
  LearningService,
  type ModelBuilder,
  type PublishContext,
  type PublishedModel,
  type RepairReport,
  type ServiceOptions,
  type StorageStatus,
} from "./src/service/service.ts";
export type { IdWindow, IdWindowState } from "./src/service/id_window.ts";
export type { WalLoss } from "./src/service/wal.ts";
export type { CheckpointDelta } from "./src/service/checkpoint_delta.ts";
export type { ServiceHandle } from "./src/service/service_handle.ts";
export { LearnerThread, type LearnerThreadOptions } from "./src/service/learner_thread.ts";
export type { ReplicaIndexOptions } from "./src/service/replica_index.ts";
export type {
  IngestLineResult,
  LearnerCheckpoint,
  LearnerOptions,
  Reject,
  ReplicaDelta,
  StreamLearner,
  StreamPosition,
} from "./src/service/learner.ts";
export type { LearnerDelta } from "./src/service/learner_types.ts";
export type { RedisSourceOptions } from "./src/service/redis_source.ts";
export {
  type EventLimits,
  EventParser,
  type GrowthLimits,
  type LineResult,
  type ParseMark,
} from "./src/service/events.ts";
export type { TextSettings } from "./sdk/mod.ts";
export { type AppOptions, createApp, type ServiceApp } from "./src/service/http_app.ts";
export type { Progress, ProgressDetail, ProgressOptions } from "./src/progress/mod.ts";
