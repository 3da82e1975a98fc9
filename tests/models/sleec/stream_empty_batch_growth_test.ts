/**
 * A batch of no rows still grows the streaming SLEEC model's spaces (its x.numCols and
 * y.numCols): the answers must follow the new sizes at once, as a restored copy's do.
 */
import { SleecStream } from "../../../src/models/sleec/stream.ts";
import { assertEquals } from "../../helpers.ts";

const row = { indices: Int32Array.of(0), values: Float32Array.of(1) };

function emptyBatch(numFeatures: number, numLabels: number) {
  return {
    x: {
      numRows: 0,
      numCols: numFeatures,
      indptr: Int32Array.of(0),
      indices: new Int32Array(0),
      values: new Float32Array(0),
    },
    y: { numRows: 0, numCols: numLabels, indptr: Int32Array.of(0), indices: new Int32Array(0) },
  };
}

Deno.test("sleec stream: a batch of no rows that grows the label space resizes the answers", () => {
  const m = new SleecStream({ rank: 2, firstRefresh: 1 });
  m.learnOne(row, [0]);
  assertEquals(m.predictScores(row).length, 1, "one label before");
  m.learnMany(emptyBatch(5, 7));
  assertEquals(m.numLabels, 7);
  assertEquals(m.predictScores(row).length, 7, "a score for every label after the growth");
  const restored = SleecStream.fromState(m.toState());
  assertEquals(
    Array.from(m.predictScores(row)),
    Array.from(restored.predictScores(row)),
    "the restored copy answers alike",
  );
  assertEquals(m.predictTopK(row, 10).labels.length, 7, "top-k ranks every label");
});
