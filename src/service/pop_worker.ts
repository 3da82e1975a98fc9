/**
 * Worker side of POP-pruned publishing (`publish_pop.ts`): receives a model file, validation
 * rows, label counts and propensities, runs POP (`src/prune/prune_model.ts`) off the serving
 * thread and posts back the file to publish. Messages: `{id, original, maxWeights?, rows,
 * counts, propensities, options}` → `{id, bytes, pruned, reason}` or `{id, error}`.
 *
 * A published file stays within ε of the unpruned model on the validation rows: POP's λ
 * thresholding is not bounded by ε (it follows the label search), and an automatic publish has
 * no user who chose λ. When the `linear-sparse` file POP gives at the requested λ loses more
 * than ε, the file at the largest λ of POP's λ sweep that stays within ε (the one `prune`
 * reports) is published instead, else the unpruned file; `reason` (and the pruned file's
 * `meta.pop`: `requestedLambda`, `reason`) say which and why. (A `linear-lowrank` model already
 * keeps its original unless its pruned product is within ε.)
 *
 * @module
 */
import { decodeModelFile } from "../../sdk/internal.ts";
import type { ModelFileContent } from "../format/types.ts";
import { encodeModelFile } from "../format/model_file.ts";
import { popDefaults } from "../prune/pop.ts";
import { type PrunedModel, pruneModel, type PruneModelOptions } from "../prune/prune_model.ts";
import { biasOrderMemo } from "../prune/validation.ts";
import { smallestWithin, toleranceShortfall } from "../prune/tolerance.ts";
import type { CutCache } from "../prune/pop.ts";
import type { ValidationRows } from "../prune/validation.ts";

/**
 * A request to the POP worker.
 *
 * @example
 * ```ts
 * import type { PopRequest } from "./pop_worker.ts";
 * function id(r: PopRequest): number { return r.id; }
 * console.log(typeof id); // "function"
 * ```
 */
export interface PopRequest {
  id: number;
  original: Uint8Array;
  /**
   * The most weights to prune (no limit when absent): a `linear-lowrank` model's product
   * (numFeatures × numLabels, built densely), a `linear-sparse` model's nonzero weights.
   */
  maxWeights?: number;
  rows: ValidationRows;
  counts: Float64Array;
  propensities: Float64Array;
  options: PruneModelOptions;
}

/**
 * The worker's answer.
 *
 * @example
 * ```ts
 * import type { PopAnswer } from "./pop_worker.ts";
 * const a: PopAnswer = { id: 1, error: "bad" };
 * console.log(a.id); // 1
 * ```
 */
export type PopAnswer =
  | { id: number; bytes: Uint8Array; pruned: boolean; reason: string }
  | { id: number; error: string };

/**
 * Runs POP for one request (what the worker does with each message).
 *
 * @example
 * ```ts
 * import { answerPop } from "./pop_worker.ts";
 * const a = answerPop({ id: 7, original: new Uint8Array(3), rows: {} as never, counts: new Float64Array(0), propensities: new Float64Array(0), options: {} });
 * console.log(a.id, "error" in a); // 7 true
 * ```
 */
export function answerPop(r: PopRequest): PopAnswer {
  try {
    const content = decodeModelFile(r.original);
    const max = r.maxWeights ?? Infinity;
    if (content.kind === "linear-lowrank" && content.numFeatures * content.numLabels > max) {
      return {
        id: r.id,
        error: `its product W·Hᵀ, ${content.numFeatures} × ${content.numLabels} weights, ` +
          `exceeds the POP limit of ${max}`,
      };
    }
    const nnz = content.kind === "linear-sparse" ? content.tensors.weights?.data.length ?? 0 : 0;
    if (nnz > max) {
      return { id: r.id, error: `its ${nnz} weights exceed the POP limit of ${max}` };
    }
    const cache: CutCache = r.options.cache ?? new Map();
    // one cut memo and one bias order for the prune and withinEpsilon's sweeps of one model
    const options = { ...r.options, cache, biasOrders: r.options.biasOrders ?? biasOrderMemo() };
    const p = pruneModel(content, r.rows, r.counts, r.propensities, options, r.original);
    if (content.kind === "linear-sparse" && p.pruned && !p.withinTolerance) {
      return { id: r.id, ...withinEpsilon(content, r, options, p) };
    }
    return { id: r.id, bytes: p.bytes, pruned: p.pruned, reason: p.reason };
  } catch (e) {
    return { id: r.id, error: (e as Error)?.message ?? String(e) };
  }
}

/**
 * The file to publish when POP's `linear-sparse` file `p` (at the requested λ) is not within ε:
 * the pruned file at the λ of POP's sweep that `prune` names as within ε (the smallest such
 * file, i.e. the largest λ), else the original.
 */
function withinEpsilon(
  content: ModelFileContent,
  r: PopRequest,
  options: PruneModelOptions,
  p: PrunedModel,
): { bytes: Uint8Array; pruned: boolean; reason: string } {
  const { epsilon, lambda, ks } = popDefaults(options);
  const short = toleranceShortfall(p.stored, p.search.baseline, epsilon, ks);
  const why = `at λ = ${lambda} POP's file (${p.search.nnzAfter} of ${p.search.nnzBefore} ` +
    `weights kept) ${short} (ε bounds only POP's label search, not the λ thresholding)`;
  const swept = pruneModel(content, r.rows, r.counts, r.propensities, {
    ...options,
    curve: { epsilons: [] },
  }, r.original);
  const ok = smallestWithin(swept.curve ?? [], p.search.baseline, epsilon, p.originalBytes);
  if (ok !== undefined) {
    const q = pruneModel(
      content,
      r.rows,
      r.counts,
      r.propensities,
      { ...options, lambda: ok.lambda },
      r.original,
    );
    const reason = `${why}: published λ = ${ok.lambda}, the largest λ of the sweep within ε`;
    const meta = q.content.meta ?? {};
    const pop = { ...(meta.pop as Record<string, unknown>), requestedLambda: lambda, reason };
    const bytes = encodeModelFile({ ...q.content, meta: { ...meta, pop } });
    if (q.pruned && q.withinTolerance && bytes.length < p.originalBytes) {
      const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
      return {
        bytes,
        pruned: true,
        reason: `pruned linear-sparse → linear-sparse: the pruned weights (${q.search.nnzAfter} ` +
          `of ${q.search.nnzBefore}, ${kb(bytes.length)}), ${kb(p.originalBytes)} → ` +
          `${kb(bytes.length)}; ${reason}`,
      };
    }
  }
  return {
    bytes: r.original,
    pruned: false,
    reason: `not pruned: ${why}, and no λ of the sweep gives a smaller file within ε`,
  };
}

// Inside a worker: answer every message.
const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<PopRequest>) => void) | null;
  postMessage?: (m: PopAnswer) => void;
  WorkerGlobalScope?: unknown;
};
if (scope.WorkerGlobalScope !== undefined && typeof scope.postMessage === "function") {
  scope.onmessage = (e) => scope.postMessage!(answerPop(e.data));
  // a request that cannot be read (its id with it) is never answered: fail the worker, so that
  // the publish waiting for it goes on unpruned instead of waiting for ever
  (scope as unknown as EventTarget).addEventListener("messageerror", () => {
    throw new Error("a request could not be read");
  });
}
