/**
 * Experience replay of streaming LEML (`replay` > 0): every incoming minibatch of b rows is
 * learned in `replaySteps` optimiser steps, each on the b new rows joined by
 * round(`replayRatio`·b) rows drawn from a bounded, seeded reservoir of earlier rows (a uniform
 * sample of the stream, ../../data/reservoir.ts); the new rows enter the reservoir afterwards.
 *
 * @module
 */
import type { Batch } from "../../data/types.ts";
import { type RowReservoir, withReplay } from "../../data/reservoir.ts";

/**
 * Learns `batch` by calling `step` once (no reservoir: capacity 0) or `replaySteps` times on
 * the batch joined by replayed rows (the batch's rows first; `haveU` is passed to the first
 * step only), then adds the batch to the reservoir. Returns whether the reservoir took part.
 *
 * @example
 * ```ts
 * import { learnWithReplay } from "./replay.ts";
 * import { RowReservoir } from "../../data/reservoir.ts";
 * const res = new RowReservoir(4, 1);
 * const batch = {
 *   x: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0), values: Float32Array.of(1) },
 *   y: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) },
 * };
 * const sizes: number[] = [];
 * const opts = { replayRatio: 1, replaySteps: 2 };
 * learnWithReplay(batch, res, opts, 0, (b) => sizes.push(b.x.numRows));
 * learnWithReplay(batch, res, opts, 0, (b) => sizes.push(b.x.numRows));
 * console.log(sizes, res.size); // [ 1, 1, 2, 2 ] 2
 * ```
 */
export function learnWithReplay(
  batch: Batch,
  reservoir: RowReservoir,
  options: { readonly replayRatio: number; readonly replaySteps: number },
  haveU: number,
  step: (batch: Batch, haveU: number) => void,
): boolean {
  if (reservoir.capacity === 0) {
    step(batch, haveU);
    return false;
  }
  const extra = Math.round(options.replayRatio * batch.x.numRows);
  for (let s = 0; s < options.replaySteps; s++) {
    // the batch's rows come first in the joined batch
    step(withReplay(batch, reservoir.sample(extra)), s === 0 ? haveU : 0);
  }
  reservoir.addRows(batch);
  return true;
}
