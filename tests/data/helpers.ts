/**
 * Test helpers for the data layer (and the other suites): data directory resolution, tiny
 * assertions and temporary directories.
 *
 * @module
 */
import { resolveDataDir } from "../../src/data/data_dir.ts";

/** The data directory, resolved like the code does. */
export const DATA_DIR: string = resolveDataDir();

/**
 * True when the real data is present (tests needing it use `ignore: !HAS_DATA`). When
 * `TAGSTREAM_DATA` is set explicitly (as CI does) the data must be there: a wrong directory fails
 * loudly instead of silently skipping the data tests.
 */
export const HAS_DATA: boolean = (() => {
  let present = false;
  try {
    present = Deno.statSync(`${DATA_DIR}/bibtex.train.txt`).isFile;
  } catch {
    present = false;
  }
  if (!present && Deno.env.get("TAGSTREAM_DATA")) {
    throw new Error(`TAGSTREAM_DATA is set but ${DATA_DIR}/bibtex.train.txt is missing`);
  }
  return present;
})();

/** Throws when `cond` is false. */
export function assert(cond: unknown, msg = "assertion failed"): asserts cond {
  if (!cond) throw new Error(msg);
}

/** Deep equality through JSON (typed arrays compared as plain arrays). */
export function assertEquals(actual: unknown, expected: unknown, msg = ""): void {
  const norm = (v: unknown): string =>
    JSON.stringify(v, (_k, x) => (ArrayBuffer.isView(x) ? Array.from(x as Int32Array) : x));
  const a = norm(actual), e = norm(expected);
  if (a !== e) throw new Error(`${msg ? msg + ": " : ""}expected ${e}, got ${a}`);
}

/** Asserts that `fn` throws (or rejects) an error of class `cls` whose message includes `text`. */
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

/** Encodes text as UTF-8 bytes. */
export function bytes(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

/** Runs `fn` with a fresh temporary directory, removed afterwards. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "tagstream-test-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
