/**
 * Review of CoEmbed's bounds (restore checks, the float32 score bound, the exact rollback of a
 * refused batch): a batch or consolidate that is refused and rolled back leaves the learner as
 * it was, including the label index built by `indexLabels` (the model is bit for bit the same,
 * so the index built on it still holds: dropping it silently turned `predictTopK` from the
 * index's search into the full scan).
 */
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assert, assertEquals } from "../../helpers.ts";
import { maskedCsr, rowsBatch, synthetic } from "./helpers.ts";

const s = synthetic(160, 8, 4, 3);
const m = maskedCsr(s, 0, 160, 0.7, 0.3, 5);

/** A learner that learned three batches, then restored with `learningRate`. */
function trained(variant: "L" | "NL", learningRate: number): CoEmbedLearner {
  const l = CoEmbedLearner.create({ variant, numRff: 16, seed: 1, replay: 64 });
  for (let b = 0; b < 3; b++) l.learnMany(rowsBatch(m, b * 16, 16));
  const st: ModelState = l.toState();
  return CoEmbedLearner.restore({ ...st, config: { ...st.config, learningRate } });
}

for (const variant of ["L", "NL"] as const) {
  Deno.test(`coembed ${variant}: a refused batch (growing both spaces) keeps the label index`, () => {
    const l = trained(variant, 1e20);
    const index = l.indexLabels({ minLabels: 0 });
    assert(index !== undefined);
    const x = { indices: Int32Array.of(0, 3, 5), values: Float32Array.of(1, -2, 0.5) };
    const top = l.predictTopK(x, 2);
    const batch = rowsBatch(m, 48, 16);
    // the batch names more features and labels: the spaces grow before the step diverges
    const grown = { x: { ...batch.x, numCols: 20 }, y: { ...batch.y, numCols: 9 } };
    let err: unknown;
    try {
      l.learnMany(grown);
    } catch (e) {
      err = e;
    }
    assert(err instanceof RangeError && /diverged/.test(err.message), `${err}`);
    assertEquals([l.numFeatures, l.numLabels], [8, 4]);
    assert(l.labelIndex === index, "the label index was dropped by a refused batch");
    assertEquals(l.predictTopK(x, 2), top);
    // a batch that is learned still drops it (the globals changed)
    const ok = trained(variant, 0.01);
    ok.indexLabels({ minLabels: 0 });
    ok.learnMany(batch);
    assertEquals(ok.labelIndex, undefined);
  });

  Deno.test(`coembed ${variant}: a refused consolidate keeps the label index`, () => {
    const l = trained(variant, 1e20);
    const index = l.indexLabels({ minLabels: 0 });
    assert(index !== undefined);
    let err: unknown;
    try {
      l.consolidate(3);
    } catch (e) {
      err = e;
    }
    assert(err instanceof RangeError && /diverged/.test(err.message), `${err}`);
    assert(l.labelIndex === index, "the label index was dropped by a refused consolidate");
  });
}
