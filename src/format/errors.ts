/**
 * The error thrown by the model-file reader.
 *
 * @module
 */

/**
 * Why a model file could not be read:
 * - `bad-magic`: the bytes do not start like a Tagstream model file;
 * - `truncated`: the file is shorter than its header says (or ends inside the header);
 * - `newer-version`: written by a newer format version than this reader knows;
 * - `corrupt`: CRC-32 mismatch, malformed msgpack, or a field with a wrong type or size;
 * - `unsupported`: well-formed, but uses something this reader cannot handle (e.g. a dtype).
 *
 * @example
 * ```ts
 * import type { ModelFormatErrorReason } from "./errors.ts";
 * const r: ModelFormatErrorReason = "truncated";
 * console.log(r);
 * ```
 */
export type ModelFormatErrorReason =
  | "bad-magic"
  | "truncated"
  | "newer-version"
  | "corrupt"
  | "unsupported";

/**
 * A model file that cannot be read. Carries the reason, the format version read from the file
 * (0 when it could not be read) and the byte offset where the problem was found.
 *
 * @example
 * ```ts
 * import { ModelFormatError } from "./errors.ts";
 * const e = new ModelFormatError("truncated", "file has 10 of 200 bytes", { offset: 10 });
 * console.log(e.reason, e.offset, e.message);
 * ```
 */
export class ModelFormatError extends Error {
  /** Why the file could not be read. */
  readonly reason: ModelFormatErrorReason;
  /** Format version found in the file, 0 if it could not be read. */
  readonly formatVersion: number;
  /** Byte offset in the file where the problem was detected. */
  readonly offset: number;

  /** An error of the given reason, detected at `options.offset` of a file of `options.formatVersion`. */
  constructor(
    reason: ModelFormatErrorReason,
    detail: string,
    options: { formatVersion?: number; offset?: number; cause?: unknown } = {},
  ) {
    const offset = options.offset ?? 0;
    super(`Cannot read model file (${reason}) at byte ${offset}: ${detail}`, {
      cause: options.cause,
    });
    this.name = "ModelFormatError";
    this.reason = reason;
    this.formatVersion = options.formatVersion ?? 0;
    this.offset = offset;
  }
}
