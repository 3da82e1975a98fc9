/**
 * Stopping after a failure: the steps of a stop all run, and the first failure is the one
 * reported, later ones (and a stop that fails after the run failed) notes beside it on stderr.
 * Shared by `train` and `serve`.
 *
 * @module
 */

/**
 * Tells on stderr of `error`, met while `what` after an earlier failure: that failure stays the
 * error reported (and sets the exit status), this one is a note beside it.
 *
 * @example
 * ```ts
 * import { noteAlsoFailed } from "./stop_steps.ts";
 * noteAlsoFailed("stopping the service", new Error("disk full")); // [tagstream] also, stopping the service failed: disk full (on stderr)
 * ```
 */
export function noteAlsoFailed(what: string, error: unknown): void {
  console.error(
    `[tagstream] also, ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/**
 * Runs every step in order, each even if one before it failed, and then throws the first
 * failure (the later ones are notes on stderr beside it, see {@linkcode noteAlsoFailed}).
 *
 * @example
 * ```ts
 * import { runEveryStep } from "./stop_steps.ts";
 * const ran: string[] = [];
 * try {
 *   await runEveryStep([
 *     ["shutting the server down", () => Promise.reject(new Error("boom"))],
 *     ["stopping the service", () => void ran.push("service")],
 *   ]);
 * } catch (e) {
 *   console.log((e as Error).message, ran); // boom [ "service" ]
 * }
 * ```
 */
export async function runEveryStep(
  steps: readonly (readonly [what: string, step: () => unknown])[],
): Promise<void> {
  let first: { error: unknown } | undefined;
  for (const [what, step] of steps) {
    try {
      await step();
    } catch (e) {
      if (first === undefined) first = { error: e };
      else noteAlsoFailed(what, e);
    }
  }
  if (first !== undefined) throw first.error;
}
