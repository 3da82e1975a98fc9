/**
 * POP-pruned publishing for the learning service: a {@linkcode ModelBuilder} that builds the
 * model file, then runs POP (`src/prune/prune_model.ts`) in a worker (`pop_worker.ts`, so
 * serving never waits for it) with the latest applied events as the validation rows, the applied
 * label counts and their propensities. POP decides which file is published, always one within ε
 * of the unpruned model's validation PSP@k: a BR (`linear-sparse`) model is replaced by its
 * pruned weights; when the λ thresholding loses more than ε (ε bounds only POP's label search),
 * by its pruned weights at the largest λ of POP's sweep that is within ε, else not at all; a
 * LEML (`linear-lowrank`) model by its pruned product W·Hᵀ only when that is smaller and within
 * ε. Otherwise the original file is published; `note` (and a pruned file's `meta.pop`) says why.
 *
 * The validation rows have already been learned (the stream gives no held-out rows), so the
 * tolerance is checked on rows the model has seen; the pruned file's `meta.pop` records the
 * numbers.
 *
 * @module
 */
import { examplesToBatch } from "../data/batcher.ts";
import type { Example } from "../data/types.ts";
import { propensities } from "../metrics/propensity.ts";
import type { ValidationRows } from "../prune/validation.ts";
import type { PopAnswer, PopRequest } from "./pop_worker.ts";
import type { BuiltModel, ModelBuilder, PublishContext } from "./service.ts";

/**
 * Options of {@linkcode popModelBuilder}.
 *
 * @example
 * ```ts
 * import type { PopPublishOptions } from "./publish_pop.ts";
 * const o: PopPublishOptions = { epsilon: 0.01, lambda: 0.01, delta: 5 };
 * console.log(o.delta); // 5
 * ```
 */
export interface PopPublishOptions {
  /** Relative PSP@k tolerance (default 0.01). */
  epsilon?: number;
  /**
   * Weights in [−√λ, √λ] are dropped (default 0.01); when that loses more than ε, the largest λ
   * of POP's sweep that does not (see the module doc).
   */
  lambda?: number;
  /** Weights every label keeps at least (default 5). */
  delta?: number;
  /** Fewest validation rows needed to prune (default 200); with fewer the file is unpruned. */
  minValidationRows?: number;
  /**
   * The most weights POP is run on (default 5e7): a `linear-lowrank` model's product W·Hᵀ, built
   * densely (numFeatures × numLabels), or a `linear-sparse` model's nonzero weights.
   */
  maxWeights?: number;
}

/**
 * The validation rows of `events`, restricted to a model's feature and label spaces (events
 * left without a label are dropped).
 *
 * @example
 * ```ts
 * import { validationRows } from "./publish_pop.ts";
 * const e = { x: { indices: Int32Array.of(0, 9), values: Float32Array.of(1, 1) }, labels: Int32Array.of(1, 7) };
 * const r = validationRows([e], 5, 3);
 * console.log(r.x.numRows, [...r.x.indices], [...r.y.indices]); // 1 [ 0 ] [ 1 ]
 * ```
 */
export function validationRows(
  events: readonly Example[],
  numFeatures: number,
  numLabels: number,
): ValidationRows {
  const clipped: Example[] = [];
  for (const e of events) {
    let nx = e.x.indices.length;
    while (nx > 0 && e.x.indices[nx - 1] >= numFeatures) nx--;
    let ny = e.labels.length;
    while (ny > 0 && e.labels[ny - 1] >= numLabels) ny--;
    if (ny === 0) continue;
    clipped.push({
      x: { indices: e.x.indices.subarray(0, nx), values: e.x.values.subarray(0, nx) },
      labels: e.labels.subarray(0, ny),
    });
  }
  const b = examplesToBatch(clipped, numFeatures, numLabels);
  return { x: b.x, y: b.y };
}

/**
 * A {@linkcode ModelBuilder} publishing POP-pruned model files (see the module doc). Models POP
 * cannot prune (kNN, random features), models with more weights than `maxWeights`, and too few
 * validation rows give the unpruned file; `note` says what happened. Call `close()` to stop its
 * worker.
 *
 * @example
 * ```ts
 * import { factory } from "../models/br/mod.ts";
 * import { popModelBuilder } from "./publish_pop.ts";
 * const m = factory.create({ seed: 1 });
 * const ev = (j: number, l: number) => ({ x: { indices: Int32Array.of(j), values: Float32Array.of(1) }, labels: Int32Array.of(l) });
 * const events = Array.from({ length: 40 }, (_, i) => ev(i % 4, i % 2));
 * for (const e of events) m.learnOne(e.x, e.labels);
 * const builder = popModelBuilder({ minValidationRows: 10 });
 * const out = await builder.build({
 *   estimator: m, labelNames: ["a", "b"], labelCounts: Float64Array.of(20, 20), applied: 40,
 *   meta: {}, validation: events,
 * });
 * builder.close?.();
 * console.log(out.bytes.length > 0, typeof out.note); // true "string"
 * ```
 */
export function popModelBuilder(options: PopPublishOptions = {}): ModelBuilder {
  const minRows = options.minValidationRows ?? 200;
  const maxWeights = options.maxWeights ?? 5e7;
  let worker: Worker | undefined;
  let nextId = 0;
  const waiting = new Map<number, (a: PopAnswer) => void>();
  const runInWorker = (req: Omit<PopRequest, "id">): Promise<PopAnswer> => {
    if (worker === undefined) {
      const w = new Worker(new URL("./pop_worker.ts", import.meta.url).href, { type: "module" });
      worker = w;
      w.onmessage = (e: MessageEvent<PopAnswer>) => {
        const done = waiting.get(e.data.id);
        waiting.delete(e.data.id);
        done?.(e.data);
      };
      // the worker is lost (its error, or an answer that cannot be read, which would leave its
      // publish waiting for ever): every build waiting publishes its file unpruned, saying why
      const lost = (why: string) => {
        if (worker !== w) return;
        w.terminate();
        worker = undefined; // a new one at the next build
        for (const [id, done] of waiting) done({ id, error: `POP worker failed: ${why}` });
        waiting.clear();
      };
      w.onerror = (e) => {
        e.preventDefault();
        lost(e.message);
      };
      w.onmessageerror = () => lost("an answer could not be read");
    }
    const id = nextId++;
    return new Promise<PopAnswer>((resolve) => {
      waiting.set(id, resolve);
      worker!.postMessage({ id, ...req });
    });
  };
  return {
    async build(c: PublishContext): Promise<BuiltModel> {
      const est = c.estimator;
      const meta = { ...c.meta };
      const plain = () =>
        est.toModelFile({ labelNames: c.labelNames, featureSpace: c.featureSpace, meta });
      const unpruned = (why: string): BuiltModel => {
        meta.pop = { pruned: false, reason: why };
        return { bytes: plain(), pruned: false, note: why };
      };
      const D = est.numFeatures, L = est.numLabels;
      const rows = validationRows(c.validation, D, L);
      if (rows.x.numRows < minRows) {
        return unpruned(`not pruned: ${rows.x.numRows} validation events (need ${minRows})`);
      }
      const original = plain();
      const counts = c.labelCounts.slice(0, L);
      const answer = await runInWorker({
        original,
        maxWeights,
        rows,
        counts,
        propensities: propensities(counts, Math.max(1, c.applied)),
        options: {
          epsilon: options.epsilon,
          lambda: options.lambda,
          delta: options.delta,
          meta: { validation: `${rows.x.numRows} latest applied events` },
        },
      });
      if ("error" in answer) {
        // Not a POP-able model (kNN, random features) or bad rows: publish it unpruned.
        return { bytes: original, pruned: false, note: `not pruned: ${answer.error}` };
      }
      return { bytes: answer.bytes, pruned: answer.pruned, note: answer.reason };
    },
    close() {
      worker?.terminate();
      worker = undefined;
      for (const [id, done] of waiting) done({ id, error: "the POP worker was closed" });
      waiting.clear();
    },
  };
}
