/**
 * The per-entry losses of LEML on a score z for a target y ∈ {0, 1}:
 *
 * - `squared`: ½(z − y)² (targets 0/1, so the natural decision threshold is 0.5);
 * - `logistic`: log(1 + e^(−s·z)) with s = 2y − 1 (threshold 0);
 * - `sqhinge`: max(0, 1 − s·z)² (threshold 0).
 *
 * @module
 */

/**
 * Loss names.
 *
 * @example
 * ```ts
 * import type { LemlLoss } from "./loss.ts";
 * const l: LemlLoss = "squared";
 * console.log(l);
 * ```
 */
export type LemlLoss = "squared" | "logistic" | "sqhinge";

/**
 * Checks a loss name (from options or a state), throwing a TypeError naming `where`.
 *
 * @example
 * ```ts
 * import { parseLoss } from "./loss.ts";
 * console.log(parseLoss("logistic", "test")); // "logistic"
 * ```
 */
export function parseLoss(value: unknown, where: string): LemlLoss {
  if (value === "squared" || value === "logistic" || value === "sqhinge") return value;
  throw new TypeError(`${where}: loss must be "squared", "logistic" or "sqhinge", got ${value}`);
}

/**
 * The decision threshold of a loss: a label is predicted when the raw score exceeds it.
 *
 * @example
 * ```ts
 * import { defaultThreshold } from "./loss.ts";
 * console.log(defaultThreshold("squared"), defaultThreshold("logistic")); // 0.5 0
 * ```
 */
export function defaultThreshold(loss: LemlLoss): number {
  return loss === "squared" ? 0.5 : 0;
}

/**
 * Loss value ℓ(z; y).
 *
 * @example
 * ```ts
 * import { lossValue } from "./loss.ts";
 * console.log(lossValue("squared", 3, 1)); // 2
 * ```
 */
export function lossValue(loss: LemlLoss, z: number, y: number): number {
  if (loss === "squared") {
    const r = z - y;
    return 0.5 * r * r;
  }
  const m = (y > 0 ? 1 : -1) * z;
  if (loss === "logistic") return m > 0 ? Math.log1p(Math.exp(-m)) : -m + Math.log1p(Math.exp(m));
  const h = 1 - m;
  return h > 0 ? h * h : 0;
}

/**
 * First derivative ∂ℓ/∂z.
 *
 * @example
 * ```ts
 * import { lossGrad } from "./loss.ts";
 * console.log(lossGrad("squared", 3, 1)); // 2
 * ```
 */
export function lossGrad(loss: LemlLoss, z: number, y: number): number {
  if (loss === "squared") return z - y;
  const s = y > 0 ? 1 : -1;
  const m = s * z;
  if (loss === "logistic") {
    // -s·σ(−m), computed stably
    const e = m > 0 ? Math.exp(-m) / (1 + Math.exp(-m)) : 1 / (1 + Math.exp(m));
    return -s * e;
  }
  const h = 1 - m;
  return h > 0 ? -2 * s * h : 0;
}

/**
 * Second derivative ∂²ℓ/∂z² (the generalised one for the squared hinge).
 *
 * @example
 * ```ts
 * import { lossCurvature } from "./loss.ts";
 * console.log(lossCurvature("logistic", 0, 1)); // 0.25
 * ```
 */
export function lossCurvature(loss: LemlLoss, z: number, y: number): number {
  if (loss === "squared") return 1;
  const m = (y > 0 ? 1 : -1) * z;
  if (loss === "logistic") {
    const p = m > 0 ? 1 / (1 + Math.exp(-m)) : Math.exp(m) / (1 + Math.exp(m));
    return p * (1 - p);
  }
  return 1 - m > 0 ? 2 : 0;
}
