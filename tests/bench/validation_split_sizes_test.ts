/**
 * `validationSplit` (bench/repro/harness.ts) of a training set too small for a 20% split gave an
 * empty validation part: every setting then scored NaN (or 0), the first one was "chosen", and
 * the JSON listed those scores as a selection.
 */
import { assertEquals, assertThrowsMsg } from "../helpers.ts";
import { validationSplit } from "../../bench/repro/harness.ts";
import knn from "../../bench/repro/experiments/knn.ts";
import { Progress } from "../../src/progress/mod.ts";

function rowsDataset(n: number) {
  return {
    name: "t",
    numFeatures: 1,
    numLabels: 1,
    x: {
      numRows: n,
      numCols: 1,
      indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
      indices: new Int32Array(n),
      values: new Float32Array(n).fill(1),
    },
    y: {
      numRows: n,
      numCols: 1,
      indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
      indices: new Int32Array(n),
    },
  };
}

Deno.test("validationSplit refuses a split with no validation row", async () => {
  // round(2 × 0.2) = 0 validation rows
  await assertThrowsMsg(
    () => validationSplit(rowsDataset(2), 0.2, 0),
    RangeError,
    "2 training rows",
  );
  // round(3 × 0.9) = 3: no fit row
  await assertThrowsMsg(
    () => validationSplit(rowsDataset(3), 0.9, 0),
    RangeError,
    "3 training rows",
  );
  const { fit, valid } = validationSplit(rowsDataset(5), 0.2, 0);
  assertEquals([fit.x.numRows, valid.x.numRows], [4, 1]);
});

Deno.test("repro knn does not choose k on an empty validation split", async () => {
  const dir = await Deno.makeTempDir({ prefix: "s28_validation_split_" });
  try {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, "2 2 2\n0 0:1\n1 1:1\n");
    await Deno.writeTextFile(`${dir}/toy.test.txt`, "1 2 2\n0 0:1\n");
    const ctx = {
      dataset: "toy",
      dataDir: dir,
      seed: 0,
      flags: {},
      progress: new Progress({ silent: true, intervalMs: 0 }),
    };
    await assertThrowsMsg(() => knn(ctx), RangeError, "validation split");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
