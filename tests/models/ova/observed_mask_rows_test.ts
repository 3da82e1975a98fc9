// A batch's `observed` mask without `fullyObserved` declares no row fully observed (data/types.ts
// `Batch`, as LEML and BR read it): a row whose mask is empty then observes nothing. OVA read
// such a row as fully observed and learned the labels it does not carry as negatives.
import { factory } from "../../../src/models/ova/mod.ts";
import type { Batch } from "../../../src/data/types.ts";
import { assertEquals } from "../../helpers.ts";

/**
 * Row 0 (feature 1) observes label 0 (+) and label 1 (−); row 1 (feature 0) observes nothing: a
 * fully observed row 1 would take label 0, known by then, as a hard negative.
 */
const MASKED: Batch = {
  x: {
    numRows: 2,
    numCols: 2,
    indptr: Int32Array.of(0, 1, 2),
    indices: Int32Array.of(1, 0),
    values: Float32Array.of(1, 1),
  },
  y: { numRows: 2, numCols: 3, indptr: Int32Array.of(0, 1, 1), indices: Int32Array.of(0) },
  observed: {
    numRows: 2,
    numCols: 3,
    indptr: Int32Array.of(0, 2, 2),
    indices: Int32Array.of(0, 1),
  },
};

Deno.test("ova: with an observed mask and no fullyObserved, a row with an empty mask observes nothing", () => {
  const a = factory.create({ seed: 1 }), b = factory.create({ seed: 1 });
  a.learnMany(MASKED);
  b.learnMany({ ...MASKED, fullyObserved: Uint8Array.of(0, 0) });
  const q = { indices: Int32Array.of(0), values: Float32Array.of(1) };
  // feature 0 occurs in row 1 only, which observes nothing: the same model as when it says so
  assertEquals([...a.predictScores(q)], [...b.predictScores(q)]);
  assertEquals(a.toModelFile({}), b.toModelFile({}));
});
