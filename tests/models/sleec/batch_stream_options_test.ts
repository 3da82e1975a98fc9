/**
 * The batch trainer refuses the options only the streaming estimator uses (it would ignore them),
 * as the streaming estimator refuses the batch-only ones, naming the option.
 */
import { trainSleec } from "../../../src/models/sleec/batch.ts";
import { DEFAULT_CONFIG } from "../../../src/models/sleec/config.ts";
import { assert, messageOf } from "../../helpers.ts";

const x = {
  numRows: 2,
  numCols: 2,
  indptr: Int32Array.of(0, 1, 2),
  indices: Int32Array.of(0, 1),
  values: Float32Array.of(1, 1),
};
const y = { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) };

Deno.test("trainSleec: a streaming-only setting off its default is refused, naming it", () => {
  for (
    const [name, value] of [
      ["learningRate", 0.5],
      ["reservoirSize", 10],
      ["refreshEvery", 3],
      ["firstRefresh", 3],
      ["refreshSvpIterations", 9],
      ["refreshAdmmIterations", 9],
      ["reembedEvery", 2],
    ] as const
  ) {
    const message = messageOf(() => trainSleec(x, y, { rank: 1, [name]: value }));
    assert(
      message.includes(name) && message.includes("streaming"),
      `${name}: ${message || "accepted"}`,
    );
  }
});

Deno.test("trainSleec: the streaming estimator's sizes and limits are refused, naming them", () => {
  for (const name of ["numFeatures", "numLabels", "maxFeatures", "maxLabels"]) {
    const message = messageOf(() => trainSleec(x, y, { rank: 1, [name]: 100 } as never));
    assert(message.includes(name), `${name}: ${message || "accepted"}`);
  }
});

Deno.test("trainSleec: streaming settings at their defaults (a resolved config) still train", () => {
  const m = trainSleec(x, y, { ...DEFAULT_CONFIG, rank: 1, k: 1 });
  assert(
    m.predictTopK({ indices: Int32Array.of(1), values: Float32Array.of(1) }, 1).labels[0] === 1,
  );
});
