// batchGradient (for tests and diagnostics) compared only the batch's declared numCols with the
// model: a feature or label index past the model under a small numCols (or an observed label
// past it, or a NaN value) gave NaN or garbage gradients, silently. It is refused now, as
// learnMany's batch check would refuse a malformed batch, and the model is unchanged.
import { LemlStream } from "../../../src/models/leml/mod.ts";
import type { Batch } from "../../../src/data/types.ts";
import { stateDifference } from "../estimator_checks.ts";
import { assert, messageOf } from "../../helpers.ts";

const x = (indices: number[], values = indices.map(() => 1)) => ({
  numRows: 1,
  numCols: 1,
  indptr: Int32Array.of(0, indices.length),
  indices: Int32Array.from(indices),
  values: Float32Array.from(values),
});
const y = (labels: number[]) => ({
  numRows: 1,
  numCols: 1,
  indptr: Int32Array.of(0, labels.length),
  indices: Int32Array.from(labels),
});

Deno.test("leml batchGradient: indices past the model and NaN values are refused", () => {
  for (const update of ["full", "local"] as const) {
    const m = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 3, update, replay: 4 });
    const before = m.toState();
    const bad: [string, Batch][] = [
      ["feature past the model", { x: x([40]), y: y([0]) }],
      ["label past the model", { x: x([0]), y: y([30]) }],
      ["observed label past the model", {
        x: x([0]),
        y: y([0]),
        observed: y([0, 30]),
        fullyObserved: Uint8Array.of(0),
      }],
      ["a NaN value", { x: x([1], [NaN]), y: y([0]) }],
    ];
    for (const [what, batch] of bad) {
      assert(messageOf(() => m.batchGradient(batch)).includes("leml.batchGradient"), what);
    }
    const d = stateDifference(before, m.toState());
    assert(d === undefined, `${update}: model changed: ${d}`);
    // a batch within the model still has a finite gradient
    const g = m.batchGradient({ x: x([2]), y: y([1]) });
    for (const a of [g.W, g.H, g.bias]) {
      assert(a.every(Number.isFinite), `${update}: gradient ${[...a]}`);
    }
  }
});
