/**
 * Starts a throwaway `redis-server` (installed by scripts/install-services.sh) on 127.0.0.1 with
 * a free port and a temporary directory, for tests and bench scripts; `stop()` kills it and
 * removes the directory.
 *
 * @module
 */

/** A running throwaway Redis server. */
export interface RedisServer {
  /** TCP port on 127.0.0.1. */
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** Kills the server and removes its directory. */
  stop(): Promise<void>;
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
 * Starts `redis-server` without persistence on 127.0.0.1 and waits until it answers.
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
export async function startRedisServer(): Promise<RedisServer> {
  if (!hasRedisServer()) {
    throw new Error("redis-server is not installed: run `bash scripts/install-services.sh`");
  }
  const dir = await Deno.makeTempDir({ prefix: "tagstream-redis-" });
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = freePort();
    const child = new Deno.Command("redis-server", {
      args: [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
        "--loglevel",
        "warning",
      ],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    let ok = false;
    for (let i = 0; i < 100 && !ok; i++) {
      await new Promise((r) => setTimeout(r, 20));
      try {
        const c = await Deno.connect({ hostname: "127.0.0.1", port });
        await c.write(new TextEncoder().encode("PING\r\n"));
        const buf = new Uint8Array(16);
        const n = await c.read(buf);
        c.close();
        ok = n !== null && new TextDecoder().decode(buf.subarray(0, n)).startsWith("+PONG");
      } catch {
        ok = false;
      }
    }
    if (ok) {
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        async stop() {
          try {
            child.kill("SIGKILL");
          } catch {
            // already gone
          }
          await child.status;
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        },
      };
    }
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  throw new Error("Cannot start redis-server on 127.0.0.1 after 5 attempts");
}
