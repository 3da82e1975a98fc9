/**
 * Helpers shared by the SDK tests.
 *
 * @module
 */
import { ModelFormatError } from "../../sdk/mod.ts";

/** Throws `msg` unless `cond` holds. */
export function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

/** What a reader did with a file: "ok", or the ModelFormatError's fields (anything else is rethrown). */
export interface Outcome {
  reason: string;
  offset: number;
  version: number;
  message: string;
}

/** Runs a reader and records its outcome; rethrows any error that is not a ModelFormatError. */
export function outcome(read: () => unknown): Outcome {
  try {
    read();
    return { reason: "ok", offset: -1, version: -1, message: "" };
  } catch (e) {
    if (e instanceof ModelFormatError) {
      return { reason: e.reason, offset: e.offset, version: e.formatVersion, message: e.message };
    }
    throw e;
  }
}

export { mulberry32 } from "../mulberry32.ts";
