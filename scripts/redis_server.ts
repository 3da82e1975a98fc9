/**
 * Starts a throwaway `redis-server` (installed by scripts/install-services.sh) on 127.0.0.1 with
 * a free port and a temporary directory, for tests and bench scripts; `stop()` kills it and
 * removes the directory.
 *
 * @module
 */

/** A running throwaway Redis server. */
export interface RedisServer {
  /** TCP port on 127.0.0.1 (the TLS port with `tls`). */
  readonly port: number;
  /** `redis://127.0.0.1:<port>` (`rediss://` with `tls`; no password in it). */
  readonly url: string;
  /** With `tls`: the PEM file of the CA that signed the server's certificate. */
  readonly caFile?: string;
  /**
   * Kills the server (SIGKILL), runs `whileDown` if given, and starts it again on the same port
   * and directory.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** Kills the server and removes its directory. */
  stop(): Promise<void>;
}

/** Options of {@linkcode startRedisServer}. */
export interface RedisServerOptions {
  /** Require this password (`--requirepass`, the `default` user's password). */
  requirePass?: string;
  /** Serve TLS only (certificates made with `openssl` in the server's directory). */
  tls?: boolean;
  /** Keep data across {@linkcode RedisServer.restart} (append-only file, fsync always). */
  persist?: boolean;
  /** Try this port first (default: one free a moment before); a taken one gives way to another. */
  port?: number;
}

/**
 * A TCP port that was free a moment ago on 127.0.0.1.
 *
 * @example
 * ```ts
 * import { freePort } from "./redis_server.ts";
 * const p = freePort();
 * console.log(p > 0 && p < 65536); // true
 * ```
 */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * Whether `redis-server` can be found on the PATH.
 *
 * @example
 * ```ts
 * import { hasRedisServer } from "./redis_server.ts";
 * console.log(typeof hasRedisServer()); // "boolean"
 * ```
 */
export function hasRedisServer(): boolean {
  try {
    const r = new Deno.Command("redis-server", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .outputSync();
    return r.success;
  } catch {
    return false;
  }
}

/**
 * Makes a CA and a server certificate for 127.0.0.1/localhost with `openssl` in `dir`.
 *
 * @example
 * ```ts
 * import { makeTlsFiles } from "./redis_server.ts";
 * console.log(typeof makeTlsFiles); // "function"
 * ```
 */
export async function makeTlsFiles(
  dir: string,
): Promise<{ ca: string; cert: string; key: string }> {
  const f = (n: string) => `${dir}/${n}`;
  const run = async (args: string[]) => {
    const r = await new Deno.Command("openssl", { args, stdout: "null", stderr: "piped" })
      .output();
    if (!r.success) {
      throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(r.stderr)}`);
    }
  };
  await run([
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    f("ca.key"),
    "-out",
    f("ca.crt"),
    "-days",
    "2",
    "-subj",
    "/CN=tagstream test CA",
  ]);
  await run([
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    f("server.key"),
    "-out",
    f("server.csr"),
    "-subj",
    "/CN=127.0.0.1",
  ]);
  await Deno.writeTextFile(f("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  await run([
    "x509",
    "-req",
    "-in",
    f("server.csr"),
    "-CA",
    f("ca.crt"),
    "-CAkey",
    f("ca.key"),
    "-CAcreateserial",
    "-out",
    f("server.crt"),
    "-days",
    "2",
    "-extfile",
    f("ext.cnf"),
  ]);
  return { ca: f("ca.crt"), cert: f("server.crt"), key: f("server.key") };
}

/**
 * Reads `n` replies of the kinds a readiness probe gets (`+`, `-`, `:` lines and `$` bulk
 * strings) from `c`; undefined when the connection ends first.
 */
async function readReplies(c: Deno.Conn, n: number): Promise<string[] | undefined> {
  const buf = new Uint8Array(4096);
  let data = new Uint8Array(0);
  const replies: string[] = [];
  let at = 0;
  while (replies.length < n) {
    const text = new TextDecoder().decode(data.subarray(at));
    const eol = text.indexOf("\r\n");
    if (eol >= 0 && text[0] !== "$") {
      replies.push(text.slice(0, eol));
      at += new TextEncoder().encode(text.slice(0, eol + 2)).length;
      continue;
    }
    if (eol >= 0) {
      const len = Number(text.slice(1, eol));
      const head = eol + 2;
      if (len < 0) {
        replies.push("");
        at += head;
        continue;
      }
      if (data.length - at >= head + len + 2) {
        replies.push(new TextDecoder().decode(data.subarray(at + head, at + head + len)));
        at += head + len + 2;
        continue;
      }
    }
    const got = await c.read(buf);
    if (got === null) return undefined;
    const next = new Uint8Array(data.length + got);
    next.set(data);
    next.set(buf.subarray(0, got), data.length);
    data = next;
  }
  return replies;
}

/**
 * Whether the redis-server of process `pid` answers on `port`: PING answered PONG (after AUTH
 * when it has a password; a server still loading its append-only file accepts connections but
 * answers `-LOADING`), and `INFO server` names `pid` (the port was free a moment before the
 * server was started: another process may have taken it, and must not count as ours).
 */
async function answersPing(
  port: number,
  pid: number,
  caFile: string | undefined,
  password: string | undefined,
): Promise<boolean> {
  try {
    const c = caFile !== undefined
      ? await Deno.connectTls({
        hostname: "127.0.0.1",
        port,
        caCerts: [await Deno.readTextFile(caFile)],
      })
      : await Deno.connect({ hostname: "127.0.0.1", port });
    // a peer that never answers (not a redis-server) ends the probe, not the wait
    const timer = setTimeout(() => c.close(), 2000);
    try {
      const auth = password !== undefined
        ? `*2\r\n$4\r\nAUTH\r\n$${new TextEncoder().encode(password).length}\r\n${password}\r\n`
        : "";
      await c.write(new TextEncoder().encode(`${auth}PING\r\nINFO server\r\n`));
      const replies = await readReplies(c, password !== undefined ? 3 : 2);
      if (replies === undefined) return false;
      const [pong, info] = replies.slice(-2);
      return pong === "+PONG" && new RegExp(`^process_id:${pid}\r?$`, "m").test(info);
    } finally {
      clearTimeout(timer);
      try {
        c.close();
      } catch { /* closed by the timer */ }
    }
  } catch {
    return false;
  }
}

/** How long a starting (or restarted) redis-server may take to answer PONG. */
const READY_WAIT_MS = 30_000;

/**
 * Starts `redis-server` on 127.0.0.1 (without persistence unless `persist`; with a password
 * and/or TLS when asked) and waits until it answers.
 *
 * @example
 * ```ts
 * import { hasRedisServer, startRedisServer } from "./redis_server.ts";
 * if (hasRedisServer()) {
 *   const r = await startRedisServer();
 *   console.log(r.url.startsWith("redis://127.0.0.1:")); // true
 *   await r.stop();
 * }
 * ```
 */
export async function startRedisServer(o: RedisServerOptions = {}): Promise<RedisServer> {
  if (!hasRedisServer()) {
    throw new Error("redis-server is not installed: run `bash scripts/install-services.sh`");
  }
  const dir = await Deno.makeTempDir({ prefix: "tagstream-redis-" });
  let tlsFiles: { ca: string; cert: string; key: string } | undefined;
  try {
    if (o.tls) tlsFiles = await makeTlsFiles(dir);
  } catch (e) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw e;
  }
  const argsFor = (port: number): string[] => {
    const args = o.tls
      ? [
        "--port",
        "0",
        "--tls-port",
        String(port),
        "--tls-cert-file",
        tlsFiles!.cert,
        "--tls-key-file",
        tlsFiles!.key,
        "--tls-ca-cert-file",
        tlsFiles!.ca,
        "--tls-auth-clients",
        "no",
      ]
      : ["--port", String(port)];
    args.push("--bind", "127.0.0.1", "--dir", dir, "--save", "");
    if (o.persist) args.push("--appendonly", "yes", "--appendfsync", "always");
    else args.push("--appendonly", "no");
    args.push("--daemonize", "no", "--loglevel", "warning");
    if (o.requirePass !== undefined) args.push("--requirepass", o.requirePass);
    return args;
  };
  const spawn = (port: number) =>
    new Deno.Command("redis-server", {
      args: argsFor(port),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
  const kill = async (child: Deno.ChildProcess) => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
  };
  /**
   * Waits until `child` answers on `port` (true), or exits (false: the port was taken, or it
   * failed), or READY_WAIT_MS pass (false).
   */
  const waitReady = async (port: number, child: Deno.ChildProcess) => {
    let exited = false;
    child.status.then(() => exited = true);
    const deadline = Date.now() + READY_WAIT_MS;
    while (!exited && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      if (exited) break;
      if (await answersPing(port, child.pid, tlsFiles?.ca, o.requirePass)) return true;
    }
    return false;
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = attempt === 0 && o.port !== undefined ? o.port : freePort();
    let child = spawn(port);
    if (await waitReady(port, child)) {
      return {
        port,
        url: `${o.tls ? "rediss" : "redis"}://127.0.0.1:${port}`,
        caFile: tlsFiles?.ca,
        async restart(whileDown?: () => Promise<void>) {
          await kill(child);
          if (whileDown !== undefined) await whileDown();
          child = spawn(port);
          if (!(await waitReady(port, child))) {
            await kill(child);
            throw new Error(`Cannot restart redis-server on 127.0.0.1:${port}`);
          }
        },
        async stop() {
          await kill(child);
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        },
      };
    }
    await kill(child);
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  throw new Error("Cannot start redis-server on 127.0.0.1 after 5 attempts");
}
