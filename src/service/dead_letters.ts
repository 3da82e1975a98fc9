/**
 * The rejected Redis entries waiting for their copy to the dead-letter stream. A reject is
 * acknowledged only once its copy is made: until then it waits here (oldest first), its entry is
 * held pending when a durable checkpoint covers it, each checkpoint keeps the waiting rejects (so
 * a restart copies them), and a copier retries a failing copy with a back-off doubling from
 * 250 ms. Past {@linkcode MAX_DEAD_LETTERS} rejects (or {@linkcode MAX_DEAD_LETTER_CHARS}
 * characters of them) the oldest are dropped, logged, and their entries acknowledged.
 *
 * @module
 */

/**
 * A rejected Redis entry, as copied to the dead-letter stream.
 *
 * @example
 * ```ts
 * import type { DeadLetter } from "./dead_letters.ts";
 * const r: DeadLetter = { id: "1-0", line: "{broken", reason: "not JSON" };
 * console.log(r.id); // 1-0
 * ```
 */
export interface DeadLetter {
  /** The entry's stream id. */
  id: string;
  /** Its event line ("" when it had no `event` field). */
  line: string;
  /** Why it was rejected. */
  reason: string;
}

/**
 * Where the copies go: the Redis source's dead-letter stream, acknowledgements and claims.
 *
 * @example
 * ```ts
 * import type { DeadLetterSink } from "./dead_letters.ts";
 * const sink: DeadLetterSink = {
 *   deadLetterKey: "ev:rejected",
 *   deadLetter: (rs) => Promise.resolve({ copied: rs.map((r) => r.id), error: undefined }),
 *   ack: (ids) => Promise.resolve(ids.length),
 *   keepPending: (ids) => Promise.resolve(ids.length),
 * };
 * console.log(sink.deadLetterKey); // ev:rejected
 * ```
 */
export interface DeadLetterSink {
  /** The dead-letter stream's key ("" when copies are off). */
  readonly deadLetterKey: string;
  /** Copies rejects; says which were copied and the error that stopped the others. */
  deadLetter(
    rejects: readonly DeadLetter[],
  ): Promise<{ copied: string[]; error: Error | undefined }>;
  /** Acknowledges entries. */
  ack(ids: readonly string[]): Promise<number>;
  /** Resets pending entries' idle time, so that no other consumer takes them over. */
  keepPending(ids: readonly string[]): Promise<number>;
}

/**
 * Most rejected entries waiting for their dead-letter copy (the stream keeps ~10000 too).
 *
 * @example
 * ```ts
 * import { MAX_DEAD_LETTERS } from "./dead_letters.ts";
 * console.log(MAX_DEAD_LETTERS); // 10000
 * ```
 */
export const MAX_DEAD_LETTERS = 10_000;

/**
 * Most characters (ids, lines, reasons) of the rejected entries waiting for their copy.
 *
 * @example
 * ```ts
 * import { MAX_DEAD_LETTER_CHARS } from "./dead_letters.ts";
 * console.log(MAX_DEAD_LETTER_CHARS); // 16777216
 * ```
 */
export const MAX_DEAD_LETTER_CHARS = 16 << 20;

/** Longest wait between two tries of a failing dead-letter copy, in milliseconds. */
const MAX_BACKOFF_MS = 30_000;

/** Rejects copied in one try. */
const COPY_BATCH = 256;

/** The characters a waiting reject holds (its id, line and reason). */
function chars(r: DeadLetter): number {
  return r.id.length + r.line.length + r.reason.length;
}

/**
 * The rejects waiting for their dead-letter copy (see the module doc), and the copier.
 *
 * @example
 * ```ts
 * import { DeadLetterQueue } from "./dead_letters.ts";
 * const copies: string[] = [], acked: string[] = [];
 * const q = new DeadLetterQueue({
 *   deadLetterKey: "ev:rejected",
 *   deadLetter: (rs) => {
 *     copies.push(...rs.map((r) => r.id));
 *     return Promise.resolve({ copied: rs.map((r) => r.id), error: undefined });
 *   },
 *   ack: (ids) => (acked.push(...ids), Promise.resolve(ids.length)),
 *   keepPending: (ids) => Promise.resolve(ids.length),
 * }, { log: () => {}, error: () => {}, claimIdleMs: 60000 });
 * q.keep({ id: "1-0", line: "{", reason: "not JSON" });
 * console.log(q.waits("1-0"), q.hold("1-0")); // true true
 * q.start();
 * await q.stop();
 * console.log(copies, acked, q.size); // [ "1-0" ] [ "1-0" ] 0
 * ```
 */
export class DeadLetterQueue {
  readonly #sink: DeadLetterSink;
  readonly #log: (message: string) => void;
  readonly #error: (what: string, e: unknown) => void;
  readonly #maxDelayMs: number;
  /** The waiting rejects, by id, oldest first. */
  readonly #waiting = new Map<string, DeadLetter>();
  #chars = 0;
  /** Ids a durable checkpoint covers, held unacknowledged until their copy is made. */
  readonly #held = new Set<string>();
  #dropped = 0;
  #droppedLoggedAt: number | undefined;
  #lastError: string | undefined;
  #stopped = false;
  #copying: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** Whether the waiting rejects changed since the last {@linkcode DeadLetterQueue.snapshot}. */
  changed = false;

  /**
   * @param sink where the copies go
   * @param o `log` and `error` report (the service's log and last error); `claimIdleMs` is the
   *   source's: the back-off stays below half of it, so that held entries are kept from other
   *   consumers in time
   */
  constructor(
    sink: DeadLetterSink,
    o: {
      log: (message: string) => void;
      error: (what: string, e: unknown) => void;
      claimIdleMs: number;
    },
  ) {
    this.#sink = sink;
    this.#log = o.log;
    this.#error = o.error;
    this.#maxDelayMs = Math.max(
      250,
      Math.min(MAX_BACKOFF_MS, o.claimIdleMs > 0 ? o.claimIdleMs / 2 : Infinity),
    );
  }

  /** Rejects waiting for their copy. */
  get size(): number {
    return this.#waiting.size;
  }

  /** What `/metrics` shows: the stream, the rejects waiting, held, dropped, and the last error. */
  metrics(): Record<string, unknown> {
    return {
      key: this.#sink.deadLetterKey,
      waiting: this.#waiting.size,
      held: this.#held.size,
      dropped: this.#dropped,
      error: this.#lastError ?? null,
    };
  }

  /** Whether the reject `id` waits for its copy. */
  waits(id: string): boolean {
    return this.#waiting.has(id);
  }

  /**
   * Holds the entry `id` unacknowledged (a durable checkpoint covers it) if its reject waits for
   * its copy; returns whether it does (else the caller acknowledges it).
   */
  hold(id: string): boolean {
    if (!this.#waiting.has(id)) return false;
    this.#held.add(id);
    return true;
  }

  /** The held entries (a restart's recovery leaves them pending). */
  get held(): ReadonlySet<string> {
    return this.#held;
  }

  /**
   * Keeps a reject until its copy is made; past the limits the oldest are dropped, logged, and
   * their held entries acknowledged.
   */
  keep(r: DeadLetter): void {
    const old = this.#waiting.get(r.id);
    if (old !== undefined) this.#forget(old);
    this.#waiting.set(r.id, r);
    this.#chars += chars(r);
    this.changed = true;
    const drop: DeadLetter[] = [];
    // oldest first; the newest stays whatever its size (its entry is in memory anyway)
    while (
      this.#waiting.size > 1 &&
      (this.#waiting.size > MAX_DEAD_LETTERS || this.#chars > MAX_DEAD_LETTER_CHARS)
    ) {
      const oldest = this.#waiting.values().next().value!;
      this.#forget(oldest);
      drop.push(oldest);
    }
    if (drop.length === 0) return;
    const ack = drop.filter((d) => this.#held.delete(d.id)).map((d) => d.id);
    this.#dropped += drop.length;
    // the first drop is logged at once, then at most one line each 10 s
    const now = performance.now();
    if (this.#droppedLoggedAt === undefined || now - this.#droppedLoggedAt >= 10_000) {
      this.#droppedLoggedAt = now;
      const last = drop[drop.length - 1];
      this.#log(
        `dropped the dead-letter copy of rejected Redis entry ${last.id} (${last.reason}): ` +
          `more than ${MAX_DEAD_LETTERS} rejects (or ${MAX_DEAD_LETTER_CHARS >> 20} Mi ` +
          `characters of them) wait for their copy to ${this.#sink.deadLetterKey} (last error: ` +
          `${this.#lastError ?? "none"}); ${this.#dropped} dropped so far`,
      );
    }
    if (ack.length > 0) this.#sink.ack(ack).catch((e) => this.#error("redis ack", e));
  }

  /**
   * Takes back the rejects a checkpoint kept (after a restart): each waits again and its entry
   * is held (it stays pending until copied).
   */
  restore(kept: readonly DeadLetter[]): void {
    for (const r of kept) this.keep(r);
    for (const id of this.#waiting.keys()) this.#held.add(id);
  }

  /** The waiting rejects, oldest first, for a checkpoint (undefined: none); clears `changed`. */
  snapshot(): DeadLetter[] | undefined {
    this.changed = false;
    return this.#waiting.size > 0 ? [...this.#waiting.values()] : undefined;
  }

  #forget(r: DeadLetter): void {
    this.#waiting.delete(r.id);
    this.#chars -= chars(r);
    this.changed = true;
  }

  /** Starts the copier, unless it runs already, nothing waits, or the queue is stopped. */
  start(): void {
    if (this.#copying !== undefined || this.#waiting.size === 0 || this.#stopped) return;
    this.#copying = this.#copyLoop().finally(() => this.#copying = undefined);
  }

  /** Stops the copier: a copy in flight ends first (the last checkpoint then keeps the rest). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#copying;
  }

  /**
   * Copies the waiting rejects, oldest first, until none waits: a failure is reported (`error`,
   * `metrics().error`) and tried again after a wait doubling from 250 ms. A copied entry that is
   * held is acknowledged at once; the others with the checkpoint that covers them.
   */
  async #copyLoop(): Promise<void> {
    const sink = this.#sink;
    let delay = 0;
    while (this.#waiting.size > 0 && !this.#stopped) {
      if (delay > 0) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delay);
          this.#wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        this.#wake = undefined;
        if (this.#stopped) return;
      }
      const batch: DeadLetter[] = [];
      for (const r of this.#waiting.values()) {
        batch.push(r);
        if (batch.length === COPY_BATCH) break;
      }
      const { copied, error } = await sink.deadLetter(batch);
      const ack: string[] = [];
      for (const id of copied) {
        const r = this.#waiting.get(id);
        if (r === undefined) continue;
        this.#forget(r);
        if (this.#held.delete(id)) ack.push(id);
      }
      if (ack.length > 0) await sink.ack(ack).catch((e) => this.#error("redis ack", e));
      if (error === undefined) {
        if (this.#lastError !== undefined) {
          this.#log(`dead-letter copies to ${sink.deadLetterKey} succeed again`);
          this.#lastError = undefined;
        }
        delay = 0;
        continue;
      }
      if (this.#stopped) return;
      // held entries look stuck: keep other consumers from reclaiming them (at least every
      // claimIdleMs / 2)
      if (this.#held.size > 0) {
        await sink.keepPending([...this.#held]).catch((e) => this.#error("redis keep pending", e));
      }
      delay = Math.min(this.#maxDelayMs, delay === 0 ? 250 : delay * 2);
      this.#lastError = error.message;
      this.#error(
        "redis dead-letter",
        new Error(
          `${error.message} (copying to ${sink.deadLetterKey}: ${this.#waiting.size} rejected ` +
            `entries wait, kept in the checkpoint and not acknowledged; next try in ` +
            `${delay / 1000} s)`,
        ),
      );
    }
  }
}
