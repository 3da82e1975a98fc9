/**
 * A batch whose rows use a feature or label index past both the model's size and the batch's
 * declared `numCols`: the other models grow to the index, CoEmbed grows only to the declared
 * sizes and refused the batch with the message of an index out of range alone ("row 0 has
 * feature index 7 out of range [0, 3)"), as if the model could not grow. The refusal now says
 * why and which sizes to declare; with them declared, CoEmbed grows.
 *
 * @module
 */
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import { assert, assertBadInput } from "../../helpers.ts";

const batch = (xCols: number, yCols: number, feature: number, label: number) => ({
  x: {
    numRows: 1,
    numCols: xCols,
    indptr: Int32Array.of(0, 2),
    indices: Int32Array.of(0, feature),
    values: Float32Array.of(1, 1),
  },
  y: { numRows: 1, numCols: yCols, indptr: Int32Array.of(0, 1), indices: Int32Array.of(label) },
});

Deno.test("coembed: an index past the batch's declared numCols is refused saying why", () => {
  const m = CoEmbedLearner.create({ variant: "L", seed: 1 }, 3, 2);
  assertBadInput([
    [
      () => m.learnMany(batch(3, 2, 7, 1)),
      /^coembed\.learnMany: row 0 has feature index 7 out of range \[0, 3\): CoEmbed grows to a batch's declared sizes \(x\.numCols 3, y\.numCols 2\), never past them; declare the columns the rows use \(x\.numCols 8, y\.numCols 2\)$/,
    ],
    [
      () => m.learnMany(batch(3, 2, 1, 5)),
      /label index 5 out of range \[0, 2\): .* declare the columns the rows use \(x\.numCols 3, y\.numCols 6\)$/,
    ],
  ]);
  const sizes = () => [m.numFeatures, m.numLabels, m.rowsSeen].join();
  assert(sizes() === "3,2,0", `the model changed: ${sizes()}`);
  // declared, the same rows grow the model
  m.learnMany(batch(8, 6, 7, 5));
  assert(sizes() === "8,6,1", sizes());
});
