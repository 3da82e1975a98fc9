/**
 * Test helpers for the data layer: data directory resolution, plus the shared assertions and
 * temporary directory of `tests/helpers.ts` (re-exported).
 *
 * @module
 */
import { resolveDataDir } from "../../src/data/data_dir.ts";
import { readExamples, type ReadExamplesOptions } from "../../src/data/readers.ts";
import type { Example } from "../../src/data/types.ts";

export { assert, assertEquals, assertThrowsMsg, withTempDir } from "../helpers.ts";

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

/** Encodes text as UTF-8 bytes. */
export function bytes(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

/** Reads everything; returns the rows delivered and the error that ended the stream, if any. */
export async function readAll(
  input: Parameters<typeof readExamples>[0],
  options: ReadExamplesOptions = {},
): Promise<{ rows: Example[]; error?: Error; reader: Awaited<ReturnType<typeof readExamples>> }> {
  const reader = await readExamples(input, options);
  const rows: Example[] = [];
  try {
    for await (const e of reader.stream) rows.push(e);
  } catch (e) {
    return { rows, error: e as Error, reader };
  }
  return { rows, reader };
}
