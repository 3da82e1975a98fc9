/**
 * The continuous learning service: a {@linkcode StreamLearner} fed by HTTP bodies, a Redis
 * Stream consumer group and/or a followed file, with durable checkpoints (every N events, every
 * T seconds, on stop), exactly-once Redis acknowledgement, and periodic model publishing.
 *
 * Exactly-once: the applied-event count, the stream positions (file offset, last Redis id) and
 * the model are written in one atomic checkpoint; Redis entries are XACKed only after the
 * checkpoint containing their effect is durable; after a restart, the consumer's pending
 * entries with ids at or below the checkpoint's last id are acked without being re-applied.
 *
 * @module
 */
import type { EstimatorFactory } from "../models/estimator.ts";
import {
  decodeCheckpoint,
  encodeCheckpoint,
  readFileIfExists,
  writeFileAtomic,
} from "./checkpoint.ts";
import { type LearnerCheckpoint, type LearnerOptions, StreamLearner } from "./learner.ts";
import { compareStreamIds, RedisClient, type StreamEntry } from "./redis_client.ts";

/** Redis Stream source settings. */
export interface RedisSourceOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** Stream key (default "tagstream:events"). */
  key?: string;
  /** Consumer group (default "tagstream"). */
  group?: string;
  /** Consumer name, stable across restarts (default "learner-1"). */
  consumer?: string;
  /** Entries per read (default 512). */
  count?: number;
}

/** Options of {@linkcode LearningService.open}. */
export interface ServiceOptions extends LearnerOptions {
  /** Model factory. */
  factory: EstimatorFactory;
  /** Directory of `checkpoint.msgpack` and `model.tsm` (created when missing). */
  stateDir: string;
  /** Checkpoint after this many applied events (default 5000). */
  checkpointEvery?: number;
  /** Checkpoint at least this often while events arrive, in seconds (default 5). */
  checkpointSeconds?: number;
  /** Publish a model file after this many applied events (default 5000; 0: never). */
  publishEvery?: number;
  /** Learn a partial batch after this many idle milliseconds (default 200). */
  flushMs?: number;
  /** Consume a Redis Stream. */
  redis?: RedisSourceOptions;
  /** Follow an NDJSON file (like `tail -f`), resuming at the checkpointed offset. */
  follow?: string;
  /** Log lines (default: stderr). */
  log?: (message: string) => void;
}

/** A published model file. */
export interface PublishedModel {
  readonly bytes: Uint8Array;
  readonly version: number;
  readonly etag: string;
  /** Applied events when it was built. */
  readonly applied: number;
  /** Whether the file was POP-pruned. */
  readonly pruned: boolean;
}

/** Answer to an ingested body. */
export interface IngestResult {
  accepted: number;
  rejected: { line: number; reason: string }[];
}

async function sha1Hex(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(d.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The learning service (sources, checkpoints, publishing); HTTP lives in `http_app.ts`.
 *
 * @example
 * ```ts
 * import { factory } from "../models/leml/mod.ts";
 * import { LearningService } from "./service.ts";
 * const dir = await Deno.makeTempDir();
 * const s = await LearningService.open({ factory, stateDir: dir, modelOptions: { rank: 4 }, log: () => {} });
 * const r = s.ingestText('{"features": {"0": 1}, "labels": ["a"]}\n{"bad": 1}\n', "http");
 * console.log(r.accepted, r.rejected[0].line); // 1 2
 * await s.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class LearningService {
  readonly options: ServiceOptions;
  readonly checkpointPath: string;
  readonly modelPath: string;
  #learner: StreamLearner;
  #log: (m: string) => void;
  #published: PublishedModel | undefined;
  #appliedAtCheckpoint: number;
  #appliedAtPublish: number;
  #checkpointing: Promise<void> | undefined;
  #checkpointAgain = false;
  #publishing = false;
  #lastIngestMs = 0;
  #timers: ReturnType<typeof setInterval>[] = [];
  #stopped = false;
  #redis: RedisClient | undefined;
  #redisAck: RedisClient | undefined;
  #unacked: string[] = [];
  #loops: Promise<void>[] = [];
  #startedMs = performance.now();
  #appliedAtStart: number;
  /** Entries acked at startup because a checkpoint already covered them. */
  ackedOnRecovery = 0;
  /** Checkpoints written by this process. */
  checkpointsWritten = 0;
  /** Last error of a background task (checkpoint, source), for `/metrics`. */
  lastError: string | undefined;

  private constructor(options: ServiceOptions, learner: StreamLearner) {
    this.options = options;
    this.checkpointPath = `${options.stateDir}/checkpoint.msgpack`;
    this.modelPath = `${options.stateDir}/model.tsm`;
    this.#learner = learner;
    this.#log = options.log ?? ((m) => console.error(m));
    this.#appliedAtCheckpoint = learner.applied;
    this.#appliedAtPublish = learner.applied;
    this.#appliedAtStart = learner.applied;
  }

  /** Opens the state directory: resumes from its checkpoint, or starts a new model. */
  static async open(options: ServiceOptions): Promise<LearningService> {
    await Deno.mkdir(options.stateDir, { recursive: true });
    const path = `${options.stateDir}/checkpoint.msgpack`;
    const bytes = await readFileIfExists(path);
    let learner: StreamLearner;
    if (bytes !== undefined) {
      let ck: LearnerCheckpoint;
      try {
        ck = decodeCheckpoint(bytes) as LearnerCheckpoint;
      } catch (e) {
        throw new SyntaxError(`Cannot read checkpoint ${path}: ${(e as Error).message}`);
      }
      learner = StreamLearner.fromCheckpoint(options.factory, ck);
    } else {
      learner = StreamLearner.create(options.factory, options);
    }
    const s = new LearningService(options, learner);
    if (bytes !== undefined) {
      s.#log(
        `resumed from ${path}: ${learner.applied} events applied, position ${
          JSON.stringify(learner.position)
        }`,
      );
    }
    return s;
  }

  /** The learner (model, vocabularies, counts). */
  get learner(): StreamLearner {
    return this.#learner;
  }

  /** The last published model file, if any. */
  get published(): PublishedModel | undefined {
    return this.#published;
  }

  /** Starts the sources and timers. */
  async start(): Promise<void> {
    const o = this.options;
    const ckMs = (o.checkpointSeconds ?? 5) * 1000;
    this.#timers.push(setInterval(() => {
      if (this.#learner.applied !== this.#appliedAtCheckpoint) this.#backgroundCheckpoint();
    }, ckMs));
    const flushMs = o.flushMs ?? 200;
    this.#timers.push(setInterval(() => {
      if (
        this.#learner.pendingCount > 0 && performance.now() - this.#lastIngestMs >= flushMs
      ) {
        this.#learner.flush();
      }
    }, Math.max(10, Math.floor(flushMs / 2))));
    if (this.#learner.applied > 0 && (o.publishEvery ?? 5000) > 0) await this.publish();
    if (o.redis !== undefined) await this.#startRedis(o.redis);
    if (o.follow !== undefined) this.#loops.push(this.#followLoop(o.follow));
  }

  /** Validates and applies an NDJSON body; bad lines are reported with their 1-based numbers. */
  ingestText(text: string, source: string): IngestResult {
    const rejected: { line: number; reason: string }[] = [];
    let accepted = 0, lineNo = 0, start = 0;
    const l = this.#learner;
    while (start <= text.length) {
      let end = text.indexOf("\n", start);
      if (end < 0) end = text.length;
      lineNo++;
      let line = text.slice(start, end);
      start = end + 1;
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line.trim() === "") continue;
      const r = l.ingestLine(line, source, lineNo);
      if (r.ok) accepted++;
      else rejected.push({ line: lineNo, reason: r.reason });
    }
    if (accepted > 0) this.#afterIngest();
    return { accepted, rejected };
  }

  #afterIngest(): void {
    this.#lastIngestMs = performance.now();
    const o = this.options;
    const l = this.#learner;
    if (l.applied - this.#appliedAtCheckpoint >= (o.checkpointEvery ?? 5000)) {
      this.#backgroundCheckpoint();
    }
    const every = o.publishEvery ?? 5000;
    if (every > 0 && l.applied - this.#appliedAtPublish >= every && !this.#publishing) {
      this.publish().catch((e) => this.#error("publish", e));
    }
  }

  #error(what: string, e: unknown): void {
    this.lastError = `${what}: ${(e as Error)?.message ?? String(e)}`;
    this.#log(`error in ${this.lastError}`);
  }

  #backgroundCheckpoint(): void {
    this.checkpoint().catch((e) => this.#error("checkpoint", e));
  }

  /**
   * Writes a checkpoint now (waits for one in progress, then writes a fresh one) and, once it is
   * durable, acknowledges the Redis entries it covers.
   */
  async checkpoint(): Promise<void> {
    if (this.#checkpointing !== undefined) {
      this.#checkpointAgain = true;
      await this.#checkpointing;
      if (this.#checkpointing !== undefined) return await this.#checkpointing;
      if (!this.#checkpointAgain) return;
    }
    this.#checkpointAgain = false;
    const run = this.#writeCheckpoint();
    this.#checkpointing = run;
    try {
      await run;
    } finally {
      this.#checkpointing = undefined;
    }
  }

  async #writeCheckpoint(): Promise<void> {
    // Snapshot synchronously: model, counts, position and the ids it covers agree.
    const l = this.#learner;
    const bytes = encodeCheckpoint(l.toCheckpoint());
    const applied = l.applied;
    const covered = this.#unacked;
    this.#unacked = [];
    try {
      await writeFileAtomic(this.checkpointPath, bytes);
    } catch (e) {
      this.#unacked = covered.concat(this.#unacked);
      throw e;
    }
    this.#appliedAtCheckpoint = applied;
    this.checkpointsWritten++;
    const r = this.options.redis;
    if (covered.length > 0 && this.#redisAck !== undefined && r !== undefined) {
      await this.#redisAck.xack(r.key ?? "tagstream:events", r.group ?? "tagstream", covered);
    }
  }

  /**
   * Builds and publishes a model file (atomically written to `model.tsm` and kept in memory for
   * `GET /model`). Not POP-pruned: pruning needs a validation set the stream does not provide.
   */
  async publish(): Promise<PublishedModel> {
    this.#publishing = true;
    try {
      const l = this.#learner;
      const applied = l.applied;
      const version = l.modelVersion + 1;
      const est = l.estimator;
      const bytes = est.toModelFile({
        labelNames: l.parser.labels.names.slice(0, est.numLabels),
        featureNames: l.parser.featureKeys === "name"
          ? l.parser.features.names.slice(0, est.numFeatures)
          : undefined,
        meta: {
          modelVersion: version,
          eventsApplied: applied,
          prequentialP1: l.window.precisionAt1,
          prequentialP5: l.window.precisionAt5,
          publishedAt: new Date().toISOString(),
        },
      });
      l.modelVersion = version;
      this.#appliedAtPublish = applied;
      const etag = `"v${version}-${await sha1Hex(bytes)}"`;
      const m: PublishedModel = { bytes, version, etag, applied, pruned: false };
      this.#published = m;
      await writeFileAtomic(this.modelPath, bytes);
      return m;
    } finally {
      this.#publishing = false;
    }
  }

  /** Metrics for `GET /metrics` and the progress line. */
  metrics(): Record<string, unknown> {
    const l = this.#learner;
    const secs = (performance.now() - this.#startedMs) / 1000;
    const mem = Deno.memoryUsage();
    const nan = (v: number) => (Number.isNaN(v) ? null : v);
    return {
      model: l.estimator.kind,
      modelVersion: l.modelVersion,
      eventsApplied: l.applied,
      eventsLearned: l.learned,
      eventsQueued: l.pendingCount,
      rejected: l.rejected,
      lastRejects: l.lastRejects.slice(-5),
      numFeatures: l.estimator.numFeatures,
      numLabels: l.estimator.numLabels,
      prequential: {
        window: l.window.filled,
        "P@1": nan(l.window.precisionAt1),
        "P@5": nan(l.window.precisionAt5),
        cumulativeP1: nan(l.window.cumulativeP1),
        cumulativeP5: nan(l.window.cumulativeP5),
        scored: l.window.totalScored,
      },
      eventsPerSecond: secs > 0 ? (l.applied - this.#appliedAtStart) / secs : 0,
      uptimeSeconds: secs,
      checkpoint: {
        appliedAtLastCheckpoint: this.#appliedAtCheckpoint,
        written: this.checkpointsWritten,
        unackedRedisEntries: this.#unacked.length,
        ackedOnRecovery: this.ackedOnRecovery,
      },
      position: l.position,
      published: this.#published === undefined ? null : {
        version: this.#published.version,
        etag: this.#published.etag,
        bytes: this.#published.bytes.length,
        applied: this.#published.applied,
        pruned: this.#published.pruned,
      },
      memory: { rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
      lastError: this.lastError ?? null,
    };
  }

  // ---- Redis ----

  async #startRedis(o: RedisSourceOptions): Promise<void> {
    const key = o.key ?? "tagstream:events", group = o.group ?? "tagstream";
    const consumer = o.consumer ?? "learner-1";
    this.#redis = await RedisClient.connect(o.url);
    this.#redisAck = await RedisClient.connect(o.url);
    await this.#redis.xgroupCreate(key, group, "0");
    const l = this.#learner;
    const prev = l.position.redis;
    const covered = prev !== undefined && prev.key === key && prev.group === group
      ? prev.lastId
      : "0-0";
    // Recovery: our own pending entries. Covered ones are acked, the rest applied in order.
    let after = "0";
    const toAck: string[] = [];
    while (true) {
      const entries = await this.#redis.xreadgroup(group, consumer, key, after, { count: 1000 });
      if (entries.length === 0) break;
      const fresh: StreamEntry[] = [];
      for (const e of entries) {
        if (compareStreamIds(e.id, covered) <= 0) toAck.push(e.id);
        else fresh.push(e);
      }
      if (fresh.length > 0) this.#applyEntries(fresh, key, group);
      after = entries[entries.length - 1].id;
    }
    if (toAck.length > 0) {
      await this.#redisAck.xack(key, group, toAck);
      this.ackedOnRecovery += toAck.length;
      this.#log(`acked ${toAck.length} pending entries already covered by the checkpoint`);
    }
    this.#loops.push(this.#redisLoop(key, group, consumer, o.count ?? 512));
  }

  #applyEntries(entries: readonly StreamEntry[], key: string, group: string): void {
    const l = this.#learner;
    let any = false;
    for (const e of entries) {
      const line = e.fields.event ?? e.fields.data;
      if (line === undefined) l.reject("redis", e.id, "entry has no 'event' field");
      else if (l.ingestLine(line, "redis", e.id).ok) any = true;
      l.position.redis = { key, group, lastId: e.id };
      this.#unacked.push(e.id);
    }
    if (any) this.#afterIngest();
    else if (entries.length > 0) this.#lastIngestMs = performance.now();
  }

  async #redisLoop(key: string, group: string, consumer: string, count: number): Promise<void> {
    const client = this.#redis!;
    while (!this.#stopped) {
      let entries: StreamEntry[];
      try {
        entries = await client.xreadgroup(group, consumer, key, ">", { count, blockMs: 100 });
      } catch (e) {
        if (this.#stopped) return;
        this.#error("redis read", e);
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (this.#stopped) return; // delivered but not applied: stays pending, re-read on restart
      if (entries.length > 0) this.#applyEntries(entries, key, group);
      else if (this.#learner.pendingCount > 0) this.#learner.flush();
    }
  }

  // ---- followed file ----

  async #followLoop(path: string): Promise<void> {
    const l = this.#learner;
    const pos = l.position.file?.path === path ? l.position.file : { path, offset: 0, line: 0 };
    let offset = pos.offset, lineNo = pos.line;
    const decoder = new TextDecoder();
    const buf = new Uint8Array(1 << 20);
    let carry = new Uint8Array(0);
    let file: Deno.FsFile | undefined;
    try {
      while (!this.#stopped) {
        if (file === undefined) {
          try {
            file = await Deno.open(path, { read: true });
            await file.seek(offset, Deno.SeekMode.Start);
            carry = new Uint8Array(0);
          } catch (e) {
            if (!(e instanceof Deno.errors.NotFound)) this.#error(`follow ${path}`, e);
            await new Promise((r) => setTimeout(r, 200));
            continue;
          }
        }
        const n = await file.read(buf);
        if (n === null || n === 0) {
          const size = (await Deno.stat(path).catch(() => undefined))?.size;
          if (size !== undefined && size < offset + carry.length) {
            this.#log(`${path} shrank below the followed offset: starting again from its start`);
            file.close();
            file = undefined;
            offset = 0;
            lineNo = 0;
          } else {
            if (l.pendingCount > 0 && performance.now() - this.#lastIngestMs >= 50) l.flush();
            await new Promise((r) => setTimeout(r, 100));
          }
          continue;
        }
        const chunk = new Uint8Array(carry.length + n);
        chunk.set(carry, 0);
        chunk.set(buf.subarray(0, n), carry.length);
        let start = 0, any = false;
        for (let i = 0; i < chunk.length; i++) {
          if (chunk[i] !== 10) continue;
          lineNo++;
          let end = i;
          if (end > start && chunk[end - 1] === 13) end--;
          const text = decoder.decode(chunk.subarray(start, end));
          offset += i + 1 - start;
          start = i + 1;
          if (text.trim() !== "" && l.ingestLine(text, path, lineNo).ok) any = true;
          l.position.file = { path, offset, line: lineNo };
        }
        carry = chunk.slice(start);
        if (any) this.#afterIngest();
        if (carry.length > l.parser.maxLineBytes * 4) {
          // A line without end that is far too long: skip it.
          l.reject(path, lineNo + 1, `line is longer than ${l.parser.maxLineBytes} bytes`);
          offset += carry.length;
          carry = new Uint8Array(0);
          l.position.file = { path, offset, line: lineNo };
        }
      }
    } finally {
      file?.close();
    }
  }

  /**
   * Stops the sources and timers and writes a final checkpoint (acking what it covers).
   * Queued events are saved in the checkpoint, not learned early, so batches stay aligned.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const t of this.#timers) clearInterval(t);
    await Promise.allSettled(this.#loops);
    try {
      await this.checkpoint();
    } finally {
      this.#redis?.close();
      this.#redisAck?.close();
    }
  }
}
