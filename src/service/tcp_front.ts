/**
 * A small TCP front for `Deno.serve`, which (Deno 2.9.6) has neither a header timeout nor a
 * connection cap. The front listens on the public port, enforces both, and pipes the bytes of
 * each admitted connection, unchanged, to the real server listening on 127.0.0.1 (or a unix
 * socket).
 *
 * - **Header timeout.** A request head (up to `\r\n\r\n`) must arrive within `headerTimeoutMs`
 *   of the connection's opening, and on a keep-alive connection within `headerTimeoutMs` of the
 *   first byte of that request; an idle keep-alive connection is closed `headerTimeoutMs` after
 *   the last byte of the previous response. A partial head is answered `408` and closed; an idle
 *   connection is closed silently. The front finds request boundaries by reading each head's
 *   `Content-Length` / `Transfer-Encoding: chunked` (the chunk framing is followed, the data is
 *   skipped in bulk); bodies themselves are timed by the server (`--body-timeout`).
 * - **Answered before its body.** A request the server answers before its body has all arrived
 *   (a 401, a 408 body timeout, a 503, a route that reads no body), with `connection: close`,
 *   is one the server closes only once the body has all arrived — for ever if the client never
 *   sends it, holding a connection of the cap. The front closes such a connection
 *   `headerTimeoutMs` after that answer if the body has still not all arrived.
 * - **Malformed framing.** A head whose `Content-Length` is not a non-negative integer, is
 *   beyond 2^64 − 1 or disagrees with another `Content-Length`, that has both
 *   `Transfer-Encoding` and `Content-Length`, or whose `Transfer-Encoding` does not end with
 *   `chunked`, is answered by the front with a `400` and a JSON `{"error": ...}` naming the
 *   header and value (the server would answer a bare 400); a head longer than 65535 bytes
 *   (`MAX_HEAD_BYTES`: request line and headers; the server refuses one reaching 64 KiB) with a
 *   `431` saying so. The connection is then closed. On a connection's first request only
 *   (after others, whose answers may still be due, the server's bare 400 stays).
 * - **Connection cap.** Past `maxConnections` open connections, a new one is answered
 *   `503 Service Unavailable` with `Retry-After: 1` and closed, without reaching the server.
 *
 * @module
 */

/** Where the front forwards connections: the real server's address. */
export type TcpFrontBackend =
  | { hostname: string; port: number }
  | { path: string };

/** Options of {@linkcode TcpFront.listen}. */
export interface TcpFrontOptions {
  /** Public interface (default 127.0.0.1). */
  hostname?: string;
  /** Public port (0 picks a free one). */
  port: number;
  /** The server to forward to. */
  backend: TcpFrontBackend;
  /** Milliseconds a request head may take (see the module doc); 0 or Infinity: off. */
  headerTimeoutMs: number;
  /** Connections held at once; more are answered 503 and closed. */
  maxConnections: number;
  /** Log lines (connection errors are not logged, they are the clients'). */
  log?: (message: string) => void;
  /**
   * The timers of the header timeout and of the close after an early answer (default
   * `setTimeout` / `clearTimeout`): a test passes timers it fires itself, which no pause of a
   * loaded machine fires early.
   */
  timers?: TcpFrontTimers;
}

/** Schedules the front's timeouts (see {@linkcode TcpFrontOptions.timers}). */
export interface TcpFrontTimers {
  /** Calls `fn` once, `ms` milliseconds from now; returns a handle (not undefined) for `clear`. */
  set(fn: () => void, ms: number): unknown;
  /** Cancels what `set` scheduled (a handle that fired or was cleared is ignored). */
  clear(handle: unknown): void;
}

/** The real clock's timers. */
const REAL_TIMERS: TcpFrontTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** What the front has done so far. */
export interface TcpFrontStats {
  /** Connections open now (forwarded). */
  open: number;
  /** Connections accepted and forwarded since the start. */
  accepted: number;
  /** Connections refused with 503 over the cap. */
  refused: number;
  /** Connections closed by the header timeout (partial head or idle keep-alive). */
  headerTimeouts: number;
}

const enc = new TextEncoder();
const CR = 13, LF = 10;
/**
 * The longest head (request line and headers) the front tracks; a longer one is refused with a
 * 431. The server answers a bare 400 once it holds 64 KiB of a head that has not ended, so the
 * front, which forwards what it has read, refuses one byte earlier.
 */
const MAX_HEAD_BYTES = 64 * 1024 - 1;
const BUF = 64 * 1024;

function httpResponse(status: string, headers: Record<string, string>, body: string): Uint8Array {
  const bytes = enc.encode(body);
  let head = `HTTP/1.1 ${status}\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  head += `content-length: ${bytes.length}\r\nconnection: close\r\n\r\n`;
  const out = new Uint8Array(head.length + bytes.length);
  out.set(enc.encode(head));
  out.set(bytes, head.length);
  return out;
}

/** The 503 of a connection past the cap of `max` connections. */
function refused(max: number): Uint8Array {
  return httpResponse(
    "503 Service Unavailable",
    { "content-type": "application/json", "retry-after": "1" },
    JSON.stringify({
      error: `too many connections: the server holds at most ${max} at once; retry later`,
    }) + "\n",
  );
}
/** The 408 of a head that did not arrive within `ms`. */
function headerTimeout(ms: number): Uint8Array {
  return httpResponse(
    "408 Request Timeout",
    { "content-type": "application/json" },
    JSON.stringify({
      error: `request header timeout: the request head did not arrive within ${ms / 1000} s`,
    }) + "\n",
  );
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

/** A response head line saying that the server closes the connection after it. */
const CLOSING = /\r\nconnection:[ \t]*close[ \t]*\r\n/i;
const latin1 = new TextDecoder("latin1");

/** Whether the tracker is in a request's body (its framing followed, not all of it arrived). */
function inBody(t: RequestTracker): boolean {
  const s = t.state;
  return s === "body" || s === "chunk-size" || s === "chunk-data" || s === "chunk-crlf" ||
    s === "trailer";
}

/** The largest `Content-Length` the server reads (2^64 − 1), in digits. */
const MAX_LENGTH = "18446744073709551615";

/**
 * Why the `Content-Length` headers of a request head (as latin1 text) are malformed — a value
 * that is not one non-negative integer (a list such as `5, 5` too), or beyond 2^64 − 1, or
 * headers whose values disagree — or `undefined` when they are fine or absent. (The server
 * refuses such a head with a bare 400.)
 *
 * @example
 * ```ts
 * import { badContentLength } from "./tcp_front.ts";
 * console.log(badContentLength("POST / HTTP/1.1\r\ncontent-length: 5\r\n\r\n")); // undefined
 * console.log(badContentLength("POST / HTTP/1.1\r\ncontent-length: -5\r\n\r\n"));
 * // malformed Content-Length header "-5": it must be a non-negative integer
 * ```
 */
export function badContentLength(head: string): string | undefined {
  let first: string | undefined;
  for (const m of head.matchAll(/\r?\ncontent-length:([^\r\n]*)/gi)) {
    // one integer: the server refuses a list, even of equal values ("5, 5")
    const v = m[1].trim();
    if (!/^\d+$/.test(v)) {
      return `malformed Content-Length header ${
        JSON.stringify(v)
      }: it must be a non-negative integer`;
    }
    const digits = v.replace(/^0+(?=\d)/, "");
    if (
      digits.length > MAX_LENGTH.length ||
      (digits.length === MAX_LENGTH.length && digits > MAX_LENGTH)
    ) {
      return `malformed Content-Length header ${
        JSON.stringify(v)
      }: larger than the largest length, 2^64 - 1`;
    }
    if (first === undefined) first = digits;
    else if (digits !== first) {
      return `conflicting Content-Length headers: ${first} and ${digits}`;
    }
  }
  return undefined;
}

/**
 * Why the `Transfer-Encoding` of a request head (as latin1 text) is refused — not ending with
 * `chunked` (the body's length is then unknown), or sent with a `Content-Length` — or
 * `undefined` when it is fine or absent. (The server refuses such a head with a bare 400.)
 *
 * @example
 * ```ts
 * import { badTransferEncoding } from "./tcp_front.ts";
 * console.log(badTransferEncoding("POST / HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n")); // undefined
 * console.log(badTransferEncoding("POST / HTTP/1.1\r\ntransfer-encoding: gzip\r\n\r\n"));
 * // Transfer-Encoding header "gzip" is not supported: a body is sent with Content-Length or Transfer-Encoding: chunked
 * ```
 */
export function badTransferEncoding(head: string): string | undefined {
  const values = [...head.matchAll(/\r?\ntransfer-encoding:([^\r\n]*)/gi)].map((m) => m[1].trim());
  if (values.length === 0) return undefined;
  const all = values.join(", ");
  if (!/(^|,)\s*chunked$/i.test(all)) {
    return `Transfer-Encoding header ${JSON.stringify(all)} is not supported: a body is sent ` +
      "with Content-Length or Transfer-Encoding: chunked";
  }
  if (/\r?\ncontent-length:/i.test(head)) {
    return "both Transfer-Encoding and Content-Length headers: a request has one of them";
  }
  return undefined;
}

/** The front's answer to a head it refuses: `status` (a status line's code and reason). */
function badRequest(reason: string, status = "400 Bad Request"): Uint8Array {
  return httpResponse(
    status,
    { "content-type": "application/json" },
    JSON.stringify({ error: reason }) + "\n",
  );
}

/**
 * Follows request boundaries in the client → server byte stream: heads, then
 * `Content-Length` bodies or chunked framing. `feed` returns nothing; the caller reads
 * {@linkcode RequestTracker.inHead} and {@linkcode RequestTracker.headBytes} after each chunk.
 * Not exported from `mod.ts`.
 *
 * @example
 * ```ts
 * import { RequestTracker } from "./tcp_front.ts";
 * const t = new RequestTracker();
 * t.feed(new TextEncoder().encode("POST / HTTP/1.1\r\ncontent-length: 3\r\n\r\nab"));
 * console.log(t.inHead, t.idle); // false false
 * t.feed(new TextEncoder().encode("c"));
 * console.log(t.inHead, t.idle); // false true
 * t.feed(new TextEncoder().encode("GET / HT"));
 * console.log(t.inHead, t.headBytes); // true 8
 * ```
 */
export class RequestTracker {
  /** "idle": between requests; "head": in a head; "body": Content-Length bytes left;
   * "chunk-size" / "chunk-data" / "chunk-crlf" / "trailer": chunked framing; "lost": gave up;
   * "bad": a head the front refuses: its framing is malformed or conflicting, or it is too
   * long (see `badFraming`). */
  state:
    | "idle"
    | "head"
    | "body"
    | "chunk-size"
    | "chunk-data"
    | "chunk-crlf"
    | "trailer"
    | "lost"
    | "bad" = "idle";
  /** With state "bad": why the head's framing is refused. */
  badFraming: string | undefined;
  /** With state "bad": the status line of the refusal ("400 Bad Request" or a 431's). */
  badStatus = "400 Bad Request";
  /** With state "bad": whether the refused head is the connection's first. */
  badIsFirst = false;
  /** Heads completed so far. */
  heads = 0;
  /** Bytes of the current head seen so far. */
  headBytes = 0;
  /** The head's bytes (kept until it ends, for its framing headers). */
  #head: Uint8Array[] = [];
  /** The last two bytes of the head so far. */
  #p1 = 0;
  #p2 = 0;
  #left = 0; // body or chunk bytes left
  #size = -1; // chunk size being read (-1: no digit yet)
  #ext = false; // in a chunk extension
  #line = 0; // trailer line length so far

  /** True while a head has started and not ended. */
  get inHead(): boolean {
    return this.state === "head";
  }

  /** True between requests (the last one fully sent). */
  get idle(): boolean {
    return this.state === "idle";
  }

  /** Follows one chunk of client bytes. */
  feed(b: Uint8Array): void {
    let i = 0;
    while (i < b.length) {
      switch (this.state) {
        case "lost":
        case "bad":
          return;
        case "idle":
          // tolerate stray CRLFs between requests (RFC 9112 §2.2)
          if (b[i] === CR || b[i] === LF) {
            i++;
            continue;
          }
          this.state = "head";
          this.headBytes = 0;
          this.#p1 = this.#p2 = 0;
          this.#head = [];
          continue;
        case "head": {
          const start = i;
          let end = -1;
          for (; i < b.length; i++) {
            const c = b[i];
            // a head ends at "\r\n\r\n" (or a lenient "\n\n" / "\n\r\n")
            if (c === LF && (this.#p1 === LF || this.#p1 === CR && this.#p2 === LF)) {
              end = i + 1;
              break;
            }
            this.#p2 = this.#p1;
            this.#p1 = c;
          }
          const stop = end === -1 ? b.length : end;
          this.headBytes += stop - start;
          if (this.headBytes > MAX_HEAD_BYTES) {
            this.state = "bad";
            this.badFraming = `request head (request line and headers) is longer than ` +
              `${MAX_HEAD_BYTES} bytes`;
            this.badStatus = "431 Request Header Fields Too Large";
            this.badIsFirst = this.heads === 0;
            this.#head = [];
            return;
          }
          this.#head.push(b.slice(start, stop));
          if (end === -1) return;
          i = end;
          this.heads++;
          if (!this.#startBody()) return;
          continue;
        }
        case "body": {
          const n = Math.min(this.#left, b.length - i);
          i += n;
          this.#left -= n;
          if (this.#left === 0) this.state = "idle";
          continue;
        }
        case "chunk-size": {
          const c = b[i++];
          if (c === LF) {
            if (this.#size < 0) {
              this.state = "lost";
              return;
            }
            this.#ext = false;
            if (this.#size === 0) {
              this.state = "trailer";
              this.#line = 0;
            } else {
              this.#left = this.#size;
              this.state = "chunk-data";
            }
            this.#size = -1;
          } else if (c === CR || this.#ext) {
            // skip
          } else if (c === 59 /* ; */ || c === 32 || c === 9) this.#ext = true;
          else {
            const d = c >= 48 && c <= 57
              ? c - 48
              : c >= 97 && c <= 102
              ? c - 87
              : c >= 65 && c <= 70
              ? c - 55
              : -1;
            if (d < 0 || this.#size > 0xfffffff) {
              this.state = "lost";
              return;
            }
            this.#size = (this.#size < 0 ? 0 : this.#size * 16) + d;
          }
          continue;
        }
        case "chunk-data": {
          const n = Math.min(this.#left, b.length - i);
          i += n;
          this.#left -= n;
          if (this.#left === 0) {
            this.state = "chunk-crlf";
          }
          continue;
        }
        case "chunk-crlf":
          // the CRLF after a chunk's data
          if (b[i++] === LF) this.state = "chunk-size";
          continue;
        case "trailer": {
          const c = b[i++];
          if (c === LF) {
            if (this.#line === 0) this.state = "idle";
            this.#line = 0;
          } else if (c !== CR) this.#line++;
          continue;
        }
      }
    }
  }

  /** Reads the framing of the head just ended: false when it is refused (state "bad"). */
  #startBody(): boolean {
    let total = 0;
    for (const p of this.#head) total += p.length;
    const all = new Uint8Array(total);
    let o = 0;
    for (const p of this.#head) {
      all.set(p, o);
      o += p.length;
    }
    this.#head = [];
    const text = new TextDecoder("latin1").decode(all);
    // the server would answer a bare 400 to these: the front answers instead, saying why
    const bad = badTransferEncoding(text) ?? badContentLength(text);
    if (bad !== undefined) {
      this.state = "bad";
      this.badFraming = bad;
      this.badStatus = "400 Bad Request";
      this.badIsFirst = this.heads === 1;
      return false;
    }
    if (/\r?\ntransfer-encoding:/i.test(text)) {
      this.state = "chunk-size";
      this.#size = -1;
      this.#ext = false;
      return true;
    }
    const cl = /\r?\ncontent-length:[ \t]*(\d+)[ \t]*(?=\r?\n)/i.exec(text);
    const n = cl === null ? 0 : Number(cl[1]);
    if (n > 0) {
      this.state = "body";
      this.#left = n;
    } else this.state = "idle";
    return true;
  }
}

/**
 * The front: {@linkcode TcpFront.listen} starts it, {@linkcode TcpFront.close} stops it and
 * closes every connection it holds.
 *
 * @example
 * ```ts
 * import { TcpFront } from "./tcp_front.ts";
 * const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => new Response("hi"));
 * const front = TcpFront.listen({
 *   port: 0,
 *   backend: { hostname: "127.0.0.1", port: server.addr.port },
 *   headerTimeoutMs: 10000,
 *   maxConnections: 1024,
 * });
 * const res = await fetch(`http://127.0.0.1:${front.addr.port}/`);
 * console.log(await res.text()); // hi
 * await front.close();
 * await server.shutdown();
 * ```
 */
export class TcpFront {
  readonly #listener: Deno.Listener;
  readonly #opts: TcpFrontOptions;
  readonly #conns = new Set<Deno.Conn>();
  readonly #done: Promise<void>;
  #closed = false;
  readonly stats: TcpFrontStats = { open: 0, accepted: 0, refused: 0, headerTimeouts: 0 };

  private constructor(listener: Deno.Listener, opts: TcpFrontOptions) {
    this.#listener = listener;
    this.#opts = opts;
    this.#done = this.#acceptLoop();
  }

  /**
   * Listens on the public port (throws `Deno.errors.AddrInUse` as `Deno.listen` does) and
   * starts forwarding.
   */
  static listen(opts: TcpFrontOptions): TcpFront {
    if (!(opts.maxConnections >= 1)) {
      throw new RangeError(`maxConnections must be at least 1, got ${opts.maxConnections}`);
    }
    const listener = Deno.listen({
      hostname: opts.hostname ?? "127.0.0.1",
      port: opts.port,
      transport: "tcp",
    });
    return new TcpFront(listener, opts);
  }

  /** The public address. */
  get addr(): Deno.NetAddr {
    return this.#listener.addr as Deno.NetAddr;
  }

  /** Resolves once the front has stopped accepting (after {@linkcode TcpFront.close}). */
  get finished(): Promise<void> {
    return this.#done;
  }

  /** Stops accepting (new connections are refused by the OS); open connections go on. */
  stopAccepting(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#listener.close();
    } catch { /* already closed */ }
  }

  /** Stops accepting and closes every connection still open. */
  async close(): Promise<void> {
    this.stopAccepting();
    for (const c of this.#conns) {
      try {
        c.close();
      } catch { /* closed */ }
    }
    this.#conns.clear();
    await this.#done;
  }

  async #acceptLoop(): Promise<void> {
    while (!this.#closed) {
      let conn: Deno.Conn;
      try {
        conn = await this.#listener.accept();
      } catch (e) {
        if (this.#closed || e instanceof Deno.errors.BadResource) return;
        // EMFILE and the like: back off a little rather than spin
        this.#opts.log?.(`front: accept failed: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      if (this.stats.open >= this.#opts.maxConnections) {
        this.stats.refused++;
        this.#refuse(conn);
        continue;
      }
      this.stats.open++;
      this.stats.accepted++;
      this.#forward(conn).finally(() => this.stats.open--);
    }
  }

  /** Answers 503, then reads and drops what the client sent for up to a second (so that the
   * close does not reset the connection before the client reads the answer). */
  async #refuse(conn: Deno.Conn): Promise<void> {
    this.#conns.add(conn);
    const timer = setTimeout(() => {
      try {
        conn.close();
      } catch { /* closed */ }
    }, 1000);
    try {
      await writeAll(conn, refused(this.#opts.maxConnections));
      await conn.closeWrite();
      const sink = new Uint8Array(4096);
      while (await conn.read(sink) !== null) { /* drop */ }
    } catch { /* the client went away */ }
    clearTimeout(timer);
    this.#conns.delete(conn);
    try {
      conn.close();
    } catch { /* closed */ }
  }

  async #forward(client: Deno.Conn): Promise<void> {
    const { backend, headerTimeoutMs } = this.#opts;
    const timers = this.#opts.timers ?? REAL_TIMERS;
    this.#conns.add(client);
    let server: Deno.Conn | undefined;
    let timer: unknown;
    /** Set when the server answered, closing, a request whose body has not all arrived. */
    let lingerTimer: unknown;
    let over = false;
    const closeBoth = () => {
      over = true;
      if (timer !== undefined) timers.clear(timer);
      if (lingerTimer !== undefined) timers.clear(lingerTimer);
      for (const c of [client, server]) {
        try {
          c?.close();
        } catch { /* closed */ }
      }
    };
    const timed = headerTimeoutMs > 0 && Number.isFinite(headerTimeoutMs);
    const tracker = new RequestTracker();
    let writingToClient = false;
    /** The front's own answer to a head it refuses (after the server's earlier answers). */
    let refusal: Uint8Array | undefined;
    const onTimeout = async () => {
      timer = undefined;
      if (over || writingToClient) return;
      this.stats.headerTimeouts++;
      if (tracker.inHead) {
        over = true;
        try {
          await writeAll(client, headerTimeout(headerTimeoutMs));
        } catch { /* gone */ }
      }
      closeBoth();
    };
    const arm = () => {
      if (!timed || over) return;
      if (timer !== undefined) timers.clear(timer);
      timer = timers.set(onTimeout, headerTimeoutMs);
    };
    const disarm = () => {
      if (timer !== undefined) timers.clear(timer);
      timer = undefined;
    };
    arm(); // from the connection's opening
    try {
      if (client.remoteAddr.transport === "tcp") (client as Deno.TcpConn).setNoDelay(true);
      server = "path" in backend
        ? await Deno.connect({ transport: "unix", path: backend.path })
        : await Deno.connect({ hostname: backend.hostname, port: backend.port });
      if ("setNoDelay" in server) (server as Deno.TcpConn).setNoDelay(true);
      if (over) return;
      this.#conns.add(server);
      const s = server;
      const up = (async () => {
        const buf = new Uint8Array(BUF);
        while (true) {
          const n = await client.read(buf);
          if (n === null) break;
          // the framing is followed even untimed: a head with a malformed Content-Length is
          // answered here (JSON), not by the server (a bare 400)
          const heads = tracker.heads;
          tracker.feed(buf.subarray(0, n));
          if (tracker.state === "bad" && tracker.badIsFirst) {
            // the connection's first request: nothing of the server's is due, the front
            // answers and closes (with an earlier request, whose answer the server would drop
            // on the end of the requests, the head goes on to the server: its bare 400)
            disarm();
            refusal = badRequest(tracker.badFraming!, tracker.badStatus);
            break;
          }
          if (timed) {
            if (tracker.state === "lost" || tracker.state === "bad") disarm();
            else if (tracker.heads !== heads) {
              // a complete head stops the clock (the body is the server's to time); a
              // pipelined next head that is still partial starts it again
              if (tracker.inHead) arm();
              else disarm();
            }
          }
          await writeAll(s, buf.subarray(0, n));
        }
        await s.closeWrite().catch(() => {});
      })();
      const down = (async () => {
        const buf = new Uint8Array(BUF);
        while (true) {
          const n = await s.read(buf);
          if (n === null) break;
          writingToClient = true;
          try {
            await writeAll(client, buf.subarray(0, n));
          } finally {
            writingToClient = false;
          }
          // an answer closing the connection while the request's body is still on its way: the
          // server waits for the whole body before it closes (for ever if it never comes)
          if (
            timed && lingerTimer === undefined && inBody(tracker) &&
            CLOSING.test(latin1.decode(buf.subarray(0, n)))
          ) {
            lingerTimer = timers.set(() => {
              if (inBody(tracker)) closeBoth();
            }, headerTimeoutMs);
          }
          // between requests, the next head must start within the timeout of the last
          // response byte; a head begun meanwhile whose timer went off during the write (which
          // the timer skips) is timed again from here, else it could stay half-sent for ever
          if (timed && (tracker.idle || (tracker.inHead && timer === undefined))) arm();
        }
      })();
      // the server ending its side ends the connection (HTTP servers close, not half-close)
      await Promise.race([down, up.then(() => down)]);
      if (refusal !== undefined && !over) {
        await writeAll(client, refusal);
        // drop what the client still sends (up to a second), so that the close does not reset
        // the connection before it reads the answer
        await client.closeWrite().catch(() => {});
        const stop = setTimeout(closeBoth, 1000);
        try {
          const sink = new Uint8Array(4096);
          while (await client.read(sink) !== null) { /* drop */ }
        } finally {
          clearTimeout(stop);
        }
      }
    } catch {
      // a reset, a closed connection, an unreachable server: the connection just ends
    } finally {
      closeBoth();
      this.#conns.delete(client);
      if (server !== undefined) this.#conns.delete(server);
    }
  }
}
