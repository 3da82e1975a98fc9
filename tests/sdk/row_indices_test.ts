/**
 * The SDK's direct API (`loadModel(bytes).predictTopK`) takes the rows the trainers' `predictTopK`
 * takes: `indices` strictly increasing non-negative integers. A repeated index (it was summed:
 * `[3, 3]` scored 0.334 against −0.111 for `[3]`), an index out of order, a negative, fractional
 * or non-finite one (they were dropped) is a `RangeError` naming the entry, the range and the
 * value, for every model kind (one check, in the featurizer). Indices at or past the model's width
 * are still dropped (an edge copy lags behind a growing model), and so are record names that are
 * no column (`"-1"`, `"1.5"`). `labelName` refuses a label the model does not have (it answered
 * `"1000000"` for 1e6 and `"-1"` for -1), and the `k` errors echo the value they got, as the
 * others do (`predictTopK` and the `/predict` protocol).
 */
import { loadModel, type Model } from "../../sdk/mod.ts";
import { validatePredict } from "../../sdk/predict_protocol.ts";
import { assert } from "./helpers.ts";

const FIXTURES = new URL("../fixtures/v1/", import.meta.url);
const KINDS = ["linear-sparse", "linear-lowrank", "knn-embedding", "random-features"];
const models = await Promise.all(
  KINDS.map(async (k) => loadModel(await Deno.readFile(new URL(`${k}.tsm`, FIXTURES)))),
);

/** The error `f` throws (an Error saying so when it throws nothing). */
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  return new Error("nothing thrown");
}

const top = (m: Model, x: Parameters<Model["predictTopK"]>[0]) =>
  JSON.stringify(m.predictTopK(x, m.numLabels));

Deno.test("predictTopK refuses a repeated, out-of-order, negative, fractional or non-finite index", () => {
  const cases: [number[], string][] = [
    [[3, 3], "x.indices[1] must be an integer in [4, 4294967295], got 3"],
    [[0, 2, 1], "x.indices[2] must be an integer in [3, 4294967295], got 1"],
    [[-1], "x.indices[0] must be an integer in [0, 4294967295], got -1"],
    [[0, 1.5], "x.indices[1] must be an integer in [1, 4294967295], got 1.5"],
    [[NaN], "x.indices[0] must be an integer in [0, 4294967295], got NaN"],
    [[1, Infinity], "x.indices[1] must be an integer in [2, 4294967295], got Infinity"],
    [[2 ** 32], "x.indices[0] must be an integer in [0, 4294967295], got 4294967296"],
  ];
  for (const m of models) {
    assert(m.numFeatures < 9, `${m.kind}: a small fixture`);
    for (const [indices, part] of cases) {
      for (const x of [{ indices, values: indices.map(() => 1) }, { indices }]) {
        const e = thrown(() => m.predictTopK(x, 2));
        assert(
          e instanceof RangeError && e.message === `predictTopK: ${part}`,
          `${m.kind}, ${JSON.stringify(x)}: ${e}`,
        );
      }
      // predictBatch too, and the model answers the next row as before
      const before = top(m, { indices: [0, 2], values: [1, 0.5] });
      const b = thrown(() => m.predictBatch([{ indices: [0] }, { indices }], 2));
      assert(b instanceof RangeError, `${m.kind}, predictBatch: ${b}`);
      assert(top(m, { indices: [0, 2], values: [1, 0.5] }) === before, `${m.kind}: unchanged`);
    }
    // a string index is no integer either
    const s = thrown(() => m.predictTopK({ indices: ["1"] as unknown as number[] }, 2));
    assert(s instanceof RangeError && s.message.endsWith("got 1"), `${m.kind}: ${s}`);
  }
});

Deno.test("predictTopK still drops indices past the model's width, and names of no column", () => {
  for (const m of models) {
    const D = m.numFeatures, x = { indices: [0, 2], values: [1, 0.5] };
    const want = top(m, x);
    const past = { indices: [0, 2, D, D + 5, 2 ** 32 - 1], values: [1, 0.5, 9, 9, 9] };
    assert(top(m, past) === want, `${m.kind}: past the width`);
    // typed arrays and -0 (column 0) as before
    const typed = { indices: Int32Array.of(0, 2), values: Float32Array.of(1, 0.5) };
    assert(top(m, typed) === want, `${m.kind}: typed arrays`);
    assert(top(m, { indices: [-0, 2], values: [1, 0.5] }) === want, `${m.kind}: -0`);
    // a non-finite value is still the TypeError it was (checked before its index)
    const v = thrown(() => m.predictTopK({ indices: [0, 0], values: [NaN, 1] }, 2));
    assert(v instanceof TypeError && v.message.includes("finite, got NaN"), `${m.kind}: ${v}`);
  }
  // an index feature space: names that are no column are dropped, not refused
  const index = models.find((m) => !m.featureSpace || m.featureSpace.type === "index");
  assert(index, "a fixture of an index feature space");
  const want = top(index, { "0": 1, "2": 0.5 });
  assert(top(index, { "0": 1, "2": 0.5, "-1": 3, "1.5": 3, "1e0": 3 }) === want, "names");
});

Deno.test("labelName: a label of the model, else a RangeError naming the range and the value", () => {
  for (const m of models) {
    const L = m.numLabels;
    assert(m.labelName(0) === (m.labelNames?.[0] ?? "0"), `${m.kind}: label 0`);
    assert(m.labelName(L - 1) === (m.labelNames?.[L - 1] ?? `${L - 1}`), `${m.kind}: last`);
    for (const l of [L, 1e6, -1, 0.5, NaN, Infinity]) {
      const e = thrown(() => m.labelName(l));
      assert(
        e instanceof RangeError &&
          e.message === `labelName: l must be an integer in [0, ${L - 1}], got ${l}`,
        `${m.kind}, ${l}: ${e}`,
      );
    }
  }
});

Deno.test("the k errors echo the value: predictTopK and the /predict protocol", () => {
  const m = models[0];
  for (const k of [1.5, -1, 2 ** 32, NaN]) {
    const e = thrown(() => m.predictTopK({ indices: [0] }, k));
    assert(
      e instanceof RangeError &&
        e.message === `predictTopK: k must be an integer in [0, 4294967295], got ${k}`,
      `${k}: ${e}`,
    );
  }
  const rules = { indexKeys: true, text: false };
  for (const [k, shown] of [[0, "0"], [1e39, "1e+39"], ["5", '"5"'], [null, "null"]] as const) {
    const e = thrown(() => validatePredict({ indices: [1], k }, rules));
    assert(
      e.message === `field 'k' must be an integer in [1, 100], got ${shown}`,
      `${String(k)}: ${e}`,
    );
  }
});
