/**
 * Feature hashing sums the values of colliding features: a sum past the float32 range used to be
 * stored as ±Infinity in the training row (the SDK refuses such a row as not finite). It is a
 * RangeError naming the features, the column and the sum, and an NDJSON event that causes it is
 * refused.
 */
import { FeatureHasher } from "../../src/data/hashing.ts";
import { NdjsonParser } from "../../src/data/ndjson.ts";

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

function rangeError(f: () => unknown, ...parts: string[]): void {
  let e: unknown;
  try {
    f();
  } catch (err) {
    e = err;
  }
  assert(e instanceof RangeError, `expected a RangeError, got ${e ?? "no error"}`);
  for (const p of parts) assert(e.message.includes(p), `"${e.message}" lacks "${p}"`);
}

Deno.test("hashNamed: colliding values adding up past float32 are a RangeError, not Infinity", () => {
  const h = new FeatureHasher({ dim: 1 });
  rangeError(() => h.hashNamed(["a", "b"], [3e38, 3e38]), '"a", "b"', "column 0", "6e+38");
  rangeError(() => h.hashNamed(["a", "b"], [-3e38, -3e38]), "-6e+38");
  // below the limit, and sums that cancel, are rows as before
  const r = h.hashNamed(["a", "b", "c"], [3e38, 3e38, -3e38]);
  assert(r.values.length === 1 && r.values[0] === Math.fround(3e38), `${r.values}`);
  assert(h.hashNamed(["a", "b"], [3e38, -3e38]).values.length === 0, "cancelled");
});

Deno.test("hashIndexed: colliding values adding up past float32 are a RangeError", () => {
  const h = new FeatureHasher({ dim: 1, seed: 3 });
  const x = { indices: Int32Array.of(3, 17), values: Float32Array.of(3e38, 3e38) };
  rangeError(() => h.hashIndexed(x), '"3", "17"', "column 0");
});

Deno.test("an NDJSON event whose hashed features add up past float32 is refused", () => {
  for (const text of [undefined, {}]) {
    const p = new NdjsonParser({ hashing: { dim: 1 }, ...(text ? { text } : {}) });
    const line = JSON.stringify({
      ...(text ? { text: "a few words" } : {}),
      features: { a: 3e38, b: 3e38 },
      labels: ["x"],
    });
    rangeError(() => p.parse(line), "column 0");
    if (text) rangeError(() => p.textForPredict("", { a: 3e38, b: 3e38 }, 1), "column 0");
    else rangeError(() => p.featuresForPredict({ a: 3e38, b: 3e38 }, 1), "column 0");
    // the refused event grew no label vocabulary
    assert(p.labels.size === 0, `labels ${p.labels.names}`);
  }
});
