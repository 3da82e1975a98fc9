/**
 * Where the data lives: `--data-dir`, else `$TAGSTREAM_DATA`, else `./data`.
 *
 * @module
 */

/**
 * Resolves the data directory: the flag when given (non-empty), else the `TAGSTREAM_DATA`
 * environment variable (when set, non-empty and readable), else `./data`.
 *
 * @throws {TypeError} when `flag` is neither a string nor undefined
 *
 * @example
 * ```ts
 * import { resolveDataDir } from "./data_dir.ts";
 * console.log(resolveDataDir("/tmp/xc")); // "/tmp/xc"
 * ```
 */
export function resolveDataDir(flag?: string): string {
  if (flag !== undefined && typeof flag !== "string") {
    throw new TypeError(`resolveDataDir: flag must be a string or undefined, got ${typeof flag}`);
  }
  if (flag !== undefined && flag !== "") return flag;
  let env: string | undefined;
  try {
    env = Deno.env.get("TAGSTREAM_DATA");
  } catch {
    env = undefined; // no --allow-env: fall through to the default
  }
  if (env !== undefined && env !== "") return env;
  return "./data";
}
