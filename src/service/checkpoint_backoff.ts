/**
 * The back-off of background checkpoints after failed ones (a full disk fails every attempt
 * alike, and an attempt costs what a checkpoint costs: the learner's state built and encoded).
 *
 * @module
 */

/** The most the spacing of background checkpoints grows after failed ones: 16 times. */
export const CHECKPOINT_BACKOFF_CAP = 16;

/**
 * How many times the usual spacing a background checkpoint waits after `failed` failed attempts in
 * a row: 1 while none failed, then 2, 4, 8 and at most {@linkcode CHECKPOINT_BACKOFF_CAP}. It
 * multiplies the usual spacing's `--checkpoint-every` events and checkpoint timer's ticks (the
 * spacing of 10 times the last attempt's own duration, a failed one's too, is not multiplied: a
 * paused Redis source waits for the timer's retry); a checkpoint written resets the count (explicit checkpoints —
 * `POST /checkpoint`, a stop's last one — are never held back).
 *
 * @example
 * ```ts
 * import { checkpointBackoff } from "./checkpoint_backoff.ts";
 * console.log([0, 1, 2, 3, 4, 5, 50].map(checkpointBackoff)); // [1, 2, 4, 8, 16, 16, 16]
 * ```
 */
export function checkpointBackoff(failed: number): number {
  return failed <= 0 ? 1 : Math.min(2 ** Math.min(failed, 30), CHECKPOINT_BACKOFF_CAP);
}
