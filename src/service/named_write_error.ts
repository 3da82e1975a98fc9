/**
 * Errors of writes on open files, named by their file.
 *
 * @module
 */
/**
 * An error met writing (or syncing) the open file `path`, naming it: the runtime's message for a
 * write on an open file has no path (`No space left on device (os error 28)`, on a full disk),
 * unlike one for an open or a rename. The message gets the runtime's own form for a path,
 * `REASON (os error N): write 'PATH'`, which the commands turn into a line naming the state
 * directory; the class is kept, the error is the `cause`. An error already naming `path`, or that
 * is not an `Error`, is returned as it is.
 *
 * @example
 * ```ts
 * import { namedWriteError } from "./named_write_error.ts";
 * const e = namedWriteError(new Error("No space left on device (os error 28)"), "st/checkpoint.msgpack.tmp");
 * console.log((e as Error).message); // No space left on device (os error 28): write 'st/checkpoint.msgpack.tmp'
 * ```
 */
export function namedWriteError(e: unknown, path: string): unknown {
  if (!(e instanceof Error) || e.message.includes(path)) return e;
  const Ctor = e.constructor as new (message: string, options?: ErrorOptions) => Error;
  let named: Error;
  try {
    named = new Ctor(`${e.message}: write '${path}'`, { cause: e });
  } catch {
    named = new Error(`${e.message}: write '${path}'`, { cause: e });
  }
  const code = (e as { code?: unknown }).code;
  if (code !== undefined) (named as { code?: unknown }).code = code;
  return named;
}
