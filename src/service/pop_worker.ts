/**
 * Worker side of POP-pruned publishing (`publish_pop.ts`): receives a model file, validation
 * rows, label counts and propensities, runs POP (`src/prune/prune_model.ts`) off the serving
 * thread and posts back the file to publish. Messages: `{id, original, maxWeights?, rows,
 * counts, propensities, options}` → `{id, bytes, pruned, reason}` or `{id, error}`.
 *
 * @module
 */
import { decodeModelFile } from "../../sdk/internal.ts";
import { pruneModel, type PruneModelOptions } from "../prune/prune_model.ts";
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
    const p = pruneModel(content, r.rows, r.counts, r.propensities, r.options, r.original);
    return { id: r.id, bytes: p.bytes, pruned: p.pruned, reason: p.reason };
  } catch (e) {
    return { id: r.id, error: (e as Error)?.message ?? String(e) };
  }
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
