/**
 * The SDK's `Model` API: input forms (typed arrays, plain arrays, named-feature records through
 * index, vocabulary and hashing feature spaces), k handling, errors on bad input, no mutation of
 * the model or the bytes, ArrayBuffer and unaligned input, and the validation that turns an
 * inconsistent file into a ModelFormatError.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import { hashBucket, hashName } from "../../src/data/feature_hash.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { loadModel, type Model, ModelFormatError } from "../../sdk/mod.ts";
import { assert } from "./helpers.ts";

const FIXTURES = new URL("../fixtures/v1/", import.meta.url);
const sparseFile = await Deno.readFile(new URL("linear-sparse-u16-f16.tsm", FIXTURES));
const vocabFile = await Deno.readFile(new URL("linear-sparse.tsm", FIXTURES));
const hashedFile = await Deno.readFile(new URL("linear-lowrank.tsm", FIXTURES));

const key = (m: Model, x: Parameters<Model["predictTopK"]>[0], k = 3) => {
  const t = m.predictTopK(x, k);
  return `${[...t.labels]}|${[...t.scores]}`;
};

function throws(f: () => unknown, type: ErrorConstructor, part: string): void {
  try {
    f();
  } catch (e) {
    assert(e instanceof type && (e as Error).message.includes(part), `${e}, expected '${part}'`);
    return;
  }
  throw new Error(`nothing thrown, expected ${type.name} '${part}'`);
}

Deno.test("typed arrays, plain arrays and index records give the same answer", () => {
  const m = loadModel(sparseFile);
  const a = key(m, { indices: Int32Array.of(1, 3), values: Float32Array.of(2, -0.5) });
  assert(a === key(m, { indices: [1, 3], values: [2, -0.5] }), "plain arrays");
  assert(a === key(m, { "1": 2, "3": -0.5 }), "index record");
  assert(a === key(m, { "3": -0.5, "1": 2 }), "record order");
  assert(a === key(m, { indices: [1, 3, 4, 7], values: [2, -0.5, 9, 9] }), "beyond the model");
  assert(a === key(m, { "1": 2, "3": -0.5, "99": 1, x: 4, "": 1 }), "unknown names");
  assert(a !== key(m, { indices: [1], values: [2] }), "answers depend on the row");
  // values are float32, as the trainers see them
  assert(key(m, { indices: [1], values: [0.1] }) === key(m, { "1": Math.fround(0.1) }), "fround");
  // (a repeated, negative or fractional index is refused: tests/sdk/row_indices_test.ts)
});

Deno.test("vocabulary and hashing feature spaces map names to the right columns", () => {
  const v = loadModel(vocabFile); // names alpha, beta, gamma, delta; TF-IDF + L2
  assert(
    key(v, { gamma: 1, alpha: 2 }) === key(v, { indices: [0, 2], values: [2, 1] }),
    "vocabulary",
  );
  const h = loadModel(hashedFile); // hashing, dim 4, seed 7
  const cols = ["word:cat", "b"].map((n) => hashBucket(hashName(n, 7), 4));
  const byHash = new Map<number, number>();
  cols.forEach((j, i) => byHash.set(j, (byHash.get(j) ?? 0) + [1, 0.5][i]));
  const sparse = { indices: [...byHash.keys()], values: [...byHash.values()] };
  assert(key(h, { "word:cat": 1, b: 0.5 }) === key(h, sparse), "hashing");
});

Deno.test("k: clamped to the label count, 0 gives nothing, bad k and bad rows throw", () => {
  const m = loadModel(sparseFile), x = { indices: [0], values: [1] };
  assert(m.predictTopK(x, 99).labels.length === m.numLabels, "k > L");
  assert(m.predictTopK(x, 0).labels.length === 0, "k = 0");
  for (const k of [-1, 1.5, NaN, Infinity, 2 ** 32, "2" as never]) {
    throws(() => m.predictTopK(x, k), RangeError, "k must be an integer in [0, 4294967295]");
  }
  assert(m.predictTopK(x, 2 ** 32 - 1).labels.length === m.numLabels, "k = 2³² − 1");
  throws(() => m.predictTopK({ indices: [0, 1], values: [1] }, 1), TypeError, "lengths differ");
  throws(() => m.predictTopK(null as never, 1), TypeError, "x must be an object");
  throws(() => m.predictTopK(7 as never, 1), TypeError, "x must be an object");
  const top = m.predictTopK({ indices: [], values: [] }, 3);
  assert([...top.labels].join() === "0,2,1", `empty row ranks by bias: ${top.labels}`); // 0.1, 0, -0.2
  const answers = m.predictBatch([x, { "2": 1 }, { indices: [], values: [] }], 2);
  assert(answers.length === 3 && answers[2].labels.join() === "0,2", "predictBatch");
  assert(m.labelName(1) === "1" && loadModel(vocabFile).labelName(1) === "tag-1", "labelName");
});

Deno.test("{indices} without values is a binary row; index names are plain decimals; a value that is not a number is a TypeError", () => {
  for (const file of [sparseFile, vocabFile, hashedFile]) {
    const m = loadModel(file);
    const ones = key(m, { indices: [0, 1], values: [1, 1] });
    assert(ones !== key(m, { indices: [], values: [] }), "the row must score unlike the empty row");
    assert(key(m, { indices: [0, 1] } as never) === ones, "values omitted: every value 1");
    assert(key(m, { indices: [0, 1], values: null } as never) === ones, "values null");
    throws(() => m.predictTopK({ indices: [0, 1], values: 5 } as never, 2), TypeError, "differ");
    throws(() => m.predictTopK({ indices: [0], values: ["a"] } as never, 2), TypeError, "finite");
    // the /predict body's shape is not an SDK row: its object value is not a number
    throws(() => m.predictTopK({ features: { alpha: 1 } } as never, 2), TypeError, "finite");
    throws(() => m.predictTopK({ alpha: "1" } as never, 2), TypeError, "got NaN");
    throws(() => m.predictTopK({ zzz: null } as never, 2), TypeError, "got NaN");
  }
  // an index space: "1" is column 1; other spellings of 1 name no column (dropped, as unknown)
  const m = loadModel(sparseFile), empty = key(m, { indices: [], values: [] });
  assert(key(m, { "1": 1 }) === key(m, { indices: [1], values: [1] }), "1");
  assert(key(m, { "1": 1 }) !== empty, "column 1 must change the answer");
  for (const name of [" 1", "01", "1e0", "+1", "1.0", "0x1", "\t1", ""]) {
    assert(key(m, { [name]: 1 }) === empty, `"${name}" must name no column`);
  }
});

Deno.test("a NaN or infinite value is a TypeError, in every input form, as in the trainers", () => {
  for (const file of [sparseFile, vocabFile, hashedFile]) {
    const m = loadModel(file);
    for (const bad of [NaN, Infinity, -Infinity]) {
      throws(
        () => m.predictTopK({ indices: [1, 2], values: [bad, 1] }, 2),
        TypeError,
        `got ${bad}`,
      );
      // a column the model ignores is checked too (the trainers check every entry)
      throws(() => m.predictTopK({ indices: [1, 99], values: [1, bad] }, 2), TypeError, "finite");
      throws(() => m.predictTopK({ "1": bad, alpha: 1 }, 2), TypeError, "x values must be finite");
    }
    // an infinite named value, even of a name the model does not know
    throws(() => m.predictTopK({ zzz: Infinity, b: 1 }, 2), TypeError, "finite");
    // a finite number beyond float32's range is infinite as the model sees it (as in the
    // HTTP protocol's check)
    throws(() => m.predictTopK({ indices: [1], values: [1e39] }, 1), TypeError, "got 1e+39");
    // the largest finite float32 is still fine
    assert(m.predictTopK({ indices: [1], values: [3.4e38] }, 1).labels.length === 1, "max f32");
  }
});

Deno.test("prediction mutates neither the model nor the file bytes; ArrayBuffer and unaligned input", () => {
  const bytes = vocabFile.slice();
  const m = loadModel(bytes);
  const before = bytes.slice();
  const first = key(m, { alpha: 1, delta: 2 });
  for (let i = 0; i < 100; i++) m.predictTopK({ beta: i, gamma: -i, indices: 3 } as never, 3);
  assert(key(m, { alpha: 1, delta: 2 }) === first, "answers changed after other queries");
  assert(bytes.every((b, i) => b === before[i]), "file bytes changed");
  assert(key(loadModel(bytes.buffer), { alpha: 1, delta: 2 }) === first, "ArrayBuffer");
  const shifted = new Uint8Array(bytes.length + 3).subarray(3);
  shifted.set(bytes);
  assert(key(loadModel(shifted), { alpha: 1, delta: 2 }) === first, "unaligned bytes");
  assert(m.meta?.trainer === "fixture" && m.params.nnz === 7, "meta and params");
});

function linearSparse(): ModelFileContent {
  return {
    kind: "linear-sparse",
    numFeatures: 2,
    numLabels: 2,
    params: {},
    tensors: {
      featPtr: { dtype: "i32", shape: [3], data: Int32Array.of(0, 1, 2) },
      labelIdx: { dtype: "i32", shape: [2], data: Int32Array.of(0, 1) },
      weights: { dtype: "f32", shape: [2], data: Float32Array.of(1, 2) },
    },
  };
}

Deno.test("inconsistent files are ModelFormatErrors naming the field", () => {
  const cases: [string, (c: ModelFileContent) => void, string, string][] = [
    [
      "label",
      (c) => c.tensors.labelIdx.data.set([0, 2]),
      "corrupt",
      "labelIdx[1] = 2 is out of range",
    ],
    [
      "ptr",
      (c) => c.tensors.featPtr.data.set([0, 2, 1]),
      "corrupt",
      "featPtr[2] = 1 is out of range or order",
    ],
    ["ptr end", (c) => c.tensors.featPtr.data.set([0, 1, 1]), "corrupt", "featPtr must end at 2"],
    ["missing", (c) => delete c.tensors.weights, "corrupt", `tensor "weights" missing`],
    [
      "kind",
      (c) => (c.kind = "linear-dense" as never),
      "unsupported",
      `unknown model kind "linear-dense"`,
    ],
    [
      "idf",
      (c) => {
        c.preprocess = { tfidf: true };
        c.tensors.idf = { dtype: "i32", shape: [2], data: Int32Array.of(1, 1) };
      },
      "corrupt",
      "idf must be a float tensor",
    ],
    [
      "knn",
      (c) => {
        c.kind = "knn-embedding";
        c.params = { rank: 1, k: 1, numLearners: 1 };
        c.tensors = {
          clusterLearner: { dtype: "i32", shape: [1], data: Int32Array.of(3) },
          centroids: { dtype: "f32", shape: [1, 2], data: new Float32Array(2) },
          V: { dtype: "f32", shape: [2, 1], data: new Float32Array(2) },
          pointPtr: { dtype: "i32", shape: [2], data: Int32Array.of(0, 0) },
          labelPtr: { dtype: "i32", shape: [1], data: Int32Array.of(0) },
          points: { dtype: "f32", shape: [0, 1], data: new Float32Array(0) },
          labels: { dtype: "i32", shape: [0], data: new Int32Array(0) },
        };
      },
      "corrupt",
      "clusterLearner[0] = 3",
    ],
    ...[-1, 2].map((label): [string, (c: ModelFileContent) => void, string, string] => [
      `knn label ${label}`,
      (c) => {
        // one learner, one cluster, one point carrying a label outside [0, L = 2)
        c.kind = "knn-embedding";
        c.params = { rank: 1, k: 1, numLearners: 1 };
        c.tensors = {
          clusterLearner: { dtype: "i32", shape: [1], data: Int32Array.of(0) },
          centroids: { dtype: "f32", shape: [1, 2], data: Float32Array.of(1, 1) },
          V: { dtype: "f32", shape: [2, 1], data: Float32Array.of(1, 1) },
          pointPtr: { dtype: "i32", shape: [2], data: Int32Array.of(0, 1) },
          labelPtr: { dtype: "i32", shape: [2], data: Int32Array.of(0, 1) },
          points: { dtype: "f32", shape: [1, 1], data: Float32Array.of(1) },
          labels: { dtype: "i32", shape: [1], data: Int32Array.of(label) },
        };
      },
      "corrupt",
      `labels[0] = ${label} is out of range`,
    ]),
  ];
  for (const [what, edit, reason, part] of cases) {
    const c = linearSparse();
    edit(c);
    let err: unknown;
    try {
      loadModel(encodeModelFile(c));
    } catch (e) {
      err = e;
    }
    assert(
      err instanceof ModelFormatError && err.reason === reason && err.message.includes(part) &&
        err.formatVersion === 1,
      `${what}: ${err}`,
    );
  }
  assert(loadModel(encodeModelFile(linearSparse())).numLabels === 2, "the base case loads");
});
