/**
 * How a pruned model stands against POP's tolerance ε, in words: which PSP@k it loses more than
 * ε of, and which λ of a sweep would have stayed within ε.
 *
 * @module
 */
import type { CurvePoint } from "./curve.ts";
import { withinTolerance } from "./pop.ts";

/**
 * The first PSP@k that `psp` loses more than ε of against `baseline`, as a phrase, or undefined
 * when every PSP@k is within the tolerance.
 *
 * @example
 * ```ts
 * import { toleranceShortfall } from "./tolerance.ts";
 * console.log(toleranceShortfall([27, 35], [37, 35], 0.01, [1, 3]));
 * // loses 27.0% of validation PSP@1 (37.00 → 27.00), more than ε = 1%
 * console.log(toleranceShortfall([36.9, 35], [37, 35], 0.01, [1, 3])); // undefined
 * ```
 */
export function toleranceShortfall(
  psp: readonly number[],
  baseline: readonly number[],
  epsilon: number,
  ks: readonly number[],
): string | undefined {
  const i = psp.findIndex((v, j) => v < (1 - epsilon) * baseline[j] - 1e-9);
  if (i < 0) return undefined;
  const drop = 100 * (1 - psp[i] / baseline[i]);
  return `loses ${drop.toFixed(1)}% of validation PSP@${ks[i]} (${baseline[i].toFixed(2)} → ${
    psp[i].toFixed(2)
  }), more than ε = ${Number((100 * epsilon).toPrecision(6))}%`;
}

/**
 * The smallest point of the λ sweep that is within ε of `baseline` on every PSP@k and smaller
 * than `maxBytes`, if any.
 *
 * @example
 * ```ts
 * import { smallestWithin } from "./tolerance.ts";
 * const pts = [
 *   { sweep: "lambda" as const, epsilon: 0.01, lambda: 0, numPrunedLabels: 1, nnz: 9, bytes: 900, psp: [50] },
 *   { sweep: "lambda" as const, epsilon: 0.01, lambda: 0.1, numPrunedLabels: 1, nnz: 3, bytes: 300, psp: [40] },
 * ];
 * console.log(smallestWithin(pts, [50], 0.01, 1000)?.lambda); // 0
 * ```
 */
export function smallestWithin(
  curve: readonly CurvePoint[],
  baseline: readonly number[],
  epsilon: number,
  maxBytes: number,
): CurvePoint | undefined {
  return curve
    .filter((c) =>
      c.sweep === "lambda" && c.bytes < maxBytes && withinTolerance(c.psp, baseline, epsilon)
    )
    .sort((a, b) => a.bytes - b.bytes)[0];
}

/**
 * Why a model POP pruned (`pruned: true`) can still have `withinTolerance: false`: ε bounds the
 * label search only (POP's Algorithm 2); the λ thresholding that follows may lose more. Returns
 * that explanation with the shortfall and, given a λ sweep, the λ that would stay within ε — or
 * undefined when the model is within the tolerance.
 *
 * @example
 * ```ts
 * import { thresholdingNote } from "./tolerance.ts";
 * const note = thresholdingNote([40], [50], { epsilon: 0.01, lambda: 0.1, ks: [1] });
 * console.log(note?.startsWith("withinTolerance is false: the label cut kept")); // true
 * console.log(thresholdingNote([50], [50], { epsilon: 0.01, lambda: 0.1, ks: [1] })); // undefined
 * ```
 */
export function thresholdingNote(
  psp: readonly number[],
  baseline: readonly number[],
  o: {
    epsilon: number;
    lambda: number;
    ks: readonly number[];
    curve?: readonly CurvePoint[];
    maxBytes?: number;
  },
): string | undefined {
  const short = toleranceShortfall(psp, baseline, o.epsilon, o.ks);
  if (short === undefined) return undefined;
  let note = `withinTolerance is false: the label cut kept validation PSP@k within ε, but ` +
    `dropping the weights in [−√λ, √λ] (λ = ${o.lambda}) ${short}; ε bounds only the label ` +
    `search (POP's Algorithm 2), so the pruned model is written — for a model within ε, use a ` +
    `smaller --lambda`;
  if (o.curve) {
    const ok = smallestWithin(o.curve, baseline, o.epsilon, o.maxBytes ?? Infinity);
    note += ok
      ? ` (λ = ${ok.lambda} of the sweep: ${(ok.bytes / 1000).toFixed(1)} kB, within ε)`
      : " (no λ of the sweep is within ε)";
  }
  return note;
}
