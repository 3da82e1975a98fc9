/**
 * The label index of the serving thread's replica (issue 15): for the models that can hold the
 * model file's label index (`indexLabels`: LEML, the CoEmbed replica), the replica answers
 * `/predict` from it once it has at least `minLabels` labels (default 4096, the model file's
 * threshold), when enabled (`enabled`, `serve --label-index`: off by default, see below). Built
 * on the serving thread, after the replica is (re)built, never on the learner thread.
 *
 * Cost (2 cores, rank 32, the default calibration): a full build (clustering + probe
 * calibration) took 0.3 s at L = 4096, 0.85 s at 10⁴ and 6.2 s at 10⁵ on unstructured rows, far
 * more than a snapshot interval (100 ms). So a full build runs at most once per
 * max(`minIntervalMs`, 10 × its last cost) (the snapshot spacing rule: at most about a tenth of
 * the serving thread's time), and the replicas in between reuse the last full build's partition
 * and probe counts with their means and spreads recomputed from the new rows
 * (`refreshLabelIndex`, O(L·r): well under a millisecond at 10⁴). Every score stays exact (the
 * search scores the replica's own rows); only the recall may drift until the next full build. A
 * replica whose label count changed waits for the next full build (answering exactly until
 * then); `update` returns when it is due so that the caller can come back.
 *
 * @module
 */
import type { LabelIndex, LabelIndexBuildOptions } from "../models/label_index.ts";

/**
 * A model that can hold a label index (LEML's `LowRankScorer`, `CoEmbedReplica`).
 *
 * @example
 * ```ts
 * import { isLabelIndexed } from "./replica_index.ts";
 * import { LemlStream } from "../models/leml/mod.ts";
 * console.log(isLabelIndexed(new LemlStream({ rank: 2 })), isLabelIndexed({})); // true false
 * ```
 */
export interface LabelIndexedModel {
  /** Labels of the model. */
  readonly numLabels: number;
  /** Builds (or refreshes, with `reuse`) the index; undefined below `minLabels`. */
  indexLabels(options?: LabelIndexBuildOptions): LabelIndex | undefined;
  /** The index, while it describes the model. */
  readonly labelIndex: LabelIndex | undefined;
}

/**
 * Whether `m` can hold a label index.
 *
 * @example
 * ```ts
 * import { isLabelIndexed } from "./replica_index.ts";
 * console.log(isLabelIndexed({ numLabels: 1 })); // false
 * ```
 */
export function isLabelIndexed(m: unknown): m is LabelIndexedModel {
  return typeof (m as LabelIndexedModel | undefined)?.indexLabels === "function";
}

/**
 * Options of {@linkcode ReplicaIndexer}.
 *
 * @example
 * ```ts
 * import type { ReplicaIndexOptions } from "./replica_index.ts";
 * const o: ReplicaIndexOptions = { minLabels: 0 };
 * console.log(o.minLabels); // 0
 * ```
 */
export interface ReplicaIndexOptions {
  /** No index below this many labels. Default 4096. */
  minLabels?: number;
  /** Full builds at most this often (ms). Default 1000. */
  minIntervalMs?: number;
  /**
   * Index the replica (default false: a full build runs on the serving thread and holds
   * `/predict` up for its duration — 0.85 s at 10⁴ labels — so it is opt-in, `serve
   * --label-index`, until the build moves off that thread).
   */
  enabled?: boolean;
}

/**
 * Keeps the replica indexed (see the module doc): call {@linkcode ReplicaIndexer.update} after
 * every replica rebuild or update.
 *
 * @example
 * ```ts
 * import { ReplicaIndexer } from "./replica_index.ts";
 * import { LemlStream } from "../models/leml/mod.ts";
 * const m = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 100 });
 * const ix = new ReplicaIndexer({ enabled: true, minLabels: 50 });
 * console.log(ix.update(m), ix.metrics(m).indexed); // 0 true
 * ```
 */
export class ReplicaIndexer {
  readonly #minLabels: number;
  readonly #minIntervalMs: number;
  readonly #disabled: boolean;
  /** The last full build (its partition is reused until the next one). */
  #last: LabelIndex | undefined;
  #notBefore = -Infinity;
  /** Full builds so far. */
  builds = 0;
  /** Refreshes (the last full build's partition on a newer replica) so far. */
  refreshes = 0;
  /** Milliseconds of the last full build. */
  buildMs = 0;
  /** Milliseconds of the last refresh. */
  refreshMs = 0;
  /** Why the last build failed, if it did (the replica then answers exactly). */
  error: string | undefined;

  /** @param options see {@linkcode ReplicaIndexOptions}. */
  constructor(options: ReplicaIndexOptions = {}) {
    this.#minLabels = options.minLabels ?? 4096;
    this.#minIntervalMs = options.minIntervalMs ?? 1000;
    this.#disabled = !(options.enabled ?? false);
  }

  /**
   * Indexes `model` if it can hold an index, has at least `minLabels` labels and is not indexed
   * yet: a refresh of the last full build when it has the same labels, else a full build when
   * one is due. Returns 0, or the milliseconds until a full build is due (then call again).
   *
   * @example
   * ```ts
   * import { ReplicaIndexer } from "./replica_index.ts";
   * console.log(new ReplicaIndexer().update({})); // 0
   * ```
   */
  update(model: unknown, now: number = performance.now()): number {
    if (this.#disabled || !isLabelIndexed(model) || model.numLabels < this.#minLabels) return 0;
    if (model.labelIndex !== undefined) return 0;
    const L = model.numLabels, minLabels = this.#minLabels;
    try {
      if (this.#last !== undefined && this.#last.numLabels === L) {
        const idx = model.indexLabels({ minLabels, reuse: this.#last });
        if (idx?.reused) {
          this.refreshes++;
          this.refreshMs = idx.buildMs;
          return 0;
        }
      }
      if (now < this.#notBefore) return this.#notBefore - now;
      // the last full build's probe counts when the label count is about the same (calibration
      // is a good part of a build), else calibrated anew
      const last = this.#last, near = last !== undefined && Math.abs(L - last.numLabels) * 4 <= L;
      const probes = near ? { probes: last.probes, groupProbes: last.groupProbes } : {};
      const t0 = performance.now();
      const idx = model.indexLabels({ minLabels, ...probes });
      const ms = performance.now() - t0;
      this.#notBefore = t0 + Math.max(this.#minIntervalMs, 10 * ms);
      if (idx !== undefined) {
        this.#last = idx;
        this.builds++;
        this.buildMs = ms;
      }
      this.error = undefined;
    } catch (e) {
      // never take the serving thread down: answer exactly
      this.error = (e as Error)?.message ?? String(e);
      this.#notBefore = now + this.#minIntervalMs;
    }
    return 0;
  }

  /**
   * What `/metrics` reports (`learnerThread.labelIndex`): whether `model` answers from an index
   * now, its size and probes, and the builds so far with their cost.
   *
   * @example
   * ```ts
   * import { ReplicaIndexer } from "./replica_index.ts";
   * console.log(new ReplicaIndexer().metrics({}).indexed); // false
   * ```
   */
  metrics(model: unknown): Record<string, unknown> {
    const idx = isLabelIndexed(model) ? model.labelIndex : undefined;
    const ms = (x: number) => Math.round(x * 1000) / 1000;
    return {
      indexed: idx !== undefined,
      minLabels: this.#minLabels,
      leaves: idx?.leaves ?? null,
      probes: idx?.probes ?? null,
      builds: this.builds,
      buildMs: ms(this.buildMs),
      refreshes: this.refreshes,
      refreshMs: ms(this.refreshMs),
      error: this.error ?? null,
    };
  }
}
