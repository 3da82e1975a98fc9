/**
 * Shared pieces of the service checks (crash, bad input, load), used by the bench scripts (full
 * runs) and by the tests (shortened runs): starting `tagstream serve` as a child process on
 * 127.0.0.1 with a free port, XC rows as NDJSON events, a small keep-alive HTTP/1.1 client,
 * latency percentiles, and the CPU time and load average of a shared machine.
 *
 * @module
 */
import { loadNames, loadXcFile, rowView } from "../../src/data/dataset.ts";

/** The repository root (where deno.json is). */
export const REPO_ROOT: string = new URL("../../", import.meta.url).pathname;

/**
 * A `tagstream serve` child process.
 *
 * @example
 * ```ts
 * import type { ServiceProcess } from "./harness.ts";
 * function url(p: ServiceProcess): string { return p.url; }
 * console.log(typeof url); // "function"
 * ```
 */
export interface ServiceProcess {
  /** Process id. */
  readonly pid: number;
  /** TCP port it listens on. */
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** `kill -9` and wait for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM, wait for the exit (SIGKILL after `timeoutMs`); resolves with the exit code. */
  stop(timeoutMs?: number): Promise<number>;
  /** Resolves with the exit status when the process ends. */
  readonly status: Promise<Deno.CommandStatus>;
}

/**
 * Options of {@linkcode startService}.
 *
 * @example
 * ```ts
 * import type { StartOptions } from "./harness.ts";
 * const o: StartOptions = { stateDir: "/tmp/s", args: ["--model", "leml"], token: "t" };
 * console.log(o.token); // "t"
 * ```
 */
export interface StartOptions {
  stateDir: string;
  /** More `serve` flags. */
  args?: string[];
  /** TAGSTREAM_TOKEN (default: none, and `--no-auth`). */
  token?: string;
  /** More environment variables of the service process only (never set in this process). */
  env?: Record<string, string>;
  /** Longest wait for the listening line, ms (default 30000). */
  timeoutMs?: number;
  /** More `deno run` flags, e.g. `--cpu-prof` for profiling (default none). */
  denoFlags?: string[];
}

/**
 * Starts `tagstream serve --port 0 --hostname 127.0.0.1 --quiet` and waits for its listening
 * line. The caller must stop it (also on failure).
 *
 * @example
 * ```ts
 * import { startService } from "./harness.ts";
 * console.log(typeof startService); // "function" (see tests/service/service_*_test.ts)
 * ```
 */
export async function startService(o: StartOptions): Promise<ServiceProcess> {
  const env: Record<string, string> = { NO_COLOR: "1", ...o.env };
  const args = [
    "run",
    "--allow-all",
    ...(o.denoFlags ?? []),
    `${REPO_ROOT}src/cli/main.ts`,
    "serve",
    "--port",
    "0",
    "--hostname",
    "127.0.0.1",
    "--state-dir",
    o.stateDir,
    "--quiet",
    ...(o.args ?? []),
  ];
  if (o.token !== undefined) env.TAGSTREAM_TOKEN = o.token;
  else {
    // (a token exported in the caller's shell, as the README's first step does, is not this run's)
    env.TAGSTREAM_TOKEN = "";
    args.push("--no-auth");
  }
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPO_ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  const errDone = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of child.stderr) err += dec.decode(chunk, { stream: true });
  })();
  let resolveListen: (port: number) => void = () => {};
  const listening = new Promise<number>((r) => (resolveListen = r));
  const outDone = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of child.stdout) {
      buf += dec.decode(chunk, { stream: true });
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          const j = JSON.parse(line);
          if (j.event === "listening") resolveListen(j.port);
        } catch {
          // not JSON
        }
      }
    }
  })();
  const status = child.status.then(async (s) => {
    await Promise.allSettled([errDone, outDone]);
    return s;
  });
  const timeoutMs = o.timeoutMs ?? 30000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const port = await Promise.race([
    listening,
    status.then((s) => {
      throw new Error(`tagstream serve exited with code ${s.code} before listening:\n${err}`);
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`tagstream serve did not listen within ${timeoutMs} ms:\n${err}`)),
        timeoutMs,
      );
    }),
  ]).catch(async (e) => {
    clearTimeout(timer);
    try {
      child.kill("SIGKILL");
    } catch {
      // gone
    }
    await status;
    throw e;
  });
  clearTimeout(timer);
  const kill = (sig: Deno.Signal) => {
    try {
      child.kill(sig);
    } catch {
      // already exited
    }
  };
  return {
    pid: child.pid,
    port,
    url: `http://127.0.0.1:${port}`,
    stderr: () => err,
    status,
    async kill9() {
      kill("SIGKILL");
      await status;
    },
    async stop(ms = 20000) {
      kill("SIGTERM");
      let t: ReturnType<typeof setTimeout> | undefined;
      const s = await Promise.race([
        status,
        new Promise<null>((r) => (t = setTimeout(() => r(null), ms))),
      ]);
      clearTimeout(t);
      if (s === null) {
        kill("SIGKILL");
        return (await status).code;
      }
      return s.code;
    },
  };
}

/**
 * XC rows as NDJSON event lines: features by index, labels by name (`NAME.labels.txt` beside
 * the file, else the indices), ids `<file>:<line>`.
 *
 * @example
 * ```ts
 * import { xcEvents } from "./harness.ts";
 * const path = await Deno.makeTempFile({ suffix: ".txt" });
 * await Deno.writeTextFile(path, "1 3 2\n1 0:1 2:0.5\n");
 * const ev = await xcEvents(path);
 * console.log(ev.lines[0]); // {"id":"...:2","features":{"0":1,"2":0.5},"labels":["1"]}
 * await Deno.remove(path);
 * ```
 */
export async function xcEvents(
  path: string,
  limit = Infinity,
): Promise<{ lines: string[]; ids: string[]; labelNames: string[] }> {
  const ds = await loadXcFile(path);
  const m = /^(.*)\/([^/]+)\.(train|test)\.txt$/.exec(path);
  let names: string[] | undefined;
  if (m) names = await loadNames(m[1], m[2], "labels").catch(() => undefined);
  if (names === undefined || names.length !== ds.numLabels) {
    names = Array.from({ length: ds.numLabels }, (_, i) => String(i));
  }
  const base = path.slice(path.lastIndexOf("/") + 1);
  const n = Math.min(limit, ds.x.numRows);
  const lines: string[] = [], ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = rowView(ds.x, i);
    const f: Record<string, number> = {};
    for (let p = 0; p < r.indices.length; p++) f[r.indices[p]] = r.values[p];
    const labels = Array.from(
      ds.y.indices.subarray(ds.y.indptr[i], ds.y.indptr[i + 1]),
      (l) => names![l],
    );
    const id = `${base}:${i + 2}`;
    ids.push(id);
    lines.push(JSON.stringify({ id, features: f, labels }));
  }
  return { lines, ids, labelNames: names };
}

/**
 * A minimal keep-alive HTTP/1.1 client over one TCP connection (content-length and chunked
 * responses), light enough that the load generator does not dominate the measurement.
 *
 * @example
 * ```ts
 * import { HttpConnection } from "./harness.ts";
 * console.log(typeof HttpConnection.open); // "function"
 * ```
 */
export class HttpConnection {
  readonly #conn: Deno.Conn;
  readonly #host: string;
  #buf = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;
  readonly #dec = new TextDecoder();
  #closed = false;

  private constructor(conn: Deno.Conn, host: string) {
    this.#conn = conn;
    this.#host = host;
  }

  /** Connects to 127.0.0.1:`port`. */
  static async open(port: number): Promise<HttpConnection> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.setNoDelay(true);
    return new HttpConnection(conn, `127.0.0.1:${port}`);
  }

  /**
   * The bytes of one request (build them once and {@linkcode HttpConnection.send} them many
   * times to keep the client's own work small).
   */
  static encodeRequest(
    method: string,
    path: string,
    body?: Uint8Array | string,
    headers: Record<string, string> = {},
  ): Uint8Array {
    const enc = new TextEncoder();
    const b = typeof body === "string" ? enc.encode(body) : body;
    let head = `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n`;
    for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
    if (b !== undefined) head += `content-length: ${b.length}\r\n`;
    head += "\r\n";
    const h = enc.encode(head);
    const msg = new Uint8Array(h.length + (b?.length ?? 0));
    msg.set(h, 0);
    if (b) msg.set(b, h.length);
    return msg;
  }

  /** Sends one request and reads its response. */
  request(
    method: string,
    path: string,
    body?: Uint8Array | string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: string; headers: Record<string, string> }> {
    return this.send(HttpConnection.encodeRequest(method, path, body, headers));
  }

  /** Sends the bytes of one request and reads its response. */
  async send(
    request: Uint8Array,
  ): Promise<{ status: number; body: string; headers: Record<string, string> }> {
    if (this.#closed) throw new Error(`connection to ${this.#host} is closed`);
    let off = 0;
    while (off < request.length) off += await this.#conn.write(request.subarray(off));
    return await this.#readResponse();
  }

  /** Reads more bytes into the buffer (compacting or growing it first when full). */
  async #fill(): Promise<void> {
    if (this.#end === this.#buf.length) {
      const live = this.#end - this.#start;
      const next = live * 2 > this.#buf.length ? new Uint8Array(this.#buf.length * 2) : this.#buf;
      next.set(this.#buf.subarray(this.#start, this.#end), 0);
      this.#buf = next;
      this.#start = 0;
      this.#end = live;
    }
    const n = await this.#conn.read(this.#buf.subarray(this.#end));
    if (n === null) {
      this.close();
      throw new Error("connection closed by the server");
    }
    this.#end += n;
  }

  /** Position of CR LF (CR LF when `double`) at or after `from`, or -1. */
  #crlf(from: number, double: boolean): number {
    const b = this.#buf;
    for (let i = from; i + (double ? 3 : 1) < this.#end; i++) {
      if (b[i] === 13 && b[i + 1] === 10 && (!double || (b[i + 2] === 13 && b[i + 3] === 10))) {
        return i;
      }
    }
    return -1;
  }

  async #readResponse() {
    let end: number;
    while ((end = this.#crlf(this.#start, true)) < 0) await this.#fill();
    const head = this.#dec.decode(this.#buf.subarray(this.#start, end)).split("\r\n");
    this.#start = end + 4;
    const status = Number(head[0].split(" ")[1]);
    const headers: Record<string, string> = {};
    for (let k = 1; k < head.length; k++) {
      const l = head[k], i = l.indexOf(":");
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    let body = "";
    if (headers["transfer-encoding"]?.includes("chunked")) {
      while (true) {
        let e: number;
        while ((e = this.#crlf(this.#start, false)) < 0) await this.#fill();
        const size = parseInt(this.#dec.decode(this.#buf.subarray(this.#start, e)), 16);
        if (!(size >= 0)) throw new Error(`bad chunk size line from ${this.#host}`);
        // #fill may move the buffered bytes (compacting or growing the buffer): a chunk larger
        // than the free space was read from the old offsets. Positions are kept from #start.
        const line = e - this.#start;
        while (this.#end - this.#start < line + 2 + size + 2) await this.#fill();
        const from = this.#start + line + 2;
        body += this.#dec.decode(this.#buf.subarray(from, from + size));
        this.#start = from + size + 2;
        if (size === 0) break;
      }
    } else {
      const len = Number(headers["content-length"] ?? 0);
      while (this.#end - this.#start < len) await this.#fill();
      body = this.#dec.decode(this.#buf.subarray(this.#start, this.#start + len));
      this.#start += len;
    }
    if (this.#start === this.#end) this.#start = this.#end = 0;
    // The server may end the connection after this response (Deno 2.9.5 does so after request
    // bodies of more than ~200 bytes: denoland/deno#36657, fixed in 2.9.6).
    if ((headers.connection ?? "").toLowerCase().includes("close")) this.close();
    return { status, body, headers };
  }

  /** Whether the connection is closed (by {@linkcode HttpConnection.close} or the server). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Closes the connection. */
  close(): void {
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // already closed
    }
  }
}

export { quantile } from "../quantile.ts";

/**
 * CPU seconds (user + system) a process has used so far, from `/proc/PID/stat` (Linux; NaN
 * elsewhere or when the process is gone).
 *
 * @example
 * ```ts
 * import { cpuSecondsOf } from "./harness.ts";
 * const s = cpuSecondsOf(Deno.pid);
 * console.log(Number.isNaN(s) || s >= 0); // true
 * ```
 */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN;
  }
}

/**
 * The 1-minute load average (Linux), or NaN.
 *
 * @example
 * ```ts
 * import { loadAverage } from "./harness.ts";
 * const l = loadAverage();
 * console.log(Number.isNaN(l) || l >= 0); // true
 * ```
 */
export function loadAverage(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
  } catch {
    return NaN;
  }
}

/**
 * GETs JSON from the service (with the token when given).
 *
 * @example
 * ```ts
 * import { getJson } from "./harness.ts";
 * console.log(typeof getJson); // "function"
 * ```
 */
export async function getJson(url: string, token?: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/**
 * Polls `fn` every `everyMs` until it returns true; throws after `timeoutMs` with `what`.
 *
 * @example
 * ```ts
 * import { waitFor } from "./harness.ts";
 * let n = 0;
 * await waitFor(() => ++n >= 3, "three polls", 1000, 1);
 * console.log(n); // 3
 * ```
 */
export async function waitFor(
  fn: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30000,
  everyMs = 50,
): Promise<void> {
  const t0 = performance.now();
  while (!(await fn())) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
