/**
 * The test-then-train core of the learning service: accepted events are queued and learned in
 * minibatches of a fixed size; each event is first scored by the model before its batch (its
 * top 5 feeds the prequential window), then learned.
 * The whole learner (model state, vocabularies, queued events, counts, window, stream position)
 * goes into one checkpoint object, so a restore continues exactly where the checkpoint was taken.
 *
 * Why one file of more than 500 lines: `StreamLearner` is one class whose checkpoint, replica and
 * incremental-checkpoint methods all read its private state (model, vocabularies, queued events,
 * counts, id window); its types (learner_types.ts), the delta checks (learner_checks.ts,
 * checkpoint_fields.ts), the checkpoint delta (checkpoint_delta.ts) and the dirty-label sets
 * (dirty_labels.ts) stand alone.
 *
 * @module
 */
import type { Batch, Example, SparseVector } from "../data/types.ts";
import { type PackedNames, Vocabulary } from "../data/vocabulary.ts";
import { examplesToBatch } from "../data/batcher.ts";
import type { Estimator, EstimatorFactory, ModelState, TopK } from "../models/estimator.ts";
import { UNLIMITED } from "../models/space_limits.ts";
import { type EventLimits, EventParser } from "./events.ts";
import { PrequentialWindow } from "../metrics/prequential.ts";
import { DEFAULT_ID_WINDOW, IdWindow } from "./id_window.ts";
import { DeltaMarks } from "./delta_marks.ts";
import { CHECKPOINT_DELTA_FORMAT, type CheckpointDelta } from "./checkpoint_delta.ts";
import {
  CHECKPOINT_FORMAT,
  CHECKPOINT_VERSION,
  DELTA_FORMAT,
  type IngestLineResult,
  type LearnerCheckpoint,
  type LearnerDelta,
  type LearnerOptions,
  type Reject,
  type ReplicaDelta,
  type StreamPosition,
} from "./learner_types.ts";
import { chainId, checkLabelCounts, newNames, pendingFrom } from "./learner_checks.ts";
import { checkLearnerOptions } from "./service_options.ts";
import { numberOption, shown } from "../data/option_check.ts";
import { jsonScore } from "../../sdk/internal.ts";
import {
  checkCheckpointDeltaFields,
  checkCheckpointFields,
  CheckpointFieldError,
  CheckpointKindError,
  checkpointPart,
  NotACheckpointError,
} from "./checkpoint_fields.ts";
export type {
  IngestLineResult,
  LearnerCheckpoint,
  LearnerOptions,
  Reject,
  ReplicaDelta,
  StreamPosition,
};

const WHERE = "StreamLearner.fromCheckpoint";

/** The prequential window's k (P@1 and P@5 come from each event's top 5). */
const PREQUENTIAL_K = 5;

/**
 * A model that scores a minibatch and learns it in one pass (e.g. LEML streaming:
 * `LemlStream.scoreThenLearn`): the top `k` of each row under the model before the batch, then
 * the same update as `learnMany(batch)`.
 *
 * @example
 * ```ts
 * import type { ScoreThenLearn } from "./learner.ts";
 * import { LemlStream } from "../models/leml/stream.ts";
 * const m: ScoreThenLearn = new LemlStream({ rank: 2 });
 * console.log(typeof m.scoreThenLearn); // "function"
 * ```
 */
export interface ScoreThenLearn {
  scoreThenLearn(batch: Batch, k: number): TopK[];
}

function hasScoreThenLearn(e: Estimator): e is Estimator & ScoreThenLearn {
  return typeof (e as Partial<ScoreThenLearn>).scoreThenLearn === "function";
}

/** Two independent 32-bit FNV-1a style hashes of a string. */
function hashId(s: string): [number, number] {
  let a = 0x811c9dc5, b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return [a >>> 0, b >>> 0];
}

/**
 * Test-then-train learner over validated events.
 *
 * @example
 * ```ts
 * import { factory } from "../models/leml/mod.ts";
 * import { StreamLearner } from "./learner.ts";
 * const l = StreamLearner.create(factory, { batchSize: 2, modelOptions: { seed: 1, rank: 4 } });
 * l.ingestLine('{"features": {"0": 1}, "labels": ["a"]}', "demo", 1);
 * l.ingestLine('{"features": {"1": 1}, "labels": ["b"]}', "demo", 2);
 * console.log(l.applied, l.learned, l.estimator.numLabels); // 2 2 2
 * ```
 */
export class StreamLearner {
  /** The factory of the model. */
  readonly factory: EstimatorFactory;
  /** Validates lines and owns the vocabularies. */
  readonly parser: EventParser;
  #window: PrequentialWindow;
  /** Events per learned minibatch. */
  readonly batchSize: number;
  readonly #limits: EventLimits;
  #estimator: Estimator;
  #pending: Example[] = [];
  #digest: [number, number] = [0, 0];
  #ids: IdWindow;
  #labelCounts: Float64Array;
  #recent: Example[] = [];
  #recentNext = 0;
  /** How many of the latest labelled events {@linkcode StreamLearner.recentEvents} keeps (0: none). */
  recentCapacity = 0;
  /** Events accepted and applied (learned, or queued for the next batch). */
  applied = 0;
  /**
   * Events taken from the queue and learned (applied minus queued). One the model refused when
   * its batch was learned counts here too, and as a rejection from source "learner".
   */
  learned = 0;
  /** Lines rejected since the stream began. */
  rejected = 0;
  /** Valid events not applied because their id was in the deduplication window. */
  duplicates = 0;
  /** The last rejected lines (at most 20; not checkpointed). */
  readonly lastRejects: Reject[] = [];
  /** Position in the sources, covering every applied event. */
  position: StreamPosition = {};
  /** Version of the last published model file (0: none). */
  modelVersion = 0;
  // replica deltas: the learner's sequence number (or the replica's), and what changed since
  #replicaSeq = 0;
  #replicaMarks = new DeltaMarks();
  // incremental checkpoints (see toCheckpointBase): the chain's id ("" before any base) and
  // sequence number, whether deltas are logged, and the marks of what changed since
  #chain = "";
  #chainSeq = 0;
  #ckMarks = new DeltaMarks();
  #ckIds = 0;

  private constructor(
    factory: EstimatorFactory,
    estimator: Estimator,
    parser: EventParser,
    window: PrequentialWindow,
    batchSize: number,
    limits: EventLimits,
    ids: IdWindow,
  ) {
    this.factory = factory;
    this.#ids = ids;
    this.#estimator = estimator;
    this.parser = parser;
    this.#window = window;
    this.batchSize = batchSize;
    this.#limits = limits;
    this.#labelCounts = new Float64Array(Math.max(16, parser.labels.size));
  }

  /**
   * A fresh learner with a new model.
   *
   * @throws {TypeError} for an unknown option key or a value of the wrong type
   * @throws {RangeError} for a value out of range (see `checkLearnerOptions` in
   * `service_options.ts`)
   *
   * @example
   * ```ts
   * import { factory } from "../models/popularity/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * const l = StreamLearner.create(factory, { labelNames: ["x", "y"] });
   * console.log(l.parser.labels.size, l.batchSize); // 2 32
   * ```
   */
  static create(factory: EstimatorFactory, options: LearnerOptions = {}): StreamLearner {
    checkLearnerOptions("StreamLearner.create", options);
    const batchSize = options.batchSize ?? 32;
    const limits = { ...(options.limits ?? {}) };
    const parser = new EventParser(options.featureNames, options.labelNames, limits);
    return new StreamLearner(
      factory,
      factory.create({ ...unlimited(factory), ...(options.modelOptions ?? {}) }),
      parser,
      new PrequentialWindow(options.windowSize ?? 1000),
      batchSize,
      limits,
      new IdWindow(options.dedupWindow ?? DEFAULT_ID_WINDOW),
    );
  }

  /**
   * Rebuilds a learner from {@linkcode StreamLearner.toCheckpoint} output (decoded). The batch
   * size, window and limits come from the checkpoint, so batches stay aligned after a restart.
   * With `adopt`, the model may keep the checkpoint's typed arrays (the caller gives them up).
   * `dedupWindow` resizes the deduplication window (a smaller one keeps the newest ids; default:
   * the checkpoint's size, or 1,000,000 for a checkpoint without a window).
   *
   * @throws {NotACheckpointError} (a TypeError) when it is not a checkpoint, with why
   * @throws {CheckpointKindError} (a TypeError) for a checkpoint of another model kind, naming both
   * @throws {RangeError} for a checkpoint version this code does not read
   * @throws {CheckpointFieldError} (a SyntaxError) naming the field of a damaged or foreign
   * checkpoint: missing, of the wrong type, or not agreeing with the others (see
   * `checkpoint_fields.ts`)
   *
   * @example
   * ```ts
   * import { factory } from "../models/popularity/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * const a = StreamLearner.create(factory, { batchSize: 4 });
   * a.ingestLine('{"features": {"0": 1}, "labels": ["a"]}', "demo", 1);
   * const b = StreamLearner.fromCheckpoint(factory, a.toCheckpoint());
   * console.log(b.applied, b.pendingCount, b.batchSize); // 1 1 4
   * ```
   */
  static fromCheckpoint(
    factory: EstimatorFactory,
    ck: LearnerCheckpoint,
    options: { adopt?: boolean; dedupWindow?: number } = {},
  ): StreamLearner {
    const steps = StreamLearner.fromCheckpointSteps(factory, ck, options);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }

  /**
   * {@linkcode StreamLearner.fromCheckpoint} in steps, for the serving thread's replica: the
   * generator yields after about `step` names added or values restored (the model's part in
   * steps when its factory has `restoreSteps`, e.g. "ova"; in one step otherwise) and returns
   * the same learner. The checkpoint must not change meanwhile. With `names`, the
   * vocabularies' names come packed ({@linkcode packNames}; the checkpoint's `features` and
   * `labels` are then empty): one string crosses the threads instead of 10⁶ (whose clone took
   * 70-240 ms, and the maps built from them up to a second, in one go).
   *
   * @throws {TypeError|RangeError|SyntaxError} (from `next()`) as
   * {@linkcode StreamLearner.fromCheckpoint} does (a name twice or past the limit in `names`:
   * a {@linkcode CheckpointFieldError} naming `labels` or `features`)
   *
   * @example
   * ```ts
   * import { factory } from "../models/ova/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * import { packNames } from "../data/vocabulary.ts";
   * const l = StreamLearner.create(factory, { batchSize: 1 });
   * for (const n of ["a", "b", "c"]) l.ingestLine(`{"features": {"0": 1}, "labels": ["${n}"]}`, "demo", 1);
   * const { ck } = l.toReplicaCheckpoint();
   * const names = { labels: packNames(ck.labels.names), features: packNames(ck.features.names) };
   * ck.labels = { names: [] };
   * const steps = StreamLearner.fromCheckpointSteps(factory, ck, { names, step: 1 });
   * let r = steps.next(), yields = 0;
   * for (; !r.done; r = steps.next()) yields++;
   * console.log(yields > 1, r.value.predict({ "0": 1 }, 3).labels.length); // true 3
   * ```
   */
  static *fromCheckpointSteps(
    factory: EstimatorFactory,
    ck: LearnerCheckpoint,
    options: {
      adopt?: boolean;
      dedupWindow?: number;
      names?: { labels: PackedNames; features: PackedNames };
      step?: number;
    } = {},
  ): Generator<void, StreamLearner, void> {
    const step = options.step ?? Infinity, packed = options.names;
    if (ck === null || typeof ck !== "object" || ck.format !== CHECKPOINT_FORMAT) {
      // (a delta file, or another program's, copied over it carries a format of its own)
      const format = ck !== null && typeof ck === "object" ? ck.format : undefined;
      throw new NotACheckpointError(
        format === undefined
          ? "format field missing"
          : `format is ${shown(format)}, not "${CHECKPOINT_FORMAT}"`,
      );
    }
    if (ck.version !== CHECKPOINT_VERSION) {
      throw new RangeError(
        `Checkpoint version ${ck.version} is not supported (expected ${CHECKPOINT_VERSION})`,
      );
    }
    const labels = packed === undefined
      ? checkpointPart("labels", () => Vocabulary.fromJSON(ck.labels).names)
      : [];
    checkCheckpointFields(
      ck,
      packed === undefined
        ? labels.length
        : checkpointPart("labels", () => packedCount(packed.labels)),
    );
    if (ck.kind !== factory.kind) throw new CheckpointKindError(ck.kind, factory.kind);
    if (step !== Infinity) yield;
    const features = packed === undefined
      ? checkpointPart("features", () => Vocabulary.fromJSON(ck.features).names)
      : [];
    const limits = ck.options.limits;
    const parser = checkpointPart(
      "options.limits",
      () => new EventParser(features, labels, limits),
    );
    if (packed !== undefined) {
      // the label names stay packed (prediction maps indices to names, never names to
      // indices); the feature names are mapped (a query by names needs it), a few at a time
      checkpointPart("labels", () => parser.labels.adoptPacked(packed.labels));
      yield* addPacked(parser.features, packed.features, "features", step);
    }
    if (step !== Infinity) yield;
    const window = checkpointPart("window", () => PrequentialWindow.fromState(ck.window));
    if (window.size !== ck.options.windowSize) {
      throw new CheckpointFieldError(
        "options.windowSize",
        `must be the window's size (${window.size}), got ${ck.options.windowSize}`,
      );
    }
    numberOption(WHERE, "dedupWindow", options.dedupWindow, 0, 0, 2 ** 28, true);
    const ids = ck.ids === undefined
      ? new IdWindow(options.dedupWindow ?? DEFAULT_ID_WINDOW)
      : checkpointPart("ids", () => IdWindow.fromState(ck.ids!, options.dedupWindow));
    // (in steps only through the restore it mirrors: not for a factory replacing `restore`)
    const stepped = (factory as { restoreSteps?: RestoreSteps }).restoreSteps;
    let model: Estimator;
    if (
      step === Infinity || typeof stepped !== "function" || stepped.restores !== factory.restore
    ) {
      model = checkpointPart("state", () => factory.restore(ck.state, options));
    } else {
      try {
        model = yield* stepped(ck.state, step);
      } catch (e) {
        model = checkpointPart("state", () => {
          throw e;
        });
      }
    }
    const l = new StreamLearner(
      factory,
      model,
      parser,
      window,
      ck.options.batchSize,
      limits,
      ids,
    );
    l.#pending = pendingFrom(ck.pending);
    if (typeof ck.chain === "string") {
      l.#chain = ck.chain;
      l.#chainSeq = ck.chainSeq ?? 0;
    }
    l.applied = ck.applied;
    l.learned = ck.learned;
    l.rejected = ck.rejected;
    l.duplicates = ck.duplicates ?? 0;
    l.#digest = [ck.idDigest[0], ck.idDigest[1]];
    l.#labelCounts = new Float64Array(Math.max(16, ck.labelCounts.length));
    l.#labelCounts.set(ck.labelCounts);
    l.position = ck.position ?? {};
    l.modelVersion = ck.modelVersion ?? 0;
    l.#replicaSeq = ck.replicaSeq ?? 0;
    return l;
  }

  /** Prequential P@1/P@5 of the last scored events. */
  get window(): PrequentialWindow {
    return this.#window;
  }

  /** The model. */
  get estimator(): Estimator {
    return this.#estimator;
  }

  /** Events applied but not yet learned (waiting for their minibatch). */
  get pendingCount(): number {
    return this.#pending.length;
  }

  /**
   * Order-independent digest (hex) of the ids of every applied event: the same set of events
   * applied once each gives the same digest whatever the order; a duplicate or a gap changes it.
   * Events without an id count by their position-free empty id.
   *
   * @example
   * ```ts
   * import { StreamLearner } from "./learner.ts";
   * console.log(StreamLearner.digestOf(["a", "b"]) === StreamLearner.digestOf(["b", "a"])); // true
   * ```
   */
  get idDigest(): string {
    return StreamLearner.#hex(this.#digest);
  }

  /**
   * The digest {@linkcode StreamLearner.idDigest} would have after applying `ids` once each.
   *
   * @example
   * ```ts
   * import { StreamLearner } from "./learner.ts";
   * console.log(StreamLearner.digestOf([]) === "0000000000000000"); // true
   * ```
   */
  static digestOf(ids: Iterable<string | undefined>): string {
    const d: [number, number] = [0, 0];
    for (const id of ids) StreamLearner.#addDigest(d, id);
    return StreamLearner.#hex(d);
  }

  static #addDigest(d: [number, number], id: string | undefined): void {
    const [a, b] = hashId(id ?? "");
    d[0] = (d[0] + a) >>> 0;
    d[1] = (d[1] + b) >>> 0;
  }

  static #hex(d: readonly number[]): string {
    return d.map((v) => v.toString(16).padStart(8, "0")).join("");
  }

  /** Positive counts of each label among the applied events (length `parser.labels.size`). */
  labelCounts(): Float64Array {
    return this.#labelCounts.slice(0, this.parser.labels.size);
  }

  /**
   * The latest labelled events applied by this process (at most `recentCapacity`, oldest first;
   * not checkpointed), e.g. as POP's validation rows when publishing.
   *
   * @example
   * ```ts
   * import { factory } from "../models/popularity/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * const l = StreamLearner.create(factory);
   * l.recentCapacity = 2;
   * for (const n of ["a", "b", "c"]) l.ingestLine(`{"id": "${n}", "features": {}, "labels": ["x"]}`, "demo", 1);
   * console.log(l.recentEvents().map((e) => e.id)); // [ "b", "c" ]
   * ```
   */
  recentEvents(): Example[] {
    const r = this.#recent;
    if (r.length < this.recentCapacity) return r.slice();
    return [...r.slice(this.#recentNext), ...r.slice(0, this.#recentNext)];
  }

  /** Records a rejected line. */
  reject(source: string, line: number | string, reason: string): void {
    this.rejected++;
    this.lastRejects.push({ source, line, reason });
    if (this.lastRejects.length > 20) this.lastRejects.shift();
  }

  /**
   * Validates one line and applies it unless its id is in the deduplication window; returns the
   * parse result (rejects are recorded), with `duplicate: true` for a valid event not applied
   * again.
   *
   * @example
   * ```ts
   * import { factory } from "../models/popularity/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * const l = StreamLearner.create(factory);
   * const line = '{"id": "e1", "features": {"0": 1}, "labels": ["a"]}';
   * l.ingestLine(line, "demo", 1);
   * const again = l.ingestLine(line, "demo", 2);
   * console.log(again.ok, again.duplicate, l.applied, l.duplicates); // true true 1 1
   * ```
   */
  ingestLine(line: string, source: string, lineNo: number | string): IngestLineResult {
    const p = this.parser, mark = p.mark();
    const r = p.parseLine(line);
    if (!r.ok) {
      this.reject(source, lineNo, r.reason);
      return r;
    }
    const refusal = this.refusal(r.event);
    if (refusal !== undefined) {
      // a refused event changes nothing: the names its parse added are taken back
      p.rollBack(mark);
      this.reject(source, lineNo, refusal);
      return { ok: false, reason: refusal };
    }
    return this.ingest(r.event) ? r : { ok: true, event: r.event, duplicate: true };
  }

  /** The deduplication window (ids held, capacity, bytes). */
  get idWindow(): IdWindow {
    return this.#ids;
  }

  /**
   * Why the model would refuse to learn `ev` (e.g. a raw feature value past what its loss can
   * learn: `Estimator.learnRefusal`), or undefined. The service asks before it accepts an event,
   * so that it never accepts one it cannot learn; {@linkcode StreamLearner.ingestLine} rejects
   * such a line with this reason.
   *
   * @example
   * ```ts
   * import { factory } from "../models/leml/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * const l = StreamLearner.create(factory); // the squared loss on raw values: limited to 1e15
   * const r = l.ingestLine('{"features": {"0": 1e30}, "labels": ["a"]}', "demo", 1);
   * console.log(r.ok, l.applied, l.rejected); // false 0 1
   * ```
   */
  refusal(ev: Example): string | undefined {
    return this.#estimator.learnRefusal?.(ev.x);
  }

  /**
   * Test-then-train on one validated event (its label indices must come from
   * `parser.labels`, its feature indices from the model's feature space or beyond). The event is
   * queued; when its minibatch is learned ({@linkcode StreamLearner.flush}), each of its events
   * is first scored by the model as it was before the batch, then the batch is learned. (The
   * model only changes when a batch is learned, so these are the scores the event would have
   * got on arrival; the prequential window counts an event once its batch is learned.)
   *
   * An event with an `id` among the last distinct ids applied (the deduplication window,
   * `dedupWindow`) is a duplicate: it is counted in {@linkcode StreamLearner.duplicates} and
   * nothing else changes. Returns whether the event was applied.
   *
   * @throws {RangeError} when the model would refuse to learn the event
   *   ({@linkcode StreamLearner.refusal}); nothing changes then
   */
  ingest(ev: Example): boolean {
    const refusal = this.refusal(ev);
    if (refusal !== undefined) {
      throw new RangeError(
        `Cannot learn event${
          ev.id === undefined ? "" : ` ${ev.id}`
        }: ${refusal}; nothing was applied`,
      );
    }
    if (ev.id !== undefined && !this.#ids.add(ev.id)) {
      this.duplicates++;
      return false;
    }
    if (ev.labels.length > 0) {
      const top = ev.labels[ev.labels.length - 1];
      if (top >= this.#labelCounts.length) {
        const next = new Float64Array(Math.max(top + 1, 2 * this.#labelCounts.length));
        next.set(this.#labelCounts);
        this.#labelCounts = next;
      }
      for (let i = 0; i < ev.labels.length; i++) this.#labelCounts[ev.labels[i]]++;
      this.#replicaMarks.mark(ev.labels);
      this.#ckMarks.mark(ev.labels);
      if (this.recentCapacity > 0) {
        if (this.#recent.length < this.recentCapacity) this.#recent.push(ev);
        else this.#recent[this.#recentNext] = ev;
        this.#recentNext = (this.#recentNext + 1) % this.recentCapacity;
      }
    }
    StreamLearner.#addDigest(this.#digest, ev.id);
    this.#pending.push(ev);
    this.applied++;
    if (this.#pending.length >= this.batchSize) this.flush();
    return true;
  }

  /**
   * Learns the queued events now (a partial batch, e.g. when the stream is idle): scores every
   * labelled event (top 5, into the prequential window) with the model before the batch, then
   * learns the batch. A model with `scoreThenLearn` (LEML streaming) does both in one pass.
   */
  flush(): void {
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    try {
      this.#learn(pending);
    } catch {
      // A model refuses a batch before it changes anything. Learning its events one by one sets
      // aside only the one it cannot learn (a rejection naming it) instead of leaving the batch
      // queued, to be refused again before every later batch.
      for (const ev of pending) {
        try {
          this.#learn([ev]);
        } catch (err) {
          this.reject(
            "learner",
            ev.id ?? `applied event ${this.learned + 1}`,
            (err as Error).message,
          );
        }
        this.learned++;
      }
      return;
    }
    this.learned += pending.length;
  }

  /** Scores (into the prequential window, once learning succeeded) and learns `events`. */
  #learn(events: Example[]): void {
    const est = this.#estimator;
    const p = this.parser;
    const batch = examplesToBatch(
      events,
      Math.max(est.numFeatures, p.featureKeys === "name" ? p.features.size : 0),
      Math.max(est.numLabels, p.labels.size),
    );
    let tops: ArrayLike<number>[];
    if (hasScoreThenLearn(est)) {
      tops = est.scoreThenLearn(batch, PREQUENTIAL_K).map((t) => t.labels);
    } else {
      tops = events.map((ev) =>
        ev.labels.length === 0 || est.numLabels === 0
          ? new Int32Array(0)
          : est.predictTopK(this.#clip(ev.x), PREQUENTIAL_K).labels
      );
      est.learnMany(batch);
    }
    for (let i = 0; i < events.length; i++) {
      if (events[i].labels.length > 0) this.window.record(tops[i], events[i].labels);
    }
  }

  /** Restricts a row to the model's current feature space (the row itself when inside). */
  #clip(x: SparseVector): SparseVector {
    const d = this.#estimator.numFeatures;
    const { indices, values } = x;
    let n = indices.length;
    while (n > 0 && indices[n - 1] >= d) n--;
    return n === indices.length
      ? x
      : { indices: indices.subarray(0, n), values: values.subarray(0, n) };
  }

  /**
   * Top-k labels (names and scores) for a raw feature record; unknown features are ignored.
   * Throws a TypeError naming the bad field.
   *
   * @example
   * ```ts
   * import { factory } from "../models/popularity/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * const l = StreamLearner.create(factory, { batchSize: 1 });
   * l.ingestLine('{"features": {"0": 1}, "labels": ["news"]}', "demo", 1);
   * console.log(l.predict({ "0": 1 }, 3).labels); // [ "news" ]
   * ```
   */
  predict(features: unknown, k: number): { labels: string[]; scores: number[] } {
    return this.predictRow(
      this.parser.featuresForPredict(features, this.#estimator.numFeatures),
      k,
    );
  }

  /**
   * Top-k labels (names and scores) for a row already mapped to the model's feature space
   * (e.g. by `parser.rowForPredict`).
   *
   * @example
   * ```ts
   * import { factory } from "../models/popularity/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * const l = StreamLearner.create(factory, { batchSize: 1 });
   * l.ingestLine('{"features": {"0": 1}, "labels": ["news"]}', "demo", 1);
   * const x = l.parser.rowForPredict([0], undefined, l.estimator.numFeatures);
   * console.log(l.predictRow(x, 3).labels); // [ "news" ]
   * ```
   */
  predictRow(x: SparseVector, k: number): { labels: string[]; scores: number[] } {
    const est = this.#estimator;
    if (est.numLabels === 0 || k === 0) return { labels: [], scores: [] };
    const t = est.predictTopK(x, Math.min(k, est.numLabels));
    const names = this.parser.labels;
    const labels: string[] = new Array(t.labels.length);
    const scores: number[] = new Array(t.labels.length);
    for (let i = 0; i < t.labels.length; i++) {
      labels[i] = names.nameOf(t.labels[i]) ?? String(t.labels[i]);
      scores[i] = jsonScore(t.scores[i]); // JSON has no Infinity
    }
    return { labels, scores };
  }

  /**
   * What a prediction replica needs, as a checkpoint object (`fromCheckpoint` takes it): no
   * queued events, and the model's `toReplicaState()` when it has one (then `owned` is true:
   * the model's arrays are fresh copies that may be transferred), else its full state.
   *
   * @example
   * ```ts
   * import { factory } from "../models/leml/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * const l = StreamLearner.create(factory, { batchSize: 1, modelOptions: { rank: 2 } });
   * l.ingestLine('{"features": {"0": 1}, "labels": ["news"]}', "demo", 1);
   * const { ck, owned } = l.toReplicaCheckpoint();
   * const r = StreamLearner.fromCheckpoint(factory, ck, { adopt: true });
   * console.log(owned, r.predict({ "0": 1 }, 1).labels); // true [ "news" ]
   * ```
   */
  toReplicaCheckpoint(): { ck: LearnerCheckpoint; owned: boolean } {
    const est = this.#estimator;
    const replica = est.toReplicaState?.();
    const ck = this.#checkpoint(replica ?? est.toState(), false);
    return { ck, owned: replica !== undefined };
  }

  /**
   * Like {@linkcode StreamLearner.toReplicaCheckpoint}, and when the model supports replica
   * deltas (`beginReplicaDeltas`/`toReplicaDelta`/`applyReplicaDelta`, e.g. "ova"), starts
   * tracking what changes from here on, so that {@linkcode StreamLearner.toReplicaDelta} can
   * bring a replica built from this checkpoint up to date at the cost of the changes.
   *
   * @example
   * ```ts
   * import { factory } from "../models/ova/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * const l = StreamLearner.create(factory, { batchSize: 1 });
   * l.ingestLine('{"features": {"0": 1}, "labels": ["news"]}', "demo", 1);
   * const { ck, deltas } = l.toReplicaBase();
   * const r = StreamLearner.fromCheckpoint(factory, ck, { adopt: true });
   * l.ingestLine('{"features": {"1": 1}, "labels": ["sport"]}', "demo", 2);
   * const d = l.toReplicaDelta();
   * if (d !== undefined) r.applyReplicaDelta(d);
   * console.log(deltas, d?.labels.names, r.predict({ "1": 1 }, 1).labels); // true [ "sport" ] [ "sport" ]
   * ```
   */
  toReplicaBase(): { ck: LearnerCheckpoint; owned: boolean; deltas: boolean } {
    const est = this.#estimator;
    const deltas = typeof est.beginReplicaDeltas === "function" &&
      typeof est.toReplicaDelta === "function" && typeof est.applyReplicaDelta === "function" &&
      typeof est.toReplicaState === "function";
    if (!deltas) {
      this.#replicaMarks.stop();
      return { ...this.toReplicaCheckpoint(), deltas: false };
    }
    est.beginReplicaDeltas!();
    this.#replicaSeq++;
    this.#replicaMarks.start(this.parser);
    return { ...this.toReplicaCheckpoint(), deltas: true };
  }

  /**
   * What changed since the last {@linkcode StreamLearner.toReplicaBase} or delta, for
   * {@linkcode StreamLearner.applyReplicaDelta} on a replica built from that base (the model's
   * delta, only the vocabulary names added since, the label counts that changed, and the
   * counters and window as they are). Its typed arrays are fresh (they may be transferred).
   * `undefined` when a full snapshot is needed instead: no base was taken (or the model has no
   * deltas), or the model asks for one (e.g. after a global prune, or a delta as large as a
   * good part of the model); tracking then stops until the next `toReplicaBase()`.
   */
  toReplicaDelta(): ReplicaDelta | undefined {
    if (!this.#replicaMarks.on) return undefined;
    const state = this.#estimator.toReplicaDelta?.();
    if (state === undefined) {
      this.#replicaMarks.stop();
      return undefined;
    }
    const d: ReplicaDelta = {
      format: DELTA_FORMAT,
      ...this.#delta(this.#replicaMarks, this.#replicaSeq, state),
    };
    this.#replicaSeq++;
    return d;
  }

  /**
   * Brings this replica (built by `fromCheckpoint` from {@linkcode StreamLearner.toReplicaBase}
   * or from the last delta's result) up to date with a {@linkcode StreamLearner.toReplicaDelta}
   * in place: it then predicts exactly like the learner did when it made the delta. Everything
   * is checked before anything changes, so a delta that does not fit leaves the replica as it
   * was (apart from a model delta failing half-way, which its model rules out by checking
   * first).
   *
   * @throws {TypeError} when it is not a delta of this model kind, or the model has no deltas
   * @throws {RangeError} naming the problem when the delta does not follow this replica or does
   * not fit it
   */
  applyReplicaDelta(d: ReplicaDelta): void {
    if (d === null || typeof d !== "object" || d.format !== DELTA_FORMAT) {
      throw new TypeError("Not a Tagstream replica delta (format field missing)");
    }
    const est = this.#estimator;
    if (d.kind !== est.kind) {
      throw new TypeError(`Replica delta of a '${d.kind}' model for a '${est.kind}' replica`);
    }
    if (typeof est.applyReplicaDelta !== "function") {
      throw new TypeError(`A '${est.kind}' model has no replica deltas`);
    }
    if (d.base !== this.#replicaSeq || !Number.isInteger(d.seq) || d.seq <= d.base) {
      throw new RangeError(
        `Replica delta ${d.base} -> ${d.seq} does not follow this replica (at ${this.#replicaSeq})`,
      );
    }
    const vocab = (v: Vocabulary, add: { from: number; names: string[] }, what: string) =>
      newNames(v, add, `Replica delta: ${what}`);
    const newFeatures = vocab(this.parser.features, d.features, "feature");
    // (label names still packed are checked without the name → index map: see newNames)
    const newLabels = vocab(this.parser.labels, d.labels, "label");
    const numLabels = this.parser.labels.size + newLabels.length;
    checkLabelCounts(d.labelCounts, numLabels, "Replica delta");
    const window = PrequentialWindow.fromState(d.window);
    if (window.size !== this.window.size) {
      throw new RangeError(`Replica delta: window of ${window.size}, not ${this.window.size}`);
    }
    est.applyReplicaDelta(d.state);
    for (const n of newFeatures) this.parser.features.idOf(n, true);
    this.parser.labels.addNew(newLabels);
    this.#setCounts(d.labelCounts);
    this.#window = window;
    this.applied = d.applied;
    this.learned = d.learned;
    this.rejected = d.rejected;
    this.#digest = [d.idDigest[0], d.idDigest[1]];
    this.position = structuredClone(d.position ?? {});
    this.modelVersion = d.modelVersion ?? 0;
    this.#replicaSeq = d.seq;
  }

  /** What every learner delta holds, with `marks` moved on (see {@linkcode LearnerDelta}). */
  #delta(marks: DeltaMarks, base: number, state: ModelState): LearnerDelta {
    this.parser.namesUsed++; // the names gained are on record now
    return {
      kind: this.#estimator.kind,
      base,
      seq: base + 1,
      state,
      ...marks.take(this.parser, this.#labelCounts),
      applied: this.applied,
      learned: this.learned,
      rejected: this.rejected,
      idDigest: [this.#digest[0], this.#digest[1]],
      window: this.window.toState(),
      position: structuredClone(this.position),
      modelVersion: this.modelVersion,
    };
  }

  /** Sets the counts of a delta's labels (growing the counts to them). */
  #setCounts(lc: { labels: Int32Array; counts: Float64Array }): void {
    const top = lc.labels.length > 0 ? lc.labels[lc.labels.length - 1] : -1;
    if (top >= this.#labelCounts.length) {
      const next = new Float64Array(Math.max(top + 1, 2 * this.#labelCounts.length));
      next.set(this.#labelCounts);
      this.#labelCounts = next;
    }
    for (let i = 0; i < lc.labels.length; i++) this.#labelCounts[lc.labels[i]] = lc.counts[i];
  }

  /**
   * A full checkpoint ({@linkcode StreamLearner.toCheckpoint}) that starts a new chain of
   * incremental checkpoints: when the model has state deltas (`beginStateDeltas`/
   * `toStateDelta`/`applyStateDelta`, e.g. "ova"), it starts logging what changes from here on,
   * so that {@linkcode StreamLearner.toCheckpointDelta} can write the next checkpoints at the
   * cost of the changes. The checkpoint carries the chain's id (`chain`, new at each base) and
   * sequence number (`chainSeq`, 0).
   *
   * @example
   * ```ts
   * import { factory, type OvaEstimator } from "../models/ova/mod.ts";
   * import { StreamLearner } from "./learner.ts";
   * const l = StreamLearner.create(factory, { batchSize: 1 });
   * (l.estimator as OvaEstimator).stateDeltaMaxFraction = 1; // a tiny model: any delta is big
   * l.ingestLine('{"id": "1", "features": {"0": 1}, "labels": ["news"]}', "demo", 1);
   * const base = l.toCheckpointBase();
   * l.ingestLine('{"id": "2", "features": {"1": 1}, "labels": ["sport"]}', "demo", 2);
   * const d = l.toCheckpointDelta()!;
   * const r = StreamLearner.fromCheckpoint(factory, structuredClone(base));
   * r.applyCheckpointDelta(structuredClone(d));
   * console.log(r.applied, r.predict({ "1": 1 }, 1).labels, r.ingestLine('{"id": "2", "features": {"1": 1}, "labels": ["sport"]}', "demo", 3).duplicate); // 2 [ "sport" ] true
   * ```
   */
  toCheckpointBase(): LearnerCheckpoint {
    const est = this.#estimator;
    const can = typeof est.beginStateDeltas === "function" &&
      typeof est.toStateDelta === "function" && typeof est.applyStateDelta === "function";
    this.#chain = chainId();
    this.#chainSeq = 0;
    if (can) {
      est.beginStateDeltas!();
      this.#ckMarks.start(this.parser);
    } else this.#ckMarks.stop();
    this.#ckIds = this.#ids.inserted;
    return this.toCheckpoint();
  }

  /**
   * What changed since {@linkcode StreamLearner.toCheckpointBase} or the previous delta, as an
   * incremental checkpoint ({@linkcode CheckpointDelta}) that
   * {@linkcode StreamLearner.applyCheckpointDelta} applies, in order, to a learner restored from
   * the base: the model's state delta, the names the vocabularies gained, the label counts that
   * changed, the ids the deduplication window gained, and the small parts (queued events,
   * counters, prequential window, position) whole. `undefined` when a base is needed instead:
   * none was taken, the model has no state deltas, or it asks for a full state (a global prune,
   * a delta not much smaller than the state); deltas then stop until the next base.
   */
  toCheckpointDelta(): CheckpointDelta | undefined {
    if (!this.#ckMarks.on) return undefined;
    const state = this.#estimator.toStateDelta!();
    if (state === undefined) {
      this.#ckMarks.stop();
      return undefined;
    }
    const hashes = this.#ids.newest(this.#ids.inserted - this.#ckIds);
    const d: CheckpointDelta = {
      format: CHECKPOINT_DELTA_FORMAT,
      chain: this.#chain,
      ...this.#delta(this.#ckMarks, this.#chainSeq, state),
      pending: this.#pendingState(),
      duplicates: this.duplicates,
      ids: hashes !== undefined ? { hashes } : { window: this.#ids.toState() },
      savedAt: new Date().toISOString(),
    };
    this.#chainSeq++;
    this.#ckIds = this.#ids.inserted;
    return d;
  }

  /**
   * Brings this learner (restored by `fromCheckpoint` from a
   * {@linkcode StreamLearner.toCheckpointBase} and the deltas before this one) to the learner
   * that made `d`, in place: the same model state, vocabularies, counts, queued events,
   * deduplication window and position, so that it learns on exactly as that one would.
   * Everything is checked before anything changes: a delta that is refused leaves the learner as
   * it was.
   *
   * @throws {TypeError} when it is not a checkpoint delta of this model kind
   * @throws {RangeError} when it is not the next delta of this learner's chain (`chain`, `base`)
   * @throws {CheckpointFieldError} (a SyntaxError) naming the field of a damaged delta: missing,
   * of the wrong type, or not agreeing with the others or with this learner (counters going
   * backwards, names it has already, queued labels beyond the names; see
   * `checkCheckpointDeltaFields` in `checkpoint_fields.ts`)
   */
  applyCheckpointDelta(d: CheckpointDelta): void {
    if (d === null || typeof d !== "object" || d.format !== CHECKPOINT_DELTA_FORMAT) {
      throw new TypeError("Not a Tagstream checkpoint delta (format field missing)");
    }
    const est = this.#estimator;
    if (d.kind !== est.kind) {
      throw new TypeError(`Checkpoint delta of a '${d.kind}' model for a '${est.kind}' learner`);
    }
    if (typeof est.applyStateDelta !== "function") {
      throw new TypeError(`A '${est.kind}' model has no checkpoint deltas`);
    }
    if (d.chain !== this.#chain || d.base !== this.#chainSeq) {
      throw new RangeError(
        `Checkpoint delta ${d.chain}:${d.base} does not follow this learner (at ${this.#chain}:${this.#chainSeq})`,
      );
    }
    const names = checkCheckpointDeltaFields(d, this);
    const window = checkpointPart("window", () => PrequentialWindow.fromState(d.window));
    if (window.size !== this.window.size) {
      throw new CheckpointFieldError(
        "window",
        `must be a window of ${this.window.size}, got one of ${window.size}`,
      );
    }
    const idWindow = d.ids.window;
    const ids = idWindow !== undefined
      ? checkpointPart("ids", () => IdWindow.fromState(idWindow, this.#ids.capacity))
      : undefined;
    const position = structuredClone(d.position ?? {});
    // the model checks its delta before it changes anything; nothing below throws
    checkpointPart("state", () => est.applyStateDelta!(d.state));
    for (const n of names.features) this.parser.features.idOf(n, true);
    for (const n of names.labels) this.parser.labels.idOf(n, true);
    this.#setCounts(d.labelCounts);
    if (ids !== undefined) this.#ids = ids;
    else this.#ids.pushHashes(d.ids.hashes!);
    this.#pending = pendingFrom(d.pending);
    this.#window = window;
    this.applied = d.applied;
    this.learned = d.learned;
    this.rejected = d.rejected;
    this.duplicates = d.duplicates;
    this.#digest = [d.idDigest[0], d.idDigest[1]];
    this.position = position;
    this.modelVersion = d.modelVersion ?? 0;
    this.#chainSeq = d.seq;
  }

  #pendingState(): LearnerCheckpoint["pending"] {
    return this.#pending.map((e) => ({
      id: e.id,
      indices: e.x.indices,
      values: e.x.values,
      labels: e.labels,
      negatives: e.negatives,
    }));
  }

  /**
   * The whole learner as one checkpoint object. Taken synchronously, so it is consistent even
   * while events keep arriving afterwards.
   */
  toCheckpoint(): LearnerCheckpoint {
    return this.#checkpoint(this.#estimator.toState(), true);
  }

  #checkpoint(state: ModelState, withPending: boolean): LearnerCheckpoint {
    this.parser.namesUsed++; // the names are on record now
    return {
      format: CHECKPOINT_FORMAT,
      version: CHECKPOINT_VERSION,
      kind: this.#estimator.kind,
      options: { batchSize: this.batchSize, windowSize: this.window.size, limits: this.#limits },
      state,
      features: this.parser.features.toJSON(),
      labels: this.parser.labels.toJSON(),
      pending: withPending ? this.#pendingState() : [],
      applied: this.applied,
      learned: this.learned,
      rejected: this.rejected,
      idDigest: [this.#digest[0], this.#digest[1]],
      ...(withPending ? { ids: this.#ids.toState(), duplicates: this.duplicates } : {}),
      labelCounts: this.labelCounts(),
      window: this.window.toState(),
      position: structuredClone(this.position),
      modelVersion: this.modelVersion,
      savedAt: new Date().toISOString(),
      ...(withPending ? {} : { replicaSeq: this.#replicaSeq }),
      ...(withPending && this.#chain !== ""
        ? { chain: this.#chain, chainSeq: this.#chainSeq }
        : {}),
    };
  }
}

/**
 * A factory's restore in steps (e.g. "ova"'s `restoreSteps`), and the factory's `restore` it
 * mirrors (`restores`).
 */
type RestoreSteps = ((state: ModelState, step?: number) => Generator<void, Estimator, void>) & {
  restores?: unknown;
};

/** How many names a packed list holds (a TypeError when it is not one). */
function packedCount(p: PackedNames): number {
  if (
    p === null || typeof p !== "object" || typeof p.text !== "string" ||
    !(p.ends instanceof Int32Array)
  ) {
    throw new TypeError("packed names must be {text: string, ends: Int32Array}");
  }
  return p.ends.length;
}

/**
 * Adds packed names to an empty vocabulary, `step` at a time (a name twice, past the limit or
 * out of the text: a CheckpointFieldError naming `field`).
 */
function* addPacked(
  v: Vocabulary,
  p: PackedNames,
  field: string,
  step: number,
): Generator<void, void, void> {
  const n = checkpointPart(field, () => packedCount(p));
  const { text, ends } = p;
  let start = 0, work = 0;
  for (let i = 0; i < n; i++) {
    const end = ends[i];
    if (!(end >= start && end <= text.length)) {
      throw new CheckpointFieldError(
        field,
        `is damaged: name ${i} ends at ${end}, out of the text`,
      );
    }
    const name = text.slice(start, end);
    start = end;
    checkpointPart(field, () => {
      if (v.idOf(name, true) !== i) {
        throw new RangeError(`${shown(name)} (name ${i + 1}) is there twice`);
      }
    });
    if (++work >= step) {
      work = 0;
      yield;
    }
  }
}

// The service's growth guard (--max-features, --max-labels) decides how far a model grows, and can
// be raised on a restart: the model itself is created without a limit of its own.
function unlimited(factory: EstimatorFactory): Partial<typeof UNLIMITED> {
  return factory.settings?.names.includes("maxLabels") ? UNLIMITED : {};
}
