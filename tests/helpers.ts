/**
 * Test helpers shared by every suite (no side effects on import): tiny assertions and a
 * temporary directory. Data-dependent helpers live in `tests/data/helpers.ts`.
 *
 * @module
 */
import type { Batch } from "../src/data/types.ts";

/**
 * Throws `msg` unless `cond` holds.
 *
 * @example
 * ```ts
 * import { assert } from "./helpers.ts";
 * assert(1 + 1 === 2, "arithmetic");
 * ```
 */
export function assert(cond: unknown, msg = "assertion failed"): asserts cond {
  if (!cond) throw new Error(msg);
}

/**
 * Deep equality through JSON (typed arrays compared as plain arrays; NaN and ±Infinity as
 * themselves, not as the `null` JSON writes for all three).
 *
 * @example
 * ```ts
 * import { assertEquals } from "./helpers.ts";
 * assertEquals(Int32Array.of(1, 2), [1, 2]);
 * assertEquals([NaN, -Infinity], [NaN, -Infinity]);
 * ```
 */
export function assertEquals(actual: unknown, expected: unknown, msg = ""): void {
  const norm = (v: unknown): string =>
    JSON.stringify(
      v,
      (_k, x) =>
        ArrayBuffer.isView(x)
          ? Array.from(x as Int32Array)
          : typeof x === "number" && !Number.isFinite(x)
          ? `<${x}>`
          : x,
    );
  const a = norm(actual), e = norm(expected);
  if (a !== e) throw new Error(`${msg ? msg + ": " : ""}expected ${e}, got ${a}`);
}

/**
 * Asserts that `fn` throws (or rejects) an error of class `cls` whose message includes `text`.
 *
 * @example
 * ```ts
 * import { assertThrowsMsg } from "./helpers.ts";
 * await assertThrowsMsg(() => JSON.parse("{"), SyntaxError, "JSON");
 * ```
 */
export async function assertThrowsMsg(
  fn: () => unknown,
  cls: new (...a: never[]) => Error,
  text: string,
): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    if (!(e instanceof cls)) {
      throw new Error(`expected ${cls.name}, got ${(e as Error)?.constructor?.name}: ${e}`);
    }
    if (!e.message.includes(text)) {
      throw new Error(`expected message containing ${JSON.stringify(text)}, got ${e.message}`);
    }
    return e;
  }
  throw new Error(`expected ${cls.name} containing ${JSON.stringify(text)}, nothing thrown`);
}

/**
 * The message of what `f` throws, or "" when it returns.
 *
 * @example
 * ```ts
 * import { messageOf } from "./helpers.ts";
 * console.log(messageOf(() => JSON.parse("{")).length > 0, messageOf(() => 1)); // true ""
 * ```
 */
export function messageOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "";
}

/**
 * The class and message of what `f` throws (`"RangeError: ..."`), or `none` when it returns.
 *
 * @example
 * ```ts
 * import { refusalOf } from "./helpers.ts";
 * console.log(refusalOf(() => new Array(-1)), refusalOf(() => 1, "accepted")); // RangeError: Invalid array length accepted
 * ```
 */
export function refusalOf(f: () => unknown, none = "no error"): string {
  try {
    f();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
  return none;
}

/**
 * Asserts that every case throws a TypeError or RangeError whose message matches its pattern.
 *
 * @example
 * ```ts
 * import { assertBadInput } from "./helpers.ts";
 * assertBadInput([[() => new Array(-1), /Invalid array length/]]);
 * ```
 */
export function assertBadInput(cases: readonly (readonly [() => unknown, RegExp])[]): void {
  for (const [f, re] of cases) {
    let msg = "";
    try {
      f();
    } catch (e) {
      msg = e instanceof TypeError || e instanceof RangeError ? e.message : `other: ${e}`;
    }
    assert(re.test(msg), `expected ${re}, got "${msg}"`);
  }
}

/**
 * Runs `fn` with a fresh temporary directory, removed afterwards.
 *
 * @example
 * ```ts
 * import { withTempDir } from "./helpers.ts";
 * const n = await withTempDir(async (dir) => {
 *   await Deno.writeTextFile(`${dir}/a.txt`, "hi");
 *   return (await Deno.readTextFile(`${dir}/a.txt`)).length;
 * });
 * console.log(n); // 2
 * ```
 */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "tagstream-test-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/**
 * `data` (text as UTF-8, or bytes) gzip-compressed, one member, as `gzip` writes it.
 *
 * @example
 * ```ts
 * import { gzip } from "./helpers.ts";
 * const z = await gzip("a\n");
 * console.log(z[0] === 0x1f && z[1] === 0x8b); // true
 * ```
 */
export async function gzip(
  data: string | Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  const s = new Blob([data]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/**
 * Runs `fn` with the base URL (`http://127.0.0.1:PORT`) of a local `Deno.serve` answering with
 * `handler`, and stops the server afterwards.
 *
 * @example
 * ```ts
 * import { withLocalServer } from "./helpers.ts";
 * const text = await withLocalServer(() => new Response("hi"), async (base) => {
 *   return await (await fetch(`${base}/x`)).text();
 * });
 * console.log(text); // hi
 * ```
 */
export async function withLocalServer<T>(
  handler: (req: Request) => Response | Promise<Response>,
  fn: (base: string) => Promise<T>,
): Promise<T> {
  const ac = new AbortController();
  let port = 0;
  await new Promise<void>((resolve) => {
    Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      signal: ac.signal,
      onListen: (addr) => {
        port = addr.port;
        resolve();
      },
    }, handler);
  });
  try {
    return await fn(`http://127.0.0.1:${port}`);
  } finally {
    ac.abort();
  }
}

/**
 * The batch of rows built as CSR arrays row by row: features `xi` with values `xv` and labels
 * `yi`, each row ending at `xp[i + 1]` and `yp[i + 1]` (both start with 0).
 *
 * @example
 * ```ts
 * import { csrBatch } from "./helpers.ts";
 * const b = csrBatch(3, 2, [0, 1, 3], [2, 0, 1], [5, 1, 1], [0, 1, 2], [1, 0]);
 * console.log(b.x.numRows, [...b.x.values], [...b.y.indices]); // 2 [ 5, 1, 1 ] [ 1, 0 ]
 * ```
 */
export function csrBatch(
  numFeatures: number,
  numLabels: number,
  xp: ArrayLike<number>,
  xi: ArrayLike<number>,
  xv: ArrayLike<number>,
  yp: ArrayLike<number>,
  yi: ArrayLike<number>,
): Batch {
  const numRows = xp.length - 1;
  return {
    x: {
      numRows,
      numCols: numFeatures,
      indptr: Int32Array.from(xp),
      indices: Int32Array.from(xi),
      values: Float32Array.from(xv),
    },
    y: { numRows, numCols: numLabels, indptr: Int32Array.from(yp), indices: Int32Array.from(yi) },
  };
}
