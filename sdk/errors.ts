/**
 * The error every model-file reader throws: the SDK's `loadModel` and the trainer's strict
 * `decodeModelFile` (./model_file.ts). The one class of the project: `mod.ts` exports this class
 * too, so `instanceof` holds whichever side threw it (tests/sdk/contract_test.ts).
 *
 * @module
 */

/**
 * Why a model file could not be read: `bad-magic` (not a Tagstream model file), `truncated`
 * (shorter than its header says), `newer-version` (written by a newer format version), `corrupt`
 * (CRC-32 mismatch, malformed msgpack, a field of the wrong type or size) or `unsupported`
 * (well-formed, but uses a kind or dtype this SDK cannot serve).
 *
 * @example
 * ```ts
 * import type { ModelFormatErrorReason } from "./errors.ts";
 * const r: ModelFormatErrorReason = "newer-version";
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
 * A model file that cannot be read, with the reason, the format version read from the file (0
 * when it could not be read) and the byte offset where the problem was found.
 *
 * @example
 * ```ts
 * import { ModelFormatError } from "./errors.ts";
 * const e = new ModelFormatError("truncated", "file has 10 of 200 bytes", { offset: 10 });
 * console.log(e.reason, e.offset, e.message);
 * ```
 */
export class ModelFormatError extends Error {
  /** "ModelFormatError". */
  override name = "ModelFormatError";
  /** Why the file could not be read. */
  declare readonly reason: ModelFormatErrorReason;
  /** Format version found in the file, 0 if it could not be read. */
  declare readonly formatVersion: number;
  /** Byte offset in the file where the problem was detected. */
  declare readonly offset: number;

  /** An error of the given reason, detected at `options.offset` of a file of `options.formatVersion`. */
  constructor(
    reason: ModelFormatErrorReason,
    detail: string,
    options: { formatVersion?: number; offset?: number; cause?: unknown } = {},
  ) {
    const offset = options.offset ?? 0;
    super(`Cannot read model file (${reason}) at byte ${offset}: ${detail}`, options);
    this.reason = reason;
    this.formatVersion = options.formatVersion ?? 0;
    this.offset = offset;
  }
}

/**
 * Throws a {@linkcode ModelFormatError} of `reason` found at byte `offset` (default 0) of a file
 * of format version `formatVersion`.
 *
 * @example
 * ```ts
 * import { formatError } from "./errors.ts";
 * try { formatError("corrupt", "CRC-32 mismatch", 1, 7); } catch (e) { console.log((e as Error).message); } // Cannot read model file (corrupt) at byte 7: CRC-32 mismatch
 * ```
 */
export const formatError = (
  reason: ModelFormatErrorReason,
  detail: string,
  formatVersion: number,
  offset?: number,
): never => {
  throw new ModelFormatError(reason, detail, { formatVersion, offset });
};
