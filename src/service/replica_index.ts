/**
 * The label index of the serving thread's replica (issue 15): for the models that can hold the
 * model file's label index (`indexLabels`: LEML, the CoEmbed replica), the replica answers
 * `/predict` from it once it has at least `minLabels` labels (default 4096, the model file's
 * threshold), unless disabled (`enabled: false`, `serve --no-label-index`). Never built on the
 * learner thread.
 *
 * Cost (2 cores, rank 32, the default calibration): a full build (clustering + probe
 * calibration) took 0.3 s at L = 4096, 0.85 s at 10⁴ and 6.2 s at 10⁵ on unstructured rows, far
 * more than a snapshot interval (100 ms). So a full build runs on a worker of its own
 * (./index_worker.ts, started at the first build, ended by {@linkcode ReplicaIndexer.close}):
 * the serving thread posts a copy of the replica's rows and biases (as the index uses them) and
 * goes on answering; when the partition comes back it becomes the "last full build" and is
 * applied to the current replica by a refresh. A full build runs at most once per
 * max(`minIntervalMs`, 10 × its last cost) (the snapshot spacing rule: at most about a tenth of
 * a core), one at a time, and the replicas in between — and while a build is in flight — reuse
 * the last full build's partition and probe counts with their means and spreads recomputed
 * from the new rows (`refreshLabelIndex`, O(L·r): well under a millisecond at 10⁴, on the
 * serving thread). Every score stays exact (the search scores the replica's own rows); only the
 * recall may drift until the next full build. A replica whose label count differs from the last
 * full build's answers exactly until a full build of its count comes back (the indexer asks
 * for one by itself when due). A failed build (`error` in {@linkcode ReplicaIndexer.metrics})
 * never takes the service down: the replica answers exactly and a build is asked again after
 * `minIntervalMs`.
 *
 * With `worker: false` (tests, tools) the full build runs synchronously in
 * {@linkcode ReplicaIndexer.update}, which then returns when the next one is due.
 *
 * @module
 */
import type {
  LabelIndex,
  LabelIndexBuildOptions,
  LabelIndexInput,
  LabelIndexPartition,
} from "../models/label_index.ts";
import type { IndexBuildReply, IndexBuildRequest } from "./index_worker.ts";
import { booleanOption, checkOptionKeys, numberOption, typed } from "../data/option_check.ts";
import { MAX_INT32 as INT32, MAX_TIMER_MS } from "./option_rules.ts";

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
  /** What the index is built from (the rows and biases as it uses them; may be views). */
  labelIndexInput(): LabelIndexInput;
}

/**
 * Whether `m` can hold a label index.
 *
 * @example
 * ```ts
 * import { isLabelIndexed } from "./replica_index.ts";
 * console.log(isLabelIndexed({ numLabels: 1 }), isLabelIndexed({ indexLabels() {} })); // false false
 * ```
 */
export function isLabelIndexed(m: unknown): m is LabelIndexedModel {
  const x = m as LabelIndexedModel | undefined;
  return typeof x?.indexLabels === "function" && typeof x?.labelIndexInput === "function";
}

/**
 * Options of {@linkcode ReplicaIndexer}.
 *
 * @example
 * ```ts
 * import type { ReplicaIndexOptions } from "./replica_index.ts";
 * const o: ReplicaIndexOptions = { minLabels: 0, worker: false };
 * console.log(o.minLabels); // 0
 * ```
 */
export interface ReplicaIndexOptions {
  /** No index below this many labels. Default 4096. */
  minLabels?: number;
  /** Full builds at most this often (ms). Default 1000. */
  minIntervalMs?: number;
  /** Index the replica. Default true (`serve --no-label-index`: false). */
  enabled?: boolean;
  /**
   * Run the full builds on a worker of their own (default true). False: synchronously in
   * {@linkcode ReplicaIndexer.update}, on the calling thread (tests, tools).
   */
  worker?: boolean;
  /** The worker's module. Default ./index_worker.ts (tests give another). */
  workerUrl?: URL;
}

/** A build posted to the worker and not answered yet. */
interface InFlight {
  id: number;
  /** `performance.now()` when it was posted. */
  at: number;
}

/**
 * Keeps the replica indexed (see the module doc): call {@linkcode ReplicaIndexer.update} after
 * every replica rebuild or update, and {@linkcode ReplicaIndexer.close} at the end.
 *
 * @example
 * ```ts
 * import { ReplicaIndexer } from "./replica_index.ts";
 * import { LemlStream } from "../models/leml/mod.ts";
 * const m = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 100 });
 * const ix = new ReplicaIndexer({ minLabels: 50 });
 * ix.update(m); // posts a full build to the worker
 * await ix.whenIdle(); // back: applied to the last model given
 * console.log(ix.metrics(m).indexed, ix.builds); // true 1
 * ix.close();
 * ```
 */
export class ReplicaIndexer {
  readonly #minLabels: number;
  readonly #minIntervalMs: number;
  readonly #disabled: boolean;
  readonly #useWorker: boolean;
  readonly #workerUrl: URL;
  /** The last full build (its partition is reused until the next one). */
  #last: LabelIndexPartition | undefined;
  #notBefore = -Infinity;
  #worker: Worker | undefined;
  #inFlight: InFlight | undefined;
  #nextId = 1;
  /** The last model given to `update` (the worker's builds are applied to it). */
  #current: LabelIndexedModel | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #idle: (() => void)[] = [];
  /** Full builds so far. */
  builds = 0;
  /** Refreshes (the last full build's partition on a newer replica) so far. */
  refreshes = 0;
  /** Milliseconds of the last full build (on the worker, with one). */
  buildMs = 0;
  /** Milliseconds of the last refresh. */
  refreshMs = 0;
  /** Why the last build failed, if it did (the replica then answers exactly). */
  error: string | undefined;

  /**
   * @param options see {@linkcode ReplicaIndexOptions}.
   * @throws {TypeError} for an unknown key or a value of the wrong type; {RangeError} for a
   * value out of range (see `checkIndexOptions` in `service_options.ts`)
   */
  constructor(options: ReplicaIndexOptions = {}) {
    checkIndexOptions("ReplicaIndexer", options);
    this.#minLabels = options.minLabels ?? 4096;
    this.#minIntervalMs = options.minIntervalMs ?? 1000;
    this.#disabled = !(options.enabled ?? true);
    this.#useWorker = options.worker ?? true;
    this.#workerUrl = options.workerUrl ?? new URL("./index_worker.ts", import.meta.url);
  }

  /**
   * Whether a full build is on the worker now.
   *
   * @example
   * ```ts
   * import { ReplicaIndexer } from "./replica_index.ts";
   * console.log(new ReplicaIndexer().inFlight); // false
   * ```
   */
  get inFlight(): boolean {
    return this.#inFlight !== undefined;
  }

  /**
   * Indexes `model` if it can hold an index, has at least `minLabels` labels and is not indexed
   * yet: a refresh of the last full build when it has the same labels, else a full build when
   * one is due and none is in flight — posted to the worker (then applied to the last model
   * given here when it comes back; the indexer comes back by itself when a build is due later),
   * or, with `worker: false`, run here. Returns 0, or (`worker: false` only) the milliseconds
   * until a full build is due (then call again).
   *
   * @example
   * ```ts
   * import { ReplicaIndexer } from "./replica_index.ts";
   * console.log(new ReplicaIndexer().update({})); // 0
   * ```
   */
  update(model: unknown, now: number = performance.now()): number {
    if (this.#disabled || this.#closed || !isLabelIndexed(model)) return 0;
    if (this.#useWorker) this.#current = model;
    if (model.numLabels < this.#minLabels || model.labelIndex !== undefined) return 0;
    const L = model.numLabels, minLabels = this.#minLabels;
    try {
      const last = this.#last;
      if (last !== undefined && last.numLabels === L) {
        const idx = model.indexLabels({ minLabels, reuse: last });
        if (idx?.reused) {
          this.refreshes++;
          this.refreshMs = idx.buildMs;
          return 0;
        }
      }
      if (this.#inFlight !== undefined) return 0; // its answer comes back here
      if (now < this.#notBefore) {
        if (!this.#useWorker) return this.#notBefore - now;
        this.#comeBack(this.#notBefore - now);
        return 0;
      }
      // the last full build's probe counts when the label count is about the same (calibration
      // is a good part of a build), else calibrated anew
      const near = last !== undefined && Math.abs(L - last.numLabels) * 4 <= L;
      const probes = near
        ? { probes: last.params.mipsProbes, groupProbes: last.params.mipsGroupProbes }
        : {};
      if (this.#useWorker) {
        this.#post(model.labelIndexInput(), { minLabels, ...probes });
        return 0;
      }
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
      this.#failed((e as Error)?.message ?? String(e));
    }
    return 0;
  }

  /**
   * Resolves when no full build is in flight (at once if none is): by then a build that came
   * back has been applied to the last model given to {@linkcode ReplicaIndexer.update}.
   *
   * @example
   * ```ts
   * import { ReplicaIndexer } from "./replica_index.ts";
   * await new ReplicaIndexer().whenIdle();
   * console.log("idle"); // idle
   * ```
   */
  whenIdle(): Promise<void> {
    if (this.#inFlight === undefined) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * Ends the worker (an answer in flight is dropped) and the indexer: later updates do nothing
   * (the replica answers from the index it holds, else exactly).
   *
   * @example
   * ```ts
   * import { ReplicaIndexer } from "./replica_index.ts";
   * const ix = new ReplicaIndexer();
   * ix.close();
   * console.log(ix.inFlight); // false
   * ```
   */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#inFlight = undefined;
    this.#current = undefined;
    this.#settle();
  }

  /** Posts a full build of `input` (copied) to the worker, started if need be. */
  #post(input: LabelIndexInput, options: IndexBuildRequest["options"]): void {
    const L = input.numLabels, r = input.rank;
    const rows = input.rows.slice(0, L * r), bias = input.bias?.slice(0, L);
    const request: IndexBuildRequest = { ...input, id: this.#nextId++, rows, bias, options };
    const worker = this.#worker ?? this.#startWorker();
    this.#inFlight = { id: request.id, at: performance.now() };
    // not sooner than this after a failure to answer, whatever happens
    this.#notBefore = this.#inFlight.at + this.#minIntervalMs;
    try {
      worker.postMessage(request, bias ? [rows.buffer, bias.buffer] : [rows.buffer]);
    } catch (e) {
      this.#inFlight = undefined;
      throw e;
    }
  }

  #startWorker(): Worker {
    const worker = new Worker(this.#workerUrl, { type: "module" });
    worker.onmessage = (e: MessageEvent<IndexBuildReply>) => this.#receive(e.data);
    const lost = (message: string) => {
      if (this.#worker !== worker) return;
      worker.terminate();
      this.#worker = undefined; // a new one at the next build
      this.#inFlight = undefined;
      this.#failed(`index worker failed: ${message}`);
      this.#retry();
    };
    worker.onerror = (e) => {
      e.preventDefault();
      lost(e.message);
    };
    worker.onmessageerror = () => lost("an answer could not be read");
    this.#worker = worker;
    return worker;
  }

  /** The worker's answer: adopted as the last full build, applied to the current replica. */
  #receive(reply: IndexBuildReply): void {
    const sent = this.#inFlight;
    if (this.#closed || sent === undefined || reply.id !== sent.id) return;
    this.#inFlight = undefined;
    if (reply.error !== undefined) {
      this.#failed(reply.error);
    } else {
      const ms = reply.buildMs ?? 0;
      this.#notBefore = sent.at + Math.max(this.#minIntervalMs, 10 * ms);
      if (reply.partition !== undefined) {
        this.#last = reply.partition;
        this.builds++;
        this.buildMs = ms;
      }
      this.error = undefined;
    }
    this.#retry();
  }

  /** Records a failed build: answer exactly, try again after `minIntervalMs`. */
  #failed(message: string): void {
    this.error = message;
    this.#notBefore = performance.now() + this.#minIntervalMs;
  }

  /** Indexes the current replica again (a refresh, or a build when due), then settles. */
  #retry(): void {
    if (this.#current !== undefined) this.update(this.#current);
    this.#settle();
  }

  /** Comes back to the current replica in `ms` (one timer at most). */
  #comeBack(ms: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#current !== undefined) this.update(this.#current);
    }, ms);
  }

  /** Resolves the `whenIdle` promises when nothing is in flight. */
  #settle(): void {
    if (this.#inFlight !== undefined) return;
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }

  /**
   * What `/metrics` reports (`learnerThread.labelIndex`): whether `model` answers from an index
   * now, its size and probes, the builds so far with their cost and whether one is in flight.
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
      inFlight: this.#inFlight !== undefined,
      error: this.error ?? null,
    };
  }
}

const INDEX_KEYS = [
  "minLabels",
  "minIntervalMs",
  "enabled",
  "worker",
  "workerUrl",
] as const satisfies readonly (keyof ReplicaIndexOptions)[];

/**
 * Checks the replica's label-index options ({@linkcode ReplicaIndexOptions}) and returns them
 * (an empty object for undefined).
 *
 * @throws {TypeError} for a non-object, an unknown key or a value of the wrong type (e.g.
 * `enabled: "false"`)
 * @throws {RangeError} for `minLabels` outside [0, 2^31 − 1] or `minIntervalMs` outside
 * [0, 2^31 − 1] ms
 *
 * @example
 * ```ts
 * import { checkIndexOptions } from "./replica_index.ts";
 * try {
 *   checkIndexOptions("demo", { enabled: "false" });
 * } catch (e) {
 *   console.log((e as Error).message); // demo: option enabled must be true or false, got "false"
 * }
 * ```
 */
export function checkIndexOptions(where: string, options: unknown): ReplicaIndexOptions {
  const o = checkOptionKeys(where, options as ReplicaIndexOptions, INDEX_KEYS);
  numberOption(where, "minLabels", o.minLabels, 4096, 0, INT32, true);
  numberOption(where, "minIntervalMs", o.minIntervalMs, 1000, 0, MAX_TIMER_MS);
  booleanOption(where, "enabled", o.enabled, true);
  booleanOption(where, "worker", o.worker, true);
  typed(where, "workerUrl", o.workerUrl, "a URL", o.workerUrl instanceof URL);
  return o;
}
