/**
 * A Redis Stream consumed through a consumer group, one event per entry (field `event`, or
 * `data`, holding one NDJSON event line). The learner is a single consumer whose name is stable
 * across restarts: after a crash its pending entries (delivered, not acknowledged) are read
 * again, and those a checkpoint already covers are acknowledged without being applied again.
 *
 * Two connections: one blocks in XREADGROUP, the other acknowledges and answers queries.
 *
 * @module
 */
import { compareStreamIds, RedisClient, type StreamEntry } from "./redis_client.ts";

/**
 * Settings of a Redis Stream source.
 *
 * @example
 * ```ts
 * import type { RedisSourceOptions } from "./redis_source.ts";
 * const o: RedisSourceOptions = { url: "redis://127.0.0.1:6379", key: "tagstream:events" };
 * console.log(o.key); // "tagstream:events"
 * ```
 */
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
  /** Longest wait of one blocking read, in milliseconds (default 100). */
  blockMs?: number;
  /** Stream receiving rejected entries with their reason (default `<key>:rejected`; "" for none). */
  deadLetterKey?: string;
}

/**
 * The event line an entry carries (field `event`, else `data`), or undefined when it has none.
 *
 * @example
 * ```ts
 * import { entryLine } from "./redis_source.ts";
 * console.log(entryLine({ id: "1-0", fields: { event: "{}" } })); // "{}"
 * ```
 */
export function entryLine(e: StreamEntry): string | undefined {
  return e.fields.event ?? e.fields.data;
}

/**
 * A consumer-group reader of one stream.
 *
 * @example
 * ```ts
 * import { RedisStreamSource } from "./redis_source.ts";
 * // Needs a running redis-server (see tests/stream); shown here without connecting.
 * console.log(typeof RedisStreamSource.connect); // "function"
 * ```
 */
export class RedisStreamSource {
  /** Stream key. */
  readonly key: string;
  /** Consumer group. */
  readonly group: string;
  /** This consumer's name. */
  readonly consumer: string;
  readonly #reader: RedisClient;
  readonly #control: RedisClient;
  readonly #count: number;
  readonly #blockMs: number;
  readonly #deadLetter: string;
  /** Entries acknowledged at recovery because the checkpoint already covered them. */
  ackedOnRecovery = 0;

  private constructor(
    o: RedisSourceOptions,
    reader: RedisClient,
    control: RedisClient,
  ) {
    this.key = o.key ?? "tagstream:events";
    this.group = o.group ?? "tagstream";
    this.consumer = o.consumer ?? "learner-1";
    this.#reader = reader;
    this.#control = control;
    this.#count = o.count ?? 512;
    this.#blockMs = o.blockMs ?? 100;
    this.#deadLetter = o.deadLetterKey ?? `${this.key}:rejected`;
  }

  /**
   * Connects (two connections) and creates the group, reading the stream from its beginning,
   * when it does not exist yet.
   */
  static async connect(o: RedisSourceOptions): Promise<RedisStreamSource> {
    const reader = await RedisClient.connect(o.url);
    let control: RedisClient;
    try {
      control = await RedisClient.connect(o.url);
    } catch (e) {
      reader.close();
      throw e;
    }
    const s = new RedisStreamSource(o, reader, control);
    try {
      await control.xgroupCreate(s.key, s.group, "0");
    } catch (e) {
      s.close();
      throw e;
    }
    return s;
  }

  /**
   * This consumer's pending entries in id order, in chunks: entries with ids at or below
   * `coveredId` (already in the checkpoint) are acknowledged and left out; the rest are yielded
   * to be applied again.
   */
  async *recover(coveredId: string): AsyncGenerator<StreamEntry[]> {
    let after = "0";
    while (true) {
      const entries = await this.#reader.xreadgroup(this.group, this.consumer, this.key, after, {
        count: 1000,
      });
      if (entries.length === 0) return;
      const covered: string[] = [];
      const fresh: StreamEntry[] = [];
      for (const e of entries) {
        if (compareStreamIds(e.id, coveredId) <= 0) covered.push(e.id);
        else fresh.push(e);
      }
      if (covered.length > 0) {
        await this.#control.xack(this.key, this.group, covered);
        this.ackedOnRecovery += covered.length;
      }
      if (fresh.length > 0) yield fresh;
      after = entries[entries.length - 1].id;
    }
  }

  /** New entries for this consumer (waits up to `blockMs` when there are none). */
  read(): Promise<StreamEntry[]> {
    return this.#reader.xreadgroup(this.group, this.consumer, this.key, ">", {
      count: this.#count,
      blockMs: this.#blockMs,
    });
  }

  /** Acknowledges entries (after the checkpoint covering them is durable). */
  ack(ids: readonly string[]): Promise<number> {
    return this.#control.xack(this.key, this.group, ids);
  }

  /** Copies rejected entries with their reasons to the dead-letter stream (capped ~10000). */
  async deadLetter(
    rejects: readonly { id: string; line: string; reason: string }[],
  ): Promise<void> {
    if (this.#deadLetter === "" || rejects.length === 0) return;
    await Promise.all(rejects.map((r) =>
      this.#control.command(
        "XADD",
        this.#deadLetter,
        "MAXLEN",
        "~",
        10000,
        "*",
        "id",
        r.id,
        "event",
        r.line,
        "reason",
        r.reason,
      )
    ));
  }

  /** Entries of the group delivered but not acknowledged. */
  pending(): Promise<number> {
    return this.#control.xpendingCount(this.key, this.group);
  }

  /** Closes both connections. */
  close(): void {
    this.#reader.close();
    this.#control.close();
  }
}
