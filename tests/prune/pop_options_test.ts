// POP's options at the boundary: unknown keys and values of the wrong type are TypeErrors,
// out-of-range values RangeErrors naming the option; applyPop checks its cut before looping;
// pruneModel, popCurve and popBr (and their curve options) refuse unknown keys.
import { applyPop, pop } from "../../src/prune/pop.ts";
import { pruneModel } from "../../src/prune/prune_model.ts";
import { popCurve } from "../../src/prune/curve.ts";
import { popBr } from "../../src/prune/pop_br.ts";
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

Deno.test("pruneModel, popCurve, popBr: unknown keys (also in curve) are refused", async () => {
  const content = {
    kind: "linear-sparse" as const,
    numFeatures: 3,
    numLabels: 2,
    params: {},
    tensors: {},
  };
  await assertThrowsMsg(
    () => pruneModel(loose(content), rows, [5, 5], Float64Array.of(0.5, 0.5), loose({ dleta: 1 })),
    TypeError,
    'pruneModel: unknown option "dleta" (known: epsilon, lambda, delta, ks, weightType,',
  );
  await assertThrowsMsg(
    () =>
      pruneModel(loose(content), rows, [5, 5], Float64Array.of(0.5, 0.5), {
        curve: loose({ lambda: 0.1, lamdbas: [0.1] }),
      }),
    TypeError,
    'pruneModel: curve: unknown option "lamdbas" (known: epsilons, lambdas, epsilon, lambda, sizeOf)',
  );
  await assertThrowsMsg(
    () => popCurve(weights(), rows, [5, 5], Float64Array.of(0.5, 0.5), loose({ epsilonss: [0] })),
    TypeError,
    'popCurve: unknown option "epsilonss"',
  );
  const pts = popCurve(weights(), rows, [5, 5], Float64Array.of(0.5, 0.5), {
    epsilons: [0],
    lambdas: [],
    delta: 1,
    ks: [1],
  });
  assertEquals(pts.length, 1);
  const train = {
    name: "toy",
    numFeatures: 3,
    numLabels: 2,
    x: rows.x,
    y: rows.y,
  };
  await assertThrowsMsg(
    () => popBr(train, Float64Array.of(0.5, 0.5), loose({ l2normalize: false })),
    TypeError,
    'popBr: unknown option "l2normalize" (known: epsilon,',
  );
  await assertThrowsMsg(
    () => popBr(train, Float64Array.of(0.5, 0.5), loose({ curve: { sizeOf: () => 1 } })),
    TypeError,
    'popBr: curve: unknown option "sizeOf" (known: epsilons, lambdas, epsilon, lambda)',
  );
  await assertThrowsMsg(
    () => popBr(train, Float64Array.of(0.5, 0.5), loose({ l2Normalize: "false" })),
    TypeError,
    'popBr: option l2Normalize must be true or false, got "false"',
  );
  await assertThrowsMsg(
    () => popBr(train, Float64Array.of(0.5, 0.5), loose({ validationFraction: "0.5" })),
    TypeError,
    'popBr: validationFraction must be in (0, 1), got "0.5"',
  );
});
