// topKSparse refuses a label count that is not a count, naming it, instead of answering nothing
// (NaN: every index passed as in range) or failing to allocate (negative, fractional).
import { topKSparse } from "../../sdk/internal.ts";
import { assert } from "./helpers.ts";

Deno.test("topKSparse: numLabels NaN, negative, fractional or infinite is a RangeError naming it", () => {
  for (const numLabels of [NaN, -1, 2.5, Infinity]) {
    let err: unknown;
    try {
      topKSparse(Int32Array.of(0), Float64Array.of(1), numLabels, 1);
    } catch (e) {
      err = e;
    }
    assert(
      err instanceof RangeError && /topKSparse: numLabels/.test(err.message) &&
        err.message.includes(String(numLabels)),
      `numLabels ${numLabels}: ${err}`,
    );
  }
  // a proper count still answers, 0 included
  assert(topKSparse(Int32Array.of(), Float64Array.of(), 0, 3).labels.length === 0, "L = 0");
  assert(
    String(topKSparse(Int32Array.of(1), Float64Array.of(-1), 3, 3).labels) === "0,2,1",
    "L = 3",
  );
});
