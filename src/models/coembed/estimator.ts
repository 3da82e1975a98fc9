/**
 * The CoEmbed {@linkcode Estimator} (kind "coembed"): the streaming learner of ./learner.ts plus
 * the `random-features` model-file export.
 *
 * @module
 */
import { checkModelFileOptions } from "../file_options.ts";
import { encodeModelFile } from "../../format/model_file.ts";
import type { Estimator, EstimatorFactory, ModelFileOptions, ModelState } from "../estimator.ts";
import { CoEmbedCore } from "./core.ts";
import { CoEmbedLearner, restoreCore } from "./learner.ts";
import { CoEmbedReplica, isReplicaState, replicaState } from "./replica.ts";
import { checkedConfig, checkedLimits, COEMBED_SETTINGS } from "./settings.ts";

export { COEMBED_FILE_KIND, predictorFileContent } from "./learner.ts";

/**
 * CoEmbed as a streaming {@linkcode Estimator} (kind "coembed"). Its spaces grow to each batch's
 * declared `x.numCols` and `y.numCols`; unlike the other models it refuses an index past them
 * (see ./learner.ts).
 *
 * @example
 * ```ts
 * import { CoEmbedEstimator } from "./estimator.ts";
 * const m = CoEmbedEstimator.create({ variant: "L", seed: 1 }, 3, 2);
 * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
 * console.log(m.predictTopK({ indices: Int32Array.of(0), values: Float32Array.of(1) }, 1).labels.length); // 1
 * ```
 */
export class CoEmbedEstimator extends CoEmbedLearner implements Estimator {
  /** A new estimator from options (see `CoEmbedConfig`). */
  static override create(
    options: Record<string, unknown> = {},
    numFeatures = 0,
    numLabels = 0,
  ): CoEmbedEstimator {
    const limits = checkedLimits(options, numFeatures, numLabels);
    const core = new CoEmbedCore(checkedConfig(options), numFeatures, numLabels);
    return new CoEmbedEstimator(core, 0, undefined, false, limits);
  }

  /** A streaming estimator continuing from a batch fit's global factors (a copy). */
  static override fromFit(fit: { core: CoEmbedCore; numRows: number }): CoEmbedEstimator {
    return CoEmbedEstimator.restore(new CoEmbedLearner(fit.core, fit.numRows).toState());
  }

  /** Rebuilds an estimator from `toState()` output, bit for bit. */
  static override restore(state: ModelState): CoEmbedEstimator {
    if (isReplicaState(state)) {
      throw new TypeError(
        "coembed.restore: a replica state holds only the predictor (restore it with the factory)",
      );
    }
    const { core, rowsSeen, reservoir, warmStarted, limits } = restoreCore(state);
    return new CoEmbedEstimator(core, rowsSeen, reservoir, warmStarted, limits);
  }

  toModelFile(options: ModelFileOptions = {}): Uint8Array {
    checkModelFileOptions(options, "coembed.toModelFile");
    const content = this.toModelFileContent(options);
    return encodeModelFile(content, options.quantize ? { quantize: options.quantize } : undefined);
  }

  /**
   * The inductive predictor's tensors as a replica state (copies): `coembedFactory.restore` of
   * it is a {@linkcode CoEmbedReplica}, which predicts exactly like this estimator.
   */
  toReplicaState(): ModelState {
    return replicaState(this.core.predictorTensors(), this.config.gamma, true);
  }
}

/**
 * The CoEmbed estimator factory (kind "coembed"); options are {@linkcode CoEmbedConfig} fields.
 *
 * @example
 * ```ts
 * import { coembedFactory } from "./estimator.ts";
 * const m = coembedFactory.create({ seed: 3, numFeatures: 4, numLabels: 2, variant: "L" });
 * console.log(m.kind, m.numLabels); // coembed 2
 * ```
 */
export const coembedFactory: EstimatorFactory = {
  kind: "coembed",
  settings: COEMBED_SETTINGS,
  create(options) {
    // checked and parsed against the declared settings; the learner fills the defaults
    COEMBED_SETTINGS.checkUsed(options);
    const { numFeatures, numLabels, ...rest } = COEMBED_SETTINGS.parse(options);
    return CoEmbedEstimator.create(rest, numFeatures ?? 0, numLabels ?? 0);
  },
  restore(state, options) {
    if (isReplicaState(state)) return CoEmbedReplica.fromState(state, options?.adopt ?? false);
    return CoEmbedEstimator.restore(state);
  },
};
