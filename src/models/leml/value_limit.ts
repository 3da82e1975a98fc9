/**
 * The configurations of streaming LEML that can learn raw feature values only up to a bound
 * (`RAW_VALUE_LIMIT`, 1e15, of ../raw_value_limit.ts): {@linkcode valueLimitReason}. The stream
 * refuses a row past it before anything changes (`checkRawValues` of the same file).
 *
 * Without `l2Normalize`, a row's latent vector is u = xᵀW. Adam keeps the optimiser's state
 * finite on any finite row (gradients clipped to ±1e18, ../../optim/limits.ts), and with the
 * logistic and squared-hinge losses, which only need the sign structure of the scores, the true
 * label still ranks first on rows of 1e38. The squared loss cannot learn such rows (in the full
 * mode or the local one): it needs u·h ≈ 1, so W entries near 1/value, while an Adam step moves
 * them by about lr; its scores stay near lr·value² and rank at random, and in the local mode
 * the refresh's ridge systems lose a pivot to rounding from about 1e10 (./refresh.ts now
 * recovers). Nor could SGD, whose step is lr·value² times the residual and diverged: its scores
 * overflowed float32 (±Infinity, ties) from values of about 30 on. Below the limit, the
 * step-size cap of ./step_cap.ts now cuts such steps to the minimum along them (measured up to
 * 5e14); the limit itself is kept. Those configurations refuse a row past it, naming it, before
 * anything changes, instead of learning garbage. (Between about 100 and 1e15 the squared loss
 * with the default learning rate also ranks poorly on raw values: a matter of scale and
 * learning rate, which `l2Normalize` settles, not of arithmetic.)
 *
 * @module
 */
import type { LemlStreamConfig } from "./settings.ts";

/**
 * What limits the raw values under `config`: a phrase for the error message, or undefined when
 * values are not limited (`l2Normalize`, or Adam with the logistic or squared-hinge loss).
 *
 * @example
 * ```ts
 * import { valueLimitReason } from "./value_limit.ts";
 * import { resolveLemlStreamOptions } from "./settings.ts";
 * const of = (o: Record<string, unknown>) => valueLimitReason(resolveLemlStreamOptions(o).config);
 * console.log(of({}), of({ l2Normalize: true }), of({ loss: "logistic" })); // the squared loss undefined undefined
 * ```
 */
export function valueLimitReason(config: Readonly<LemlStreamConfig>): string | undefined {
  if (config.l2Normalize) return undefined;
  if (config.optimizer === "sgd") return "SGD";
  if (config.loss === "squared") return "the squared loss";
  return undefined;
}
