// The data layer's public API at its boundary: options objects refuse unknown keys (typos) and
// values of the wrong type, sizes are bounded before anything is allocated, JSON of another class
// or truncated is refused naming the field, and an error changes nothing already accepted.
import { syntheticExamples } from "../../src/data/synthetic.ts";
import { Vocabulary } from "../../src/data/vocabulary.ts";
import { FeatureHasher } from "../../src/data/hashing.ts";
import { TfIdf } from "../../src/data/tfidf.ts";
import { l2Normalized } from "../../src/data/normalize.ts";
import { Minibatcher } from "../../src/data/batcher.ts";
import { resolveDataDir } from "../../src/data/data_dir.ts";
import { assert, assertEquals, assertThrowsMsg } from "./helpers.ts";

// Values a JavaScript caller (or JSON) can hand over where TypeScript would not let them.
// deno-lint-ignore no-explicit-any
const loose = (v: unknown): any => v;

Deno.test("syntheticExamples: typos, strings and huge sizes are refused when it is called", async () => {
  await assertThrowsMsg(
    () => syntheticExamples(loose({ row: 5 })),
    TypeError,
    'synthetic: unknown option "row" (known: rows,',
  );
  await assertThrowsMsg(
    () => syntheticExamples(loose({ noise: "0.3" })),
    TypeError,
    "synthetic: option noise must be a number, got string",
  );
  await assertThrowsMsg(() => syntheticExamples(loose(null)), TypeError, "must be an object");
  for (const rows of [1.5, -1, 2 ** 31, 1e12, NaN, Infinity]) {
    await assertThrowsMsg(
      () => syntheticExamples({ rows }),
      RangeError,
      `rows must be an integer in [0, 2^31), got ${rows}`,
    );
  }
  // the planted structure is allocated up front: bounded, refused before any allocation
  await assertThrowsMsg(
    () => syntheticExamples({ numLabels: 2 ** 31 - 1 }),
    RangeError,
    "numLabels must be at most 2^24",
  );
  await assertThrowsMsg(
    () => syntheticExamples({ numLabels: 2 ** 20, featuresPerLabel: 1000, numFeatures: 5000 }),
    RangeError,
    "numLabels × featuresPerLabel must be at most 2^28",
  );
  assertEquals([...syntheticExamples({ rows: 3, numLabels: 4, seed: 1 })].length, 3);
});

Deno.test("Vocabulary: maxSize, names and options are checked; fromJSON refuses other JSON", async () => {
  for (const maxSize of [-1, NaN, 1.5]) {
    await assertThrowsMsg(
      () => new Vocabulary([], maxSize),
      RangeError,
      `Vocabulary: option maxSize must be an integer in [0, 2147483647], got ${maxSize}`,
    );
  }
  await assertThrowsMsg(() => new Vocabulary([], loose("2")), TypeError, "maxSize");
  await assertThrowsMsg(
    () => new Vocabulary(loose(["a", 7])),
    TypeError,
    "Vocabulary: name 1 must be a string, got number",
  );
  await assertThrowsMsg(() => new Vocabulary(loose("abc")), TypeError, "iterable of strings");
  await assertThrowsMsg(
    () => new Vocabulary([], 4, loose({ wat: "label" })),
    TypeError,
    'Vocabulary: unknown option "wat" (known: what, limitName)',
  );
  await assertThrowsMsg(
    () => Vocabulary.fromJSON(loose({ numDocs: 1, df: [1], fit: true })),
    TypeError,
    "Vocabulary.fromJSON: expected {names: string[]}",
  );
  const names = ["x"];
  const v = Vocabulary.fromJSON({ names });
  names.push("y"); // mutating the JSON afterwards changes nothing
  assertEquals([v.size, v.idOf("y", false)], [1, -1]);
  assert(new Vocabulary(["a"], Infinity).maxSize === Infinity, "maxSize Infinity");
});

Deno.test("FeatureHasher: typo'd keys and a string sign are refused; fromJSON round-trips", async () => {
  await assertThrowsMsg(
    () => new FeatureHasher(loose({ dim: 16, sigend: true })),
    TypeError,
    'FeatureHasher: unknown option "sigend" (known: dim, seed, signed)',
  );
  await assertThrowsMsg(
    () => new FeatureHasher(loose({ dim: 16, signed: "false" })),
    TypeError,
    'FeatureHasher: option signed must be true or false, got "false"',
  );
  await assertThrowsMsg(() => new FeatureHasher(loose({ dim: "16" })), TypeError, "dim must be");
  await assertThrowsMsg(() => new FeatureHasher(loose(undefined)), TypeError, "{ dim }");
  const h = new FeatureHasher({ dim: 64, seed: 9, signed: true });
  const back = FeatureHasher.fromJSON(h.toJSON());
  assertEquals([back.dim, back.seed, back.signed], [64, 9, true]);
  await assertThrowsMsg(
    () => FeatureHasher.fromJSON(loose({ ...h.toJSON(), hash: "fnv1a" })),
    TypeError,
    'FeatureHasher.fromJSON: expected {type: "hashing"',
  );
  await assertThrowsMsg(
    () => FeatureHasher.fromJSON(loose({ names: ["a"] })),
    TypeError,
    'FeatureHasher.fromJSON: unknown option "names"',
  );
});

Deno.test("TfIdf: bounded feature indices, typed options; a refused row counts nothing", async () => {
  await assertThrowsMsg(
    () => new TfIdf(loose({ fit: "false" })),
    TypeError,
    'TfIdf: option fit must be true or false, got "false"',
  );
  await assertThrowsMsg(
    () => new TfIdf(loose({ fitt: false })),
    TypeError,
    'unknown option "fitt"',
  );
  const t = new TfIdf();
  t.observe({ indices: Int32Array.of(1), values: Float32Array.of(1) });
  // an index of 2^31 - 1 would have grown the counts to 16 GiB; -1 was silently dropped
  for (const j of [2 ** 31 - 1, -1]) {
    await assertThrowsMsg(
      () => t.observe({ indices: Int32Array.of(0, j), values: Float32Array.of(1, 1) }),
      RangeError,
      `TfIdf.observe: feature index ${j} (entry 1) is not an integer in [0, 16777216)`,
    );
  }
  assertEquals(t.toJSON(), { numDocs: 1, df: [0, 1], fit: true }, "nothing counted");
  const wide = new TfIdf({ maxFeatures: 1 << 20 });
  wide.observe({ indices: Int32Array.of((1 << 20) - 1), values: Float32Array.of(1) });
  assertEquals(wide.toJSON().df.length, 1 << 20);
  await assertThrowsMsg(
    () => t.apply({ indices: Int32Array.of(0), values: Float32Array.of(1, 2) }),
    RangeError,
    "TfIdf.apply: x has 1 indices but 2 values",
  );
  assert(t.numDocs === 1, "a refused apply counts nothing");
  await assertThrowsMsg(() => t.idfVector(2 ** 31), RangeError, "numFeatures must be an integer");
  await assertThrowsMsg(
    () => TfIdf.fromJSON(loose({ numDocs: 1, df: [1], fit: "no" })),
    TypeError,
    'TfIdf.fromJSON: option fit must be true or false, got "no"',
  );
  await assertThrowsMsg(
    () => TfIdf.fromJSON(loose({ names: ["a"] })),
    TypeError,
    'TfIdf.fromJSON: unknown option "names"',
  );
  await assertThrowsMsg(
    () => TfIdf.fromJSON(loose({ numDocs: 2, df: [1, 3] })),
    TypeError,
    "TfIdf.fromJSON: df[1] must be an integer count in [0, numDocs = 2], got 3",
  );
});

Deno.test("l2Normalized: a non-finite value is an error naming the feature, not an unscaled row", async () => {
  await assertThrowsMsg(
    () => l2Normalized({ indices: Int32Array.of(3, 8, 9), values: Float32Array.of(1, NaN, 1) }),
    RangeError,
    "l2Normalized: non-finite value at feature 8 (NaN)",
  );
  await assertThrowsMsg(
    () => l2Normalized({ indices: Int32Array.of(4), values: Float32Array.of(-Infinity) }),
    RangeError,
    "feature 4 (-Infinity)",
  );
  await assertThrowsMsg(() => l2Normalized(loose(undefined)), TypeError, "l2Normalized: x must be");
});

Deno.test("Minibatcher: typo'd, string, infinite and oversized options are refused", async () => {
  await assertThrowsMsg(
    () => new Minibatcher(loose({ batchsize: 8 })),
    TypeError,
    'Minibatcher: unknown option "batchsize" (known: batchSize,',
  );
  await assertThrowsMsg(
    () => new Minibatcher(loose({ maxDelayMs: "100" })),
    TypeError,
    'Minibatcher: option maxDelayMs must be a finite number in [0, 2147483647], got "100"',
  );
  // setTimeout fires at once past 2^31 - 1 ms: these would have flushed every row alone
  for (const maxDelayMs of [Infinity, 1e12]) {
    await assertThrowsMsg(() => new Minibatcher({ maxDelayMs }), RangeError, "maxDelayMs");
  }
  for (const batchSize of [0, 1.5, 2 ** 31, 1e12]) {
    await assertThrowsMsg(
      () => new Minibatcher({ batchSize }),
      RangeError,
      `Minibatcher: option batchSize must be an integer in [1, 16777216], got ${batchSize}`,
    );
  }
  await assertThrowsMsg(() => new Minibatcher({ numFeatures: -5 }), RangeError, "numFeatures");
  await assertThrowsMsg(
    () => new Minibatcher({ sizes: loose(5) }),
    TypeError,
    "option sizes must have numeric numFeatures and numLabels",
  );
});

Deno.test("resolveDataDir: a flag that is not a string is a TypeError, not returned as is", async () => {
  await assertThrowsMsg(
    () => resolveDataDir(loose(123)),
    TypeError,
    "resolveDataDir: flag must be a string or undefined, got number",
  );
  assertEquals(resolveDataDir("/tmp/x"), "/tmp/x");
});
