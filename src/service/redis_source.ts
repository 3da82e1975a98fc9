/**
 * A Redis Stream consumed through a consumer group, one event per entry (field `event`, or
 * `data`, holding one NDJSON event line). The learner is a single consumer whose name is stable
 * across restarts: after a crash its pending entries (delivered, not acknowledged) are read
 * again, and those a checkpoint already covers are acknowledged without being applied again.
 *
 * Two connections: one blocks in XREADGROUP, the other acknowledges and answers queries.
 *
 * Reconnect: when a connection drops (server restart, `CLIENT KILL`, network), the next
 * {@linkcode RedisStreamSource.read} reconnects both (AUTH, TLS and the group again), waiting
 * 100 ms, doubling up to 5 s between failed attempts. Entries delivered on the old connection but
 * whose reply was lost are still pending for this consumer: after a reconnect the source re-reads
 * its own pending entries and hands over those it has not handed over before (it remembers the
 * ids handed over and not yet acknowledged), so nothing is lost or applied twice. Acknowledgements
 * that failed are retried after the reconnect.
 *
 * A server that answers "not now" (`LOADING` its data after a restart, `BUSY` in a long script)
 * is treated like a dropped connection: reads reject and are retried, acknowledgements are kept
 * and sent again by the next `read` or `ack`, and `connect` waits for it up to 30 s.
 *
 * Reclaim: entries pending with another consumer (one that died) for longer than `claimIdleMs`
 * are taken over in one server-side script: XPENDING ... IDLE finds them (this consumer's own
 * pending entries are never taken: they wait for a checkpoint), XCLAIM takes each, XADD appends a
 * copy (field `claimed-from` holds the old id) and XACK retires the original. The copy is read
 * like any new entry, so the checkpoint's single "last id" keeps covering exactly what was
 * applied (a claimed entry keeping its old, smaller id would be acknowledged unapplied after a
 * crash). Needs Redis ≥ 6.2 (XPENDING IDLE). Entries held pending on purpose (rejects whose copy
 * to the dead-letter stream has not succeeded, see {@linkcode RedisStreamSource.deadLetter}) have
 * their idle time reset by {@linkcode RedisStreamSource.keepPending}, so that no other consumer
 * takes them over.
 *
 * @module
 */
import {
  compareStreamIds,
  RedisClient,
  RedisConnectionError,
  type StreamEntry,
} from "./redis_client.ts";
import { checkOptionKeys, numberOption, stringOption, typed } from "../data/option_check.ts";
import { MAX_TIMER_MS } from "./option_rules.ts";

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
  /** PEM file of a certificate authority to trust for `rediss://`. */
  caFile?: string;
  /**
   * Take over entries pending with another consumer for at least this many milliseconds
   * (default 60000; 0 disables reclaiming).
   */
  claimIdleMs?: number;
  /**
   * Longest wait for a reply (beyond a blocking read's `blockMs`) before the connection is taken
   * for dead and made again, in milliseconds (default 10000): a server or network gone silent
   * sends no reset, and a read or acknowledgement would otherwise wait for ever. It also bounds
   * each step of a connection: the TCP connection, the TLS handshake, AUTH, SELECT and the group's
   * creation, so that {@linkcode RedisStreamSource.connect} (and the service's start) fails naming
   * the address and the limit instead of hanging on a server that accepts and never answers.
   */
  replyTimeoutMs?: number;
}

/** Default of {@linkcode RedisSourceOptions.replyTimeoutMs}. */
const REPLY_TIMEOUT_MS = 10_000;

/** How long {@linkcode RedisStreamSource.connect} waits for a server loading its data. */
const CONNECT_WAIT_MS = 30_000;

/** Server-side reclaim: KEYS[1] stream; ARGV group, self, min idle ms, count, start id. */
const CLAIM_SCRIPT = `
local p = redis.call('XPENDING', KEYS[1], ARGV[1], 'IDLE', ARGV[3], ARGV[5], '+', ARGV[4])
local n = 0
for _, e in ipairs(p) do
  local id, owner = e[1], e[2]
  if owner ~= ARGV[2] then
    local c = redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], id)
    if #c > 0 and c[1][2] then
      local args = {'XADD', KEYS[1], '*'}
      for _, v in ipairs(c[1][2]) do args[#args + 1] = v end
      args[#args + 1] = 'claimed-from'
      args[#args + 1] = id
      redis.call(unpack(args))
      n = n + 1
    end
    redis.call('XACK', KEYS[1], ARGV[1], id)
  end
end
local nextStart = '-'
if #p == tonumber(ARGV[4]) then nextStart = '(' .. p[#p][1] end
return {n, nextStart}
`;

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
 * // Needs a running redis-server (see tests/service); shown here without connecting.
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
  #reader: RedisClient;
  #control: RedisClient;
  readonly #o: RedisSourceOptions;
  readonly #count: number;
  readonly #blockMs: number;
  readonly #deadLetter: string;
  readonly #claimIdleMs: number;
  readonly #claimEveryMs: number;
  #claimAt = 0;
  #claimStart = "-";
  /** Ids handed over (by recover, read) and not acknowledged yet. */
  readonly #handedOver = new Set<string>();
  #ackRetry: string[] = [];
  #resync = false;
  #reconnecting: Promise<void> | undefined;
  #retryAt = 0;
  #backoffMs = 0;
  #closed = false;
  /** Entries acknowledged at recovery because the checkpoint already covered them. */
  ackedOnRecovery = 0;
  /** Successful reconnects. */
  reconnects = 0;
  /** Entries taken over from dead consumers (re-appended for reading). */
  claimed = 0;

  private constructor(
    o: RedisSourceOptions,
    reader: RedisClient,
    control: RedisClient,
  ) {
    this.#o = o;
    this.key = o.key ?? "tagstream:events";
    this.group = o.group ?? "tagstream";
    this.consumer = o.consumer ?? "learner-1";
    this.#reader = reader;
    this.#control = control;
    this.#count = o.count ?? 512;
    this.#blockMs = o.blockMs ?? 100;
    this.#deadLetter = o.deadLetterKey ?? `${this.key}:rejected`;
    this.#claimIdleMs = o.claimIdleMs ?? 60000;
    this.#claimEveryMs = Math.min(5000, Math.max(20, this.#claimIdleMs / 2));
  }

  /**
   * Connects (two connections) and creates the group, reading the stream from its beginning,
   * when it does not exist yet.
   *
   * @throws {TypeError} for an unknown option key, a missing `url` or a value of the wrong type;
   * {RangeError} for a value out of range (see `checkRedisOptions` in `service_options.ts`)
   */
  static async connect(o: RedisSourceOptions): Promise<RedisStreamSource> {
    checkRedisOptions("RedisStreamSource.connect", o);
    const [reader, control] = await RedisStreamSource.#open(o);
    const s = new RedisStreamSource(o, reader, control);
    try {
      // A server still loading its data (or busy in a script) answers "not now": wait for it.
      const deadline = Date.now() + CONNECT_WAIT_MS;
      for (let delay = 100;; delay = Math.min(2000, delay * 2)) {
        try {
          await control.xgroupCreate(s.key, s.group, "0");
          break;
        } catch (e) {
          if (!(e instanceof RedisConnectionError) || control.closed) throw e;
          if (Date.now() + delay > deadline) {
            throw new RedisConnectionError(
              `${(e as Error).message} (still after ${CONNECT_WAIT_MS / 1000} s)`,
            );
          }
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    } catch (e) {
      s.close();
      throw e;
    }
    return s;
  }

  static async #open(o: RedisSourceOptions): Promise<[RedisClient, RedisClient]> {
    const extra = {
      ...(o.caFile !== undefined ? { caFile: o.caFile } : {}),
      replyTimeoutMs: o.replyTimeoutMs ?? REPLY_TIMEOUT_MS,
    };
    const reader = await RedisClient.connect(o.url, extra);
    try {
      return [reader, await RedisClient.connect(o.url, extra)];
    } catch (e) {
      reader.close();
      throw e;
    }
  }

  /** Reconnects both connections once the backoff delay has passed (shared by callers). */
  #reconnect(): Promise<void> {
    this.#reconnecting ??= (async () => {
      const wait = this.#retryAt - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (this.#closed) throw new RedisConnectionError("Redis source closed");
      try {
        const [reader, control] = await RedisStreamSource.#open(this.#o);
        this.#reader.close();
        this.#control.close();
        this.#reader = reader;
        this.#control = control;
        if (this.#closed) {
          reader.close();
          control.close();
          throw new RedisConnectionError("Redis source closed");
        }
        // A server that restarted without its data needs the group again.
        await control.xgroupCreate(this.key, this.group, "0");
        this.#backoffMs = 0;
        this.#resync = true;
        this.reconnects++;
        await this.#retryAcks();
      } catch (e) {
        this.#backoffMs = Math.min(5000, this.#backoffMs === 0 ? 100 : this.#backoffMs * 2);
        this.#retryAt = Date.now() + this.#backoffMs;
        throw e;
      }
    })().finally(() => this.#reconnecting = undefined);
    return this.#reconnecting;
  }

  /** Whether a connection needs re-establishing (after a failure on it). */
  get #broken(): boolean {
    return !this.#closed && (this.#reader.closed || this.#control.closed);
  }

  /**
   * This consumer's pending entries in id order, in chunks: entries with ids at or below
   * `coveredId` (already in the checkpoint) are acknowledged and left out, except those in
   * `keep` (rejected entries whose dead-letter copy has not succeeded yet: they stay pending
   * until it does, and are not handed over again); the rest are yielded to be applied again.
   */
  async *recover(
    coveredId: string,
    keep: ReadonlySet<string> = new Set(),
  ): AsyncGenerator<StreamEntry[]> {
    let after = "0";
    while (true) {
      const entries = await this.#reader.xreadgroup(this.group, this.consumer, this.key, after, {
        count: 1000,
      });
      if (entries.length === 0) return;
      const covered: string[] = [];
      const fresh: StreamEntry[] = [];
      for (const e of entries) {
        if (compareStreamIds(e.id, coveredId) > 0) fresh.push(e);
        else if (keep.has(e.id)) this.#handedOver.add(e.id);
        else covered.push(e.id);
      }
      if (covered.length > 0) {
        await this.#control.xack(this.key, this.group, covered);
        this.ackedOnRecovery += covered.length;
      }
      for (const e of fresh) this.#handedOver.add(e.id);
      if (fresh.length > 0) yield fresh;
      after = entries[entries.length - 1].id;
    }
  }

  /**
   * New entries for this consumer (waits up to `blockMs` when there are none). After a dropped
   * connection it reconnects (with backoff; a failed attempt rejects, the next call tries again)
   * and first returns the entries delivered on the lost connection that never arrived. Every
   * `claimIdleMs / 2` (at most 5 s) it first takes over entries stuck with dead consumers.
   */
  async read(): Promise<StreamEntry[]> {
    if (this.#broken || this.#reconnecting !== undefined) await this.#reconnect();
    try {
      await this.#retryAcks();
      if (this.#resync) {
        const lost = await this.#lostEntries();
        this.#resync = false;
        if (lost.length > 0) return lost;
      }
      if (this.#claimIdleMs > 0 && Date.now() >= this.#claimAt) {
        this.#claimAt = Date.now() + this.#claimEveryMs;
        await this.claimStale();
      }
      const entries = await this.#reader.xreadgroup(this.group, this.consumer, this.key, ">", {
        count: this.#count,
        blockMs: this.#blockMs,
      });
      for (const e of entries) this.#handedOver.add(e.id);
      return entries;
    } catch (e) {
      if (e instanceof RedisConnectionError && !this.#closed) {
        this.#retryAt = Date.now() + (this.#backoffMs || 100);
      }
      throw e;
    }
  }

  /**
   * This consumer's pending entries never handed over (their reply was lost with a connection).
   * They count as handed over only once all chunks are read: a failure between two chunks leaves
   * them to the next try (marked at once, the first chunks' would never be handed over).
   */
  async #lostEntries(): Promise<StreamEntry[]> {
    const out: StreamEntry[] = [];
    let after = "0";
    while (true) {
      const entries = await this.#reader.xreadgroup(this.group, this.consumer, this.key, after, {
        count: 1000,
      });
      if (entries.length === 0) break;
      for (const e of entries) if (!this.#handedOver.has(e.id)) out.push(e);
      after = entries[entries.length - 1].id;
    }
    for (const e of out) this.#handedOver.add(e.id);
    return out;
  }

  /**
   * Takes over entries pending with other consumers for at least `claimIdleMs` (see the module
   * notes): re-appends each to the stream and acknowledges the original. Returns how many.
   * Called by {@linkcode read} periodically.
   */
  async claimStale(count = 100): Promise<number> {
    if (this.#claimIdleMs <= 0) return 0;
    let total = 0;
    for (let round = 0; round < 100; round++) {
      const r = await this.#control.command(
        "EVAL",
        CLAIM_SCRIPT,
        1,
        this.key,
        this.group,
        this.consumer,
        this.#claimIdleMs,
        count,
        this.#claimStart,
      );
      const [n, next] = Array.isArray(r) ? r : [0, "-"];
      total += Number(n);
      this.#claimStart = String(next);
      if (this.#claimStart === "-") break;
    }
    this.claimed += total;
    return total;
  }

  async #ackNow(ids: readonly string[]): Promise<number> {
    const n = await this.#control.xack(this.key, this.group, ids);
    for (const id of ids) this.#handedOver.delete(id);
    return n;
  }

  /** Sends the acknowledgements that failed before; those failing again are kept again. */
  async #retryAcks(): Promise<void> {
    const ids = this.#ackRetry.splice(0);
    if (ids.length === 0) return;
    try {
      await this.#ackNow(ids);
    } catch (e) {
      if (e instanceof RedisConnectionError && !this.#closed) this.#ackRetry.unshift(...ids);
      throw e;
    }
  }

  /**
   * Acknowledges entries (after the checkpoint covering them is durable), with any whose
   * acknowledgement failed before. When the connection is down or the server cannot serve
   * (loading its data, busy), the ids are kept and sent again by the next `ack` or `read`
   * (the promise still rejects).
   */
  async ack(ids: readonly string[]): Promise<number> {
    if (ids.length === 0 && this.#ackRetry.length === 0) return 0;
    const all = [...this.#ackRetry.splice(0), ...ids];
    try {
      if (this.#broken) await this.#reconnect();
      return await this.#ackNow(all);
    } catch (e) {
      if (e instanceof RedisConnectionError && !this.#closed) this.#ackRetry.unshift(...all);
      throw e;
    }
  }

  /** The dead-letter stream's key ("" when rejected entries are not copied). */
  get deadLetterKey(): string {
    return this.#deadLetter;
  }

  /**
   * Copies rejected entries with their reasons to the dead-letter stream (capped ~10000).
   * Resolves with the ids copied (all of them when there is no dead-letter stream) and the
   * first error of those that were not (a dropped connection is made again first, as by `ack`).
   */
  async deadLetter(
    rejects: readonly { id: string; line: string; reason: string }[],
  ): Promise<{ copied: string[]; error: Error | undefined }> {
    if (this.#deadLetter === "" || rejects.length === 0) {
      return { copied: rejects.map((r) => r.id), error: undefined };
    }
    try {
      if (this.#broken) await this.#reconnect();
    } catch (e) {
      return { copied: [], error: e as Error };
    }
    const control = this.#control;
    const done = await Promise.allSettled(rejects.map((r) =>
      control.command(
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
    const copied: string[] = [];
    let error: Error | undefined;
    done.forEach((d, i) => {
      if (d.status === "fulfilled") copied.push(rejects[i].id);
      else error ??= d.reason as Error;
    });
    return { copied, error };
  }

  /**
   * Resets the idle time of this consumer's pending entries `ids` (XCLAIM to itself, JUSTID), so
   * that another consumer's reclaim (see the module notes) leaves alone the entries held on
   * purpose: rejects waiting for their dead-letter copy. Resolves with how many are pending.
   */
  async keepPending(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    if (this.#broken) await this.#reconnect();
    let n = 0;
    for (let i = 0; i < ids.length; i += 1000) {
      const r = await this.#control.command(
        "XCLAIM",
        this.key,
        this.group,
        this.consumer,
        0,
        ...ids.slice(i, i + 1000),
        "JUSTID",
      );
      if (Array.isArray(r)) n += r.length;
    }
    return n;
  }

  /** Entries of the group delivered but not acknowledged. */
  pending(): Promise<number> {
    return this.#control.xpendingCount(this.key, this.group);
  }

  /** Closes both connections. */
  close(): void {
    this.#closed = true;
    this.#reader.close();
    this.#control.close();
  }
}

const REDIS_KEYS = [
  "url",
  "key",
  "group",
  "consumer",
  "count",
  "blockMs",
  "deadLetterKey",
  "caFile",
  "claimIdleMs",
  "replyTimeoutMs",
] as const satisfies readonly (keyof RedisSourceOptions)[];

/**
 * Checks a Redis source's options ({@linkcode RedisSourceOptions}) and returns them.
 *
 * @throws {TypeError} for a non-object, an unknown key, a missing `url` or a value of the wrong type
 * @throws {RangeError} for a count or delay out of range (`blockMs` and `claimIdleMs` in
 * [0, 2^31 − 1] ms)
 *
 * @example
 * ```ts
 * import { checkRedisOptions } from "./redis_source.ts";
 * try {
 *   checkRedisOptions("demo", { url: "redis://127.0.0.1:6379", kye: "events" });
 * } catch (e) {
 *   console.log((e as Error).message.startsWith('demo: unknown option "kye"')); // true
 * }
 * ```
 */
export function checkRedisOptions(where: string, options: unknown): RedisSourceOptions {
  const o = checkOptionKeys(where, options as RedisSourceOptions, REDIS_KEYS);
  stringOption(where, "url", o.url, true);
  for (const k of ["key", "group", "consumer", "caFile"] as const) stringOption(where, k, o[k]);
  typed(where, "deadLetterKey", o.deadLetterKey, "a string", typeof o.deadLetterKey === "string");
  numberOption(where, "count", o.count, 512, 1, 1 << 20, true);
  numberOption(where, "blockMs", o.blockMs, 100, 0, MAX_TIMER_MS, true);
  numberOption(where, "claimIdleMs", o.claimIdleMs, 60000, 0, MAX_TIMER_MS, true);
  numberOption(where, "replyTimeoutMs", o.replyTimeoutMs, REPLY_TIMEOUT_MS, 1, MAX_TIMER_MS, true);
  return o;
}
