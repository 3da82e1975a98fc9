/**
 * How the command-line scripts end on an error: one line `NAME: message` on stderr and exit
 * code 2 for bad input (a TypeError, RangeError or SyntaxError: a flag, a file or a value the
 * user can fix; a ModelFormatError: a file given as a model that is not one) or 1 for anything
 * else.
 *
 * @module
 */

import { ModelFormatError } from "../../sdk/mod.ts";

/**
 * Whether `e` reports bad input (TypeError, RangeError, SyntaxError or ModelFormatError), exit
 * code 2.
 *
 * @example
 * ```ts
 * import { isBadInput } from "./run_script.ts";
 * console.log(isBadInput(new RangeError("k")), isBadInput(new Error("disk"))); // true false
 * ```
 */
export function isBadInput(e: unknown): boolean {
  return e instanceof TypeError || e instanceof RangeError || e instanceof SyntaxError ||
    e instanceof ModelFormatError;
}

/**
 * Runs a script's `main`; if it throws, prints `name: message` on stderr and exits the process
 * with 2 when `badInput(e)` (default {@linkcode isBadInput}), else 1.
 *
 * @example
 * ```ts
 * import { runScript } from "./run_script.ts";
 * await runScript("hello", () => {
 *   console.log("hello"); // hello
 * });
 * ```
 */
export async function runScript(
  name: string,
  main: () => void | Promise<void>,
  badInput: (e: unknown) => boolean = isBadInput,
): Promise<void> {
  try {
    await main();
  } catch (e) {
    console.error(`${name}: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(badInput(e) ? 2 : 1);
  }
}
