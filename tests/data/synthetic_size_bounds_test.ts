// syntheticExamples({ numFeatures: 2 ** 40 }) said "numFeatures must be a positive integer, got
// 1099511627776", which it is; the bound it is over was not named (and the same for numLabels).
import { syntheticExamples } from "../../src/data/synthetic.ts";
import { assertThrowsMsg } from "../helpers.ts";

Deno.test("synthetic: a size that is a positive integer over its bound names the bound", async () => {
  await assertThrowsMsg(
    () => syntheticExamples({ numFeatures: 2 ** 40 }),
    RangeError,
    "synthetic: numFeatures must be at most 2^31 - 1 (2147483647), got 1099511627776",
  );
  await assertThrowsMsg(
    () => syntheticExamples({ numLabels: 2 ** 40 }),
    RangeError,
    "synthetic: numLabels must be at most 2^24 (16777216), got 1099511627776",
  );
  await assertThrowsMsg(
    () => syntheticExamples({ numFeatures: 0.5 }),
    RangeError,
    "synthetic: numFeatures must be a positive integer, got 0.5",
  );
});
