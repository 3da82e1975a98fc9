// POP's options at the boundary: unknown keys and values of the wrong type are TypeErrors,
// out-of-range values RangeErrors naming the option; applyPop checks its cut before looping.
import { applyPop, pop } from "../../src/prune/pop.ts";
import { assertEquals, assertThrowsMsg } from "../helpers.ts";

// deno-lint-ignore no-explicit-any
const loose = (v: unknown): any => v;

const weights = () => ({
  numFeatures: 3,
  numLabels: 2,
  labelPtr: Int32Array.of(0, 3, 6),
  featIdx: Int32Array.of(0, 1, 2, 0, 1, 2),
  values: Float32Array.of(1, -1, 0.01, -1, 1, 0.02),
});
const rows = {
  x: {
    numRows: 2,
    numCols: 3,
    indptr: Int32Array.of(0, 1, 2),
    indices: Int32Array.of(0, 1),
    values: Float32Array.of(1, 1),
  },
  y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
};
const run = (options: unknown) =>
  pop(weights(), rows, [5, 5], Float64Array.of(0.5, 0.5), loose(options));

Deno.test("pop: a typo'd option is refused instead of pruning with the default", async () => {
  assertEquals(run({ delta: 1 }).nnzAfter, 3);
  await assertThrowsMsg(
    () => run({ dleta: 1 }),
    TypeError,
    'POP: unknown option "dleta" (known: epsilon, lambda, delta, ks)',
  );
  await assertThrowsMsg(() => run(null), TypeError, "POP: options must be an object");
  await assertThrowsMsg(
    () => run({ epsilon: "0.1" }),
    TypeError,
    'POP: option epsilon must be in [0, 1), got "0.1"',
  );
  await assertThrowsMsg(() => run({ epsilon: 1 }), RangeError, "epsilon must be in [0, 1)");
  await assertThrowsMsg(
    () => run({ delta: NaN }),
    RangeError,
    "POP: option delta must be a non-negative integer, got NaN",
  );
});

Deno.test("applyPop: options and the cut are checked (a cut of 1e12 labels looped 1e12 times)", async () => {
  const order = Int32Array.of(0, 1);
  assertEquals(applyPop(weights(), order, 2, { delta: 1 }).featIdx, [0, 0]);
  await assertThrowsMsg(
    () => applyPop(weights(), order, 1e12, { delta: 1 }),
    RangeError,
    "applyPop: numPrunedLabels must be an integer in [0, 2] (the labels), got 1000000000000",
  );
  await assertThrowsMsg(() => applyPop(weights(), order, -1), RangeError, "numPrunedLabels");
  // δ = −1 emptied every cut label, δ = NaN kept every weight: both silently
  await assertThrowsMsg(
    () => applyPop(weights(), order, 2, { delta: -1 }),
    RangeError,
    "POP: option delta must be a non-negative integer, got -1",
  );
  await assertThrowsMsg(
    () => applyPop(weights(), order, 2, loose({ dleta: 0 })),
    TypeError,
    "dleta",
  );
  await assertThrowsMsg(
    () => applyPop(weights(), Int32Array.of(0), 1),
    RangeError,
    "applyPop: label order has 1 entries for 2 labels",
  );
});
