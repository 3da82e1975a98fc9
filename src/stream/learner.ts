/**
 * The test-then-train core of the learning service: every accepted event is first scored (its
 * top-5 feeds the prequential window), then queued and learned in minibatches of a fixed size.
 * The whole learner (model state, vocabularies, queued events, counts, window, stream position)
 * goes into one checkpoint object, so a restore continues exactly where the checkpoint was taken.
 *
 * @module
 */
import type { Batch } from "../data/types.ts";
import { Vocabulary, type VocabularyJSON } from "../data/vocabulary.ts";
import type { Estimator, EstimatorFactory, ModelState } from "../models/estimator.ts";
import { type EventLimits, EventParser, type LineResult, type ParsedEvent } from "./events.ts";
import { PrequentialState, PrequentialWindow } from "./prequential.ts";

/** Where the learner is in its sources; saved in the same checkpoint as the model. */
export interface StreamPosition {
  /** Followed file: path, byte offset after the last applied line, and that line's number. */
  file?: { path: string; offset: number; line: number };
  /** Redis stream: id of the last applied entry. */
  redis?: { key: string; group: string; lastId: string };
}

/** Options of {@linkcode StreamLearner}. */
export interface LearnerOptions {
  /** Events per learned minibatch (default 32). Batches are cut at multiples of this count. */
  batchSize?: number;
  /** Prequential window length (default 1000). */
  windowSize?: number;
  /** Event validation limits and key mode. */
  limits?: EventLimits;
  /** Options passed to `factory.create` (seed, rank, ...). */
  modelOptions?: Record<string, unknown>;
}

/** One rejected line, as reported by `/metrics` and the `/events` answer. */
export interface Reject {
  /** Where it came from ("http", "redis", a file path). */
  source: string;
  /** 1-based line number within its request or file, or the Redis entry id. */
  line: number | string;
  /** Why it was rejected. */
  reason: string;
}

const CHECKPOINT_FORMAT = "tagstream-checkpoint";
const CHECKPOINT_VERSION = 1;

/** The checkpoint object written by {@linkcode StreamLearner.toCheckpoint}. */
export interface LearnerCheckpoint {
  format: string;
  version: number;
  kind: string;
  options: { batchSize: number; windowSize: number; limits: EventLimits };
  state: ModelState;
  features: VocabularyJSON;
  labels: VocabularyJSON;
  pending: {
    id?: string;
    indices: Int32Array;
    values: Float32Array;
    labels: Int32Array;
    negatives?: Int32Array;
  }[];
  applied: number;
  learned: number;
  rejected: number;
  window: PrequentialState;
  position: StreamPosition;
  modelVersion: number;
  savedAt: string;
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
  readonly factory: EstimatorFactory;
  readonly parser: EventParser;
  readonly window: PrequentialWindow;
  readonly batchSize: number;
  readonly #limits: EventLimits;
  #estimator: Estimator;
  #pending: ParsedEvent[] = [];
  /** Events accepted and applied (scored; learned or queued for the next batch). */
  applied = 0;
  /** Events learned by the model (applied minus queued). */
  learned = 0;
  /** Lines rejected since the stream began. */
  rejected = 0;
  /** The last rejected lines (at most 20). */
  readonly lastRejects: Reject[] = [];
  /** Position in the sources, covering every applied event. */
  position: StreamPosition = {};
  /** Version of the last published model file (0: none). */
  modelVersion = 0;

  private constructor(
    factory: EstimatorFactory,
    estimator: Estimator,
    parser: EventParser,
    window: PrequentialWindow,
    batchSize: number,
    limits: EventLimits,
  ) {
    this.factory = factory;
    this.#estimator = estimator;
    this.parser = parser;
    this.window = window;
    this.batchSize = batchSize;
    this.#limits = limits;
  }

  /** A fresh learner with a new model. */
  static create(factory: EstimatorFactory, options: LearnerOptions = {}): StreamLearner {
    const batchSize = options.batchSize ?? 32;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
    }
    const limits = { ...(options.limits ?? {}) };
    const parser = new EventParser(new Vocabulary(), new Vocabulary(), limits);
    return new StreamLearner(
      factory,
      factory.create({ ...(options.modelOptions ?? {}) }),
      parser,
      new PrequentialWindow(options.windowSize ?? 1000),
      batchSize,
      limits,
    );
  }

  /**
   * Rebuilds a learner from {@linkcode StreamLearner.toCheckpoint} output (decoded). The batch
   * size, window and limits come from the checkpoint, so batches stay aligned after a restart.
   */
  static fromCheckpoint(factory: EstimatorFactory, ck: LearnerCheckpoint): StreamLearner {
    if (ck === null || typeof ck !== "object" || ck.format !== CHECKPOINT_FORMAT) {
      throw new TypeError("Not a Tagstream checkpoint (format field missing)");
    }
    if (ck.version !== CHECKPOINT_VERSION) {
      throw new RangeError(`Checkpoint version ${ck.version} is not supported (expected 1)`);
    }
    if (ck.kind !== factory.kind) {
      throw new TypeError(
        `Checkpoint holds a '${ck.kind}' model but the service runs '${factory.kind}'`,
      );
    }
    const parser = new EventParser(
      Vocabulary.fromJSON(ck.features),
      Vocabulary.fromJSON(ck.labels),
      ck.options.limits,
    );
    const l = new StreamLearner(
      factory,
      factory.restore(ck.state),
      parser,
      PrequentialWindow.fromState(ck.window),
      ck.options.batchSize,
      ck.options.limits,
    );
    l.#pending = ck.pending.map((p) => {
      const e: ParsedEvent = { x: { indices: p.indices, values: p.values }, labels: p.labels };
      if (p.id !== undefined) (e as { id?: string }).id = p.id;
      if (p.negatives !== undefined) (e as { negatives?: Int32Array }).negatives = p.negatives;
      return e;
    });
    l.applied = ck.applied;
    l.learned = ck.learned;
    l.rejected = ck.rejected;
    l.position = ck.position ?? {};
    l.modelVersion = ck.modelVersion ?? 0;
    return l;
  }

  /** The model. */
  get estimator(): Estimator {
    return this.#estimator;
  }

  /** Events applied but not yet learned (waiting for their minibatch). */
  get pendingCount(): number {
    return this.#pending.length;
  }

  /** Records a rejected line. */
  reject(source: string, line: number | string, reason: string): void {
    this.rejected++;
    this.lastRejects.push({ source, line, reason });
    if (this.lastRejects.length > 20) this.lastRejects.shift();
  }

  /** Validates one line and applies it; returns the parse result (rejects are recorded). */
  ingestLine(line: string, source: string, lineNo: number | string): LineResult {
    const r = this.parser.parseLine(line);
    if (r.ok) this.ingest(r.event);
    else this.reject(source, lineNo, r.reason);
    return r;
  }

  /** Test-then-train on one validated event. */
  ingest(ev: ParsedEvent): void {
    if (ev.labels.length > 0) {
      const est = this.#estimator;
      let predicted: Int32Array;
      if (est.numLabels === 0) {
        predicted = new Int32Array(0);
      } else {
        predicted = est.predictTopK(this.#clip(ev.x.indices, ev.x.values), 5).labels;
      }
      this.window.record(predicted, ev.labels);
    }
    this.#pending.push(ev);
    this.applied++;
    if (this.#pending.length >= this.batchSize) this.flush();
  }

  /** Learns the queued events now (a partial batch), e.g. when the stream is idle. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const batch = this.#buildBatch(this.#pending);
    this.#estimator.learnMany(batch);
    this.learned += this.#pending.length;
    this.#pending = [];
  }

  /** Restricts a row to the model's current feature space (no copy when already inside). */
  #clip(indices: Int32Array, values: Float32Array): { indices: Int32Array; values: Float32Array } {
    const d = this.#estimator.numFeatures;
    let n = indices.length;
    while (n > 0 && indices[n - 1] >= d) n--;
    return n === indices.length
      ? { indices, values }
      : { indices: indices.subarray(0, n), values: values.subarray(0, n) };
  }

  #buildBatch(evs: readonly ParsedEvent[]): Batch {
    const n = evs.length;
    let nnz = 0, nl = 0, maxF = -1, anyNeg = false, nObs = 0;
    for (const e of evs) {
      nnz += e.x.indices.length;
      nl += e.labels.length;
      const last = e.x.indices.length > 0 ? e.x.indices[e.x.indices.length - 1] : -1;
      if (last > maxF) maxF = last;
      if (e.negatives !== undefined) {
        anyNeg = true;
        nObs += e.labels.length + e.negatives.length;
      }
    }
    const indptr = new Int32Array(n + 1), indices = new Int32Array(nnz);
    const values = new Float32Array(nnz);
    const yptr = new Int32Array(n + 1), yidx = new Int32Array(nl);
    let o = 0, q = 0;
    for (let i = 0; i < n; i++) {
      const e = evs[i];
      indices.set(e.x.indices, o);
      values.set(e.x.values, o);
      o += e.x.indices.length;
      indptr[i + 1] = o;
      yidx.set(e.labels, q);
      q += e.labels.length;
      yptr[i + 1] = q;
    }
    const numCols = Math.max(
      this.#estimator.numFeatures,
      maxF + 1,
      this.parser.featureKeys === "name" ? this.parser.features.size : 0,
    );
    const numLabels = Math.max(this.#estimator.numLabels, this.parser.labels.size);
    const batch: Batch = {
      x: { numRows: n, numCols, indptr, indices, values },
      y: { numRows: n, numCols: numLabels, indptr: yptr, indices: yidx },
      ids: evs.map((e) => e.id),
    };
    if (!anyNeg) return batch;
    const optr = new Int32Array(n + 1), oidx = new Int32Array(nObs);
    const full = new Uint8Array(n);
    let r = 0;
    for (let i = 0; i < n; i++) {
      const e = evs[i];
      if (e.negatives === undefined) {
        full[i] = 1;
      } else {
        const merged = Int32Array.from(new Set([...e.labels, ...e.negatives])).sort();
        oidx.set(merged, r);
        r += merged.length;
      }
      optr[i + 1] = r;
    }
    return {
      ...batch,
      observed: { numRows: n, numCols: numLabels, indptr: optr, indices: oidx.slice(0, r) },
      fullyObserved: full,
    };
  }

  /**
   * Top-k labels (names and scores) for a raw feature record; unknown features are ignored.
   * Throws a TypeError naming the bad field.
   */
  predict(features: unknown, k: number): { labels: string[]; scores: number[] } {
    const est = this.#estimator;
    const x = this.parser.featuresForPredict(features, est.numFeatures);
    if (est.numLabels === 0) return { labels: [], scores: [] };
    const t = est.predictTopK(x, Math.min(k, est.numLabels));
    const names = this.parser.labels.names;
    const labels: string[] = new Array(t.labels.length);
    const scores: number[] = new Array(t.labels.length);
    for (let i = 0; i < t.labels.length; i++) {
      labels[i] = names[t.labels[i]] ?? String(t.labels[i]);
      scores[i] = t.scores[i];
    }
    return { labels, scores };
  }

  /**
   * The whole learner as one checkpoint object (encode it with `encodeCheckpoint`). Taken
   * synchronously, so it is consistent even while events keep arriving afterwards.
   */
  toCheckpoint(): LearnerCheckpoint {
    return {
      format: CHECKPOINT_FORMAT,
      version: CHECKPOINT_VERSION,
      kind: this.#estimator.kind,
      options: { batchSize: this.batchSize, windowSize: this.window.size, limits: this.#limits },
      state: this.#estimator.toState(),
      features: this.parser.features.toJSON(),
      labels: this.parser.labels.toJSON(),
      pending: this.#pending.map((e) => ({
        id: e.id,
        indices: e.x.indices,
        values: e.x.values,
        labels: e.labels,
        negatives: e.negatives,
      })),
      applied: this.applied,
      learned: this.learned,
      rejected: this.rejected,
      window: this.window.toState(),
      position: structuredClone(this.position),
      modelVersion: this.modelVersion,
      savedAt: new Date().toISOString(),
    };
  }
}
