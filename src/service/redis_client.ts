/**
 * A small Redis client speaking RESP2 over `Deno.connect` (or `Deno.connectTls` for `rediss://`):
 * AUTH (ACL and legacy forms), pipelined commands and the stream commands the service needs
 * (XADD, XREADGROUP, XACK, XGROUP CREATE ... MKSTREAM, XPENDING, XLEN). No npm redis package (not
 * installed here; the service needs only these few commands). Reconnecting is the caller's job
 * (see redis_source.ts): a failed connection rejects every command with a
 * {@linkcode RedisConnectionError}.
 *
 * @module
 */
import { concatBytes } from "../data/bytes.ts";
import { MAX_TIMER_MS } from "./option_rules.ts";

/** A decoded RESP2 reply: simple/bulk strings, integers, null, arrays. Errors reject. */
export type RespValue = string | number | null | RespValue[];

/** One stream entry: its id and its field/value pairs. */
export interface StreamEntry {
  /** Entry id, `"<ms>-<seq>"`. */
  readonly id: string;
  /** Field/value pairs of the entry. */
  readonly fields: Record<string, string>;
}

const CRLF = Uint8Array.of(13, 10);

/**
 * Encodes one command as a RESP array of bulk strings.
 *
 * @example
 * ```ts
 * import { encodeCommand } from "./redis_client.ts";
 * console.log(new TextDecoder().decode(encodeCommand(["PING"]))); // "*1\r\n$4\r\nPING\r\n"
 * ```
 */
export function encodeCommand(args: readonly (string | number | Uint8Array)[]): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode(`*${args.length}\r\n`)];
  for (const a of args) {
    const b = a instanceof Uint8Array ? a : enc.encode(String(a));
    parts.push(enc.encode(`$${b.length}\r\n`), b, CRLF);
  }
  return concatBytes(parts);
}

/** Thrown inside the parser when a reply is not complete yet. */
const INCOMPLETE = Symbol("incomplete");

/** A RESP error reply, kept apart from values until it reaches its caller. */
class ReplyError {
  constructor(readonly message: string) {}
}

/**
 * Incremental RESP2 reply parser: feed bytes, take complete replies.
 *
 * @example
 * ```ts
 * import { RespParser } from "./redis_client.ts";
 * const p = new RespParser();
 * p.feed(new TextEncoder().encode("+OK\r\n:4"));
 * console.log(p.next()); // { value: "OK" }
 * p.feed(new TextEncoder().encode("2\r\n"));
 * console.log(p.next()); // { value: 42 }
 * console.log(p.next()); // undefined
 * ```
 */
export class RespParser {
  /** The bytes held are `#buf[0, #len)`; parsing goes on at `#pos`. */
  #buf = new Uint8Array(256);
  #len = 0;
  #pos = 0;
  /**
   * The buffer length the element being parsed needs before it is worth trying again (the end
   * of a bulk string it waits for, or one more byte).
   */
  #need = 0;
  /**
   * The arrays the reply being parsed is inside, outermost first, with the elements they have
   * so far: an incomplete reply resumes where it stopped instead of being parsed again from its
   * start, so a large reply in many chunks costs time linear in its size.
   */
  #open: { out: RespValue[]; left: number }[] = [];
  #decoder = new TextDecoder();

  /**
   * Appends received bytes (copied: the caller may reuse `chunk`). The buffer grows by doubling
   * and drops the bytes already parsed when it needs room.
   */
  feed(chunk: Uint8Array): void {
    if (this.#pos > 0 && this.#len + chunk.length > this.#buf.length) {
      // drop the bytes already parsed
      this.#buf.copyWithin(0, this.#pos, this.#len);
      this.#len -= this.#pos;
      this.#need = Math.max(0, this.#need - this.#pos);
      this.#pos = 0;
    }
    if (this.#len + chunk.length > this.#buf.length) {
      let cap = this.#buf.length * 2;
      while (cap < this.#len + chunk.length) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.#buf.subarray(0, this.#len));
      this.#buf = next;
    }
    this.#buf.set(chunk, this.#len);
    this.#len += chunk.length;
  }

  /**
   * The next complete reply (`{ value }`, or `{ error }` for a RESP error), or undefined when
   * more bytes are needed.
   */
  next(): { value: RespValue } | { error: string } | undefined {
    for (;;) {
      if (this.#len < this.#need) return undefined;
      const start = this.#pos;
      let v: RespValue | ReplyError;
      try {
        v = this.#element();
      } catch (e) {
        if (e !== INCOMPLETE) throw e;
        this.#pos = start; // the element starts again there once its bytes are in
        return undefined;
      }
      this.#need = 0;
      if (this.#pos === this.#len) {
        // every byte parsed: start again at the front (and let a large buffer go)
        this.#pos = this.#len = 0;
        if (this.#buf.length > 1 << 20) this.#buf = new Uint8Array(256);
      }
      if (Array.isArray(v) && v.length === 0 && this.#open.length > 0) {
        // a new array opened (#element returns it empty with its frame pushed) or an empty one
        const top = this.#open[this.#open.length - 1];
        if (top.out === v) continue;
      }
      // deliver the element to the arrays it closes
      let done: RespValue | ReplyError = v;
      while (this.#open.length > 0) {
        const top = this.#open[this.#open.length - 1];
        top.out.push(done instanceof ReplyError ? `ERR ${done.message}` : done);
        if (--top.left > 0) break;
        this.#open.pop();
        done = top.out;
      }
      if (this.#open.length > 0) continue;
      return done instanceof ReplyError ? { error: done.message } : { value: done };
    }
  }

  /** Marks the element incomplete until the buffer holds `need` bytes. */
  #incomplete(need: number): never {
    this.#need = need;
    throw INCOMPLETE;
  }

  #line(): string {
    const b = this.#buf, len = this.#len;
    for (let i = this.#pos; i + 1 < len; i++) {
      if (b[i] === 13 && b[i + 1] === 10) {
        const s = this.#decoder.decode(b.subarray(this.#pos, i));
        this.#pos = i + 2;
        return s;
      }
    }
    return this.#incomplete(len + 1);
  }

  /**
   * One element at `#pos`: a scalar, or an array header. A non-empty array is returned empty
   * with its frame pushed on `#open` (its elements follow); throws INCOMPLETE (nothing changed
   * but `#pos`) when its bytes are not all in.
   */
  #element(): RespValue | ReplyError {
    if (this.#pos >= this.#len) this.#incomplete(this.#len + 1);
    const type = this.#buf[this.#pos++];
    switch (type) {
      case 43: // '+'
        return this.#line();
      case 45: // '-'
        return new ReplyError(this.#line());
      case 58: // ':'
        return Number(this.#line());
      case 36: { // '$'
        const n = Number(this.#line());
        if (n < 0) return null;
        if (this.#pos + n + 2 > this.#len) this.#incomplete(this.#pos + n + 2);
        const s = this.#decoder.decode(this.#buf.subarray(this.#pos, this.#pos + n));
        this.#pos += n + 2;
        return s;
      }
      case 42: { // '*'
        const n = Number(this.#line());
        if (n < 0) return null;
        const out: RespValue[] = [];
        if (n > 0) this.#open.push({ out, left: n });
        return out;
      }
      default:
        throw new SyntaxError(
          `Cannot parse Redis reply: unexpected type byte 0x${type.toString(16)}`,
        );
    }
  }
}

/** Where and how to connect: parsed from a URL by {@linkcode parseRedisUrl}, or given directly. */
export interface RedisConnectOptions {
  /** Host name or address. */
  hostname: string;
  /** TCP port. */
  port: number;
  /** Database selected after connecting (default 0). */
  db?: number;
  /** ACL user name (Redis 6 `AUTH user pass`); omit for the legacy `AUTH pass`. */
  username?: string;
  /** Password; when set, AUTH is sent on every (re)connect. */
  password?: string;
  /** Connect with TLS (`rediss://`). */
  tls?: boolean;
  /** PEM file of the certificate authority to trust for TLS (besides the system's). */
  caFile?: string;
}

/**
 * Parses `redis[s]://[[user]:password@]host:port[/db]` into connection options. User name and
 * password are percent-decoded; error messages never repeat the password.
 *
 * @example
 * ```ts
 * import { parseRedisUrl } from "./redis_client.ts";
 * console.log(parseRedisUrl("redis://127.0.0.1:6390/2")); // { hostname: "127.0.0.1", port: 6390, db: 2, tls: false }
 * console.log(parseRedisUrl("rediss://bob:s%40cret@localhost").password); // "s@cret"
 * ```
 */
export function parseRedisUrl(url: string): RedisConnectOptions & { db: number; tls: boolean } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TypeError(
      `Invalid Redis URL '${
        redactRedisUrl(url)
      }': expected redis[s]://[user:password@]host:port[/db]`,
    );
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") {
    throw new TypeError(
      `Invalid Redis URL '${redactRedisUrl(url)}': the scheme must be redis:// or rediss://`,
    );
  }
  const port = u.port === "" ? 6379 : Number(u.port);
  const dbText = u.pathname.replace(/^\//, "");
  const db = dbText === "" ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) {
    throw new RangeError(
      `Invalid Redis URL '${redactRedisUrl(url)}': database '${dbText}' is not an integer`,
    );
  }
  const out: RedisConnectOptions & { db: number; tls: boolean } = {
    hostname: u.hostname || "127.0.0.1",
    port,
    db,
    tls: u.protocol === "rediss:",
  };
  if (u.username !== "") out.username = decodeURIComponent(u.username);
  if (u.password !== "") out.password = decodeURIComponent(u.password);
  return out;
}

/**
 * A Redis URL with its password replaced by `***`, for messages and logs.
 *
 * @example
 * ```ts
 * import { redactRedisUrl } from "./redis_client.ts";
 * console.log(redactRedisUrl("redis://bob:hunter2@127.0.0.1:6379/1")); // "redis://bob:***@127.0.0.1:6379/1"
 * ```
 */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "***";
    return u.href;
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@");
  }
}

function describeTarget(o: RedisConnectOptions): string {
  const user = o.username !== undefined ? encodeURIComponent(o.username) : "";
  const auth = o.password !== undefined ? `${user}:***@` : user !== "" ? `${user}@` : "";
  const db = o.db !== undefined && o.db !== 0 ? `/${o.db}` : "";
  return `${o.tls ? "rediss" : "redis"}://${auth}${o.hostname}:${o.port}${db}`;
}

/**
 * The connection to the server failed or was closed (a command in flight may or may not have
 * run), or the server answered that it cannot serve now (`LOADING` its data after a restart,
 * `BUSY` in a long script, `MASTERDOWN`, `TRYAGAIN`): either way, try again later. Other error
 * replies (`WRONGTYPE`, `NOGROUP`, ...) are plain `Error`s.
 *
 * @example
 * ```ts
 * import { RedisConnectionError } from "./redis_client.ts";
 * console.log(new RedisConnectionError("gone") instanceof Error); // true
 * ```
 */
export class RedisConnectionError extends Error {}

/** Error replies meaning "not now": the command did not run and can be sent again later. */
const TRANSIENT_REPLIES = new Set(["LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN"]);

function replyError(label: string, error: string): Error {
  const space = error.indexOf(" ");
  const code = space < 0 ? error : error.slice(0, space);
  const message = `Redis ${label}: ${error}`;
  return TRANSIENT_REPLIES.has(code) ? new RedisConnectionError(message) : new Error(message);
}

/**
 * Compares two stream ids `"<ms>-<seq>"` numerically: negative, zero or positive.
 *
 * @example
 * ```ts
 * import { compareStreamIds } from "./redis_client.ts";
 * console.log(compareStreamIds("10-2", "9-5") > 0); // true
 * console.log(compareStreamIds("0-0", "0-0")); // 0
 * ```
 */
export function compareStreamIds(a: string, b: string): number {
  const [am, as = "0"] = a.split("-");
  const [bm, bs = "0"] = b.split("-");
  const dm = BigInt(am) - BigInt(bm);
  if (dm !== 0n) return dm < 0n ? -1 : 1;
  const ds = BigInt(as) - BigInt(bs);
  return ds === 0n ? 0 : ds < 0n ? -1 : 1;
}

/** Options of {@linkcode RedisClient.xreadgroup}. */
export interface XReadGroupOptions {
  /** Maximum entries returned. */
  count?: number;
  /** Block up to this many milliseconds when nothing is available (omit: do not block). */
  blockMs?: number;
}

/** A command waiting for its reply (and the timer of its reply timeout, if any). */
interface Waiter {
  resolve: (v: RespValue) => void;
  reject: (e: Error) => void;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * The TCP connection (and TLS handshake) to the server, given up after `limitMs` when given: a
 * host that drops packets, or a server that accepts the connection but never answers the TLS
 * handshake, would otherwise hold it for ever (the handshake) or for the system's TCP timeout
 * (about 2 min on Linux). A connection made too late is closed. (A TLS connection given up in its
 * handshake is closed too, which ends the handshake here, but Deno keeps its socket open until
 * the server answers or closes it.)
 */
async function openConnection(
  opts: RedisConnectOptions,
  limitMs: number | undefined,
): Promise<Deno.Conn> {
  // set once given up: a connection that comes later is closed, a handshake in flight ended
  let gaveUp = false;
  let pending: Deno.Conn | undefined;
  const opening = (async () => {
    const caCerts = opts.tls && opts.caFile !== undefined
      ? [await Deno.readTextFile(opts.caFile)]
      : undefined;
    const conn = opts.tls
      ? await Deno.connectTls({ hostname: opts.hostname, port: opts.port, caCerts })
      : await Deno.connect({ hostname: opts.hostname, port: opts.port });
    if (gaveUp) {
      conn.close();
      throw new RedisConnectionError("connected after the limit");
    }
    pending = conn;
    if (opts.tls) await (conn as Deno.TlsConn).handshake();
    return conn;
  })();
  if (limitMs === undefined) return await opening;
  opening.catch(() => {}); // (its failure after the limit is not anyone's)
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      opening,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          gaveUp = true;
          try {
            pending?.close(); // ends a handshake in flight (its promise rejects)
          } catch {
            // already closed
          }
          reject(
            new RedisConnectionError(
              `no connection within ${limitMs} ms (${
                opts.tls ? "TCP connection and TLS handshake" : "TCP connection"
              }; the server or the network is not answering)`,
            ),
          );
        }, Math.min(MAX_TIMER_MS, limitMs));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A pipelined RESP2 client over one TCP connection. Commands are answered in order.
 *
 * @example
 * ```ts
 * import { RedisClient } from "./redis_client.ts";
 * // Needs a running redis-server; shown here without connecting.
 * console.log(typeof RedisClient.connect); // "function"
 * ```
 */
export class RedisClient {
  readonly #conn: Deno.Conn;
  readonly #waiting: Waiter[] = [];
  readonly #parser = new RespParser();
  readonly #label: string;
  readonly #replyTimeoutMs: number | undefined;
  #closed = false;
  #failure: Error | undefined;
  #writing: Promise<void> = Promise.resolve();

  private constructor(conn: Deno.Conn, label: string, replyTimeoutMs?: number) {
    this.#conn = conn;
    this.#label = label;
    this.#replyTimeoutMs = replyTimeoutMs;
    this.#readLoop();
  }

  /**
   * Connects to `redis[s]://[[user]:password@]host:port[/db]` (or explicit options): TLS for
   * `rediss://` (trusting `caFile` besides the system's authorities), AUTH when a password is
   * given (`AUTH user pass` with a user name, else the legacy `AUTH pass`), then SELECT. With
   * `replyTimeoutMs`, a command whose reply does not come within it (plus its own `BLOCK` time)
   * fails the connection (a server or network gone silent: no reset ever comes), rejecting
   * every command in flight with a {@linkcode RedisConnectionError}; the TCP connection and the
   * TLS handshake are given up after it too (a `RedisConnectionError` saying `Cannot connect to
   * Redis at <address>: no connection within <N> ms ...`). Without it, nothing is timed.
   *
   * @example
   * ```ts
   * import { RedisClient } from "./redis_client.ts";
   * const connect: (url: string) => Promise<RedisClient> = RedisClient.connect;
   * console.log(typeof connect); // "function"
   * ```
   */
  static async connect(
    target: string | RedisConnectOptions,
    extra: { caFile?: string; replyTimeoutMs?: number } = {},
  ): Promise<RedisClient> {
    const { replyTimeoutMs, ...tlsExtra } = extra;
    const opts = {
      ...(typeof target === "string" ? parseRedisUrl(target) : target),
      ...tlsExtra,
    };
    const label = describeTarget(opts);
    let conn: Deno.Conn;
    try {
      conn = await openConnection(opts, replyTimeoutMs);
    } catch (e) {
      throw new RedisConnectionError(
        `Cannot connect to Redis at ${label}: ${(e as Error).message}`,
      );
    }
    const client = new RedisClient(conn, label, replyTimeoutMs);
    try {
      if (opts.password !== undefined) {
        try {
          if (opts.username !== undefined) {
            await client.command("AUTH", opts.username, opts.password);
          } else await client.command("AUTH", opts.password);
        } catch (e) {
          const msg = (e as Error).message.replace(`Redis ${label}: `, "");
          throw new Error(`Cannot authenticate to Redis at ${label}: ${msg}`);
        }
      }
      if (opts.db !== undefined && opts.db !== 0) await client.command("SELECT", opts.db);
    } catch (e) {
      client.close();
      throw e;
    }
    return client;
  }

  /** Whether the connection is closed or failed. */
  get closed(): boolean {
    return this.#closed || this.#failure !== undefined;
  }

  async #readLoop(): Promise<void> {
    const buf = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await this.#conn.read(buf);
        if (n === null) break;
        this.#parser.feed(buf.subarray(0, n));
        for (let r = this.#parser.next(); r !== undefined; r = this.#parser.next()) {
          const w = this.#waiting.shift();
          if (w === undefined) continue;
          clearTimeout(w.timer);
          if ("error" in r) w.reject(replyError(this.#label, r.error));
          else w.resolve(r.value);
        }
      }
      this.#fail(new RedisConnectionError(`Redis ${this.#label}: connection closed by the server`));
    } catch (e) {
      this.#fail(
        this.#closed
          ? new RedisConnectionError(`Redis ${this.#label}: connection closed`)
          : new RedisConnectionError(`Redis ${this.#label}: ${(e as Error).message}`),
      );
    }
  }

  #fail(e: Error): void {
    if (this.#failure === undefined) this.#failure = e;
    for (const w of this.#waiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(this.#failure);
    }
  }

  /** Sends one command and resolves with its reply (rejects on a RESP error reply). */
  command(...args: (string | number | Uint8Array)[]): Promise<RespValue> {
    return this.#send(args, 0);
  }

  /**
   * {@linkcode RedisClient.command}, whose reply may take `blockMs` more (a `BLOCK`; Infinity:
   * `BLOCK 0`, no reply timeout).
   */
  #send(args: (string | number | Uint8Array)[], blockMs: number): Promise<RespValue> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#closed) {
      return Promise.reject(new RedisConnectionError(`Redis ${this.#label}: client closed`));
    }
    const bytes = encodeCommand(args);
    const p = new Promise<RespValue>((resolve, reject) => {
      const w: Waiter = { resolve, reject };
      // (no timer for a read blocking for ever, `BLOCK 0`; a sum past setTimeout's 2^31 − 1 ms
      // would fire at once)
      if (this.#replyTimeoutMs !== undefined && blockMs !== Infinity) {
        const ms = Math.min(MAX_TIMER_MS, this.#replyTimeoutMs + blockMs);
        w.timer = setTimeout(() => {
          this.#fail(
            new RedisConnectionError(
              `Redis ${this.#label}: no reply within ${ms} ms (the server or the network is not answering)`,
            ),
          );
          try {
            this.#conn.close();
          } catch {
            // already closed
          }
        }, ms);
      }
      this.#waiting.push(w);
    });
    this.#writing = this.#writing.then(async () => {
      let off = 0;
      while (off < bytes.length) off += await this.#conn.write(bytes.subarray(off));
    }).catch((e) =>
      this.#fail(new RedisConnectionError(`Redis ${this.#label}: ${(e as Error).message}`))
    );
    return p;
  }

  /** Appends an entry to a stream; returns its id. */
  async xadd(key: string, fields: Record<string, string>, id = "*"): Promise<string> {
    const args: string[] = ["XADD", key, id];
    for (const [k, v] of Object.entries(fields)) args.push(k, v);
    return String(await this.command(...args));
  }

  /**
   * Creates a consumer group (and the stream with MKSTREAM); returns false when it already exists.
   */
  async xgroupCreate(key: string, group: string, startId = "0"): Promise<boolean> {
    try {
      await this.command("XGROUP", "CREATE", key, group, startId, "MKSTREAM");
      return true;
    } catch (e) {
      if ((e as Error).message.includes("BUSYGROUP")) return false;
      throw e;
    }
  }

  /**
   * Reads entries for a consumer of a group: `id` ">" for new entries, or "0" (or an id) for the
   * consumer's own pending entries after that id.
   */
  async xreadgroup(
    group: string,
    consumer: string,
    key: string,
    id: string,
    options: XReadGroupOptions = {},
  ): Promise<StreamEntry[]> {
    const args: (string | number)[] = ["XREADGROUP", "GROUP", group, consumer];
    if (options.count !== undefined) args.push("COUNT", options.count);
    if (options.blockMs !== undefined) args.push("BLOCK", options.blockMs);
    args.push("STREAMS", key, id);
    // BLOCK 0 waits for ever: its reply has no deadline
    const reply = await this.#send(
      args,
      options.blockMs === undefined ? 0 : options.blockMs === 0 ? Infinity : options.blockMs,
    );
    return parseStreamReply(reply);
  }

  /** Acknowledges entries; returns how many were pending. */
  async xack(key: string, group: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    let total = 0;
    for (let i = 0; i < ids.length; i += 1000) {
      total += Number(await this.command("XACK", key, group, ...ids.slice(i, i + 1000)));
    }
    return total;
  }

  /** Number of entries pending (delivered, not acknowledged) in a group. */
  async xpendingCount(key: string, group: string): Promise<number> {
    const reply = await this.command("XPENDING", key, group);
    return Array.isArray(reply) ? Number(reply[0]) : 0;
  }

  /** Number of entries in a stream. */
  async xlen(key: string): Promise<number> {
    return Number(await this.command("XLEN", key));
  }

  /** Closes the connection (pending commands reject). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // already closed
    }
  }
}

/**
 * Turns an XREAD/XREADGROUP reply into entries (entries whose data was deleted are skipped).
 *
 * @example
 * ```ts
 * import { parseStreamReply } from "./redis_client.ts";
 * const e = parseStreamReply([["s", [["1-0", ["event", "{}"]]]]]);
 * console.log(e[0].id, e[0].fields.event); // "1-0" "{}"
 * ```
 */
export function parseStreamReply(reply: RespValue): StreamEntry[] {
  const out: StreamEntry[] = [];
  if (!Array.isArray(reply)) return out;
  for (const stream of reply) {
    if (!Array.isArray(stream) || !Array.isArray(stream[1])) continue;
    for (const entry of stream[1]) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string") continue;
      const kv = entry[1];
      const fields: Record<string, string> = {};
      if (Array.isArray(kv)) {
        for (let i = 0; i + 1 < kv.length; i += 2) fields[String(kv[i])] = String(kv[i + 1]);
      }
      out.push({ id: entry[0], fields });
    }
  }
  return out;
}
