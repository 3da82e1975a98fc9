/**
 * The shared model-file options (src/models/file_options.ts) through every exportable model:
 * hashed named features survive the trip trainer → file → SDK, and bad options fail clearly.
 */
import { FeatureHasher } from "../../src/data/hashing.ts";
import { examplesToBatch } from "../../src/data/batcher.ts";
import type { Example } from "../../src/data/types.ts";
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { applyModelFileOptions } from "../../src/models/file_options.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { loadModel } from "../../sdk/mod.ts";
import { mulberry32 } from "../mulberry32.ts";
import { assert } from "../helpers.ts";

const WORDS = Array.from({ length: 40 }, (_, i) => `word:${i}`);

/** Named rows: label l is signalled by words 4l..4l+3, plus one noise word. */
function namedRows(
  n: number,
  seed: number,
): { names: string[]; values: number[]; label: number }[] {
  const rand = mulberry32(seed);
  const rows = [];
  for (let i = 0; i < n; i++) {
    const label = Math.floor(rand() * 8);
    const names = [0, 1, 2, 3].map((j) => WORDS[4 * label + j]);
    names.push(WORDS[32 + Math.floor(rand() * 8)]);
    rows.push({ names, values: names.map(() => 1), label });
  }
  return rows;
}

// every registered model that writes a model file: the kNN baseline refuses to (the file would
// ship its whole training set: KnnEstimator.toModelFile throws a TypeError saying so)
for (const kind of MODEL_NAMES.filter((n) => n !== "knn")) {
  Deno.test(`${kind}: a model trained on hashed named features answers named queries the same in the SDK`, async () => {
    for (const signed of [false, true]) {
      const hasher = new FeatureHasher({ dim: 64, seed: 11, signed });
      const rows = namedRows(300, 5);
      const examples: Example[] = rows.map((r) => ({
        x: hasher.hashNamed(r.names, r.values),
        labels: Int32Array.of(r.label),
      }));
      const model = (await loadFactory(kind)).create({ seed: 3, numFeatures: 64, numLabels: 8 });
      for (let e = 0; e < 3; e++) {
        for (let s = 0; s < examples.length; s += 20) {
          model.learnMany(examplesToBatch(examples.slice(s, s + 20), 64, 8));
        }
      }
      const sdk = loadModel(model.toModelFile({ featureSpace: hasher.featureSpace() }));
      for (const r of rows.slice(0, 40)) {
        const record: Record<string, number> = {};
        r.names.forEach((n, j) => (record[n] = r.values[j]));
        const fromSdk = sdk.predictTopK(record, 3);
        const fromTrainer = model.predictTopK(hasher.hashNamed(r.names, r.values), 3);
        assert(
          fromSdk.labels.join() === fromTrainer.labels.join() &&
            fromSdk.scores.every((s, i) => Math.abs(s - fromTrainer.scores[i]) <= 1e-5),
          `${kind} signed=${signed}: SDK ${fromSdk.labels} vs trainer ${fromTrainer.labels}`,
        );
      }
    }
  });
}

function content(): ModelFileContent {
  return { kind: "linear-sparse", numFeatures: 3, numLabels: 2, params: {}, tensors: {} };
}

function errorOf(f: () => unknown): Error | undefined {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  return undefined;
}

Deno.test("applyModelFileOptions: names, spaces and preprocessing are checked against the sizes", () => {
  const cases: [string, () => unknown, typeof RangeError | typeof TypeError, string][] = [
    [
      "label count",
      () => applyModelFileOptions(content(), { labelNames: ["a"] }, "t"),
      RangeError,
      "1 label names for 2 labels",
    ],
    [
      "feature count",
      () => applyModelFileOptions(content(), { featureNames: ["a"] }, "t"),
      RangeError,
      "1 feature names for 3 features",
    ],
    [
      "both spaces",
      () =>
        applyModelFileOptions(content(), {
          featureNames: ["a", "b", "c"],
          featureSpace: { type: "index" },
        }, "t"),
      TypeError,
      "not both",
    ],
    [
      "narrow hash",
      () =>
        applyModelFileOptions(
          content(),
          { featureSpace: { type: "hashing", dim: 2, seed: 0 } },
          "t",
        ),
      RangeError,
      "hashing dimension 2 below 3",
    ],
    [
      "tfidf without idf",
      () => applyModelFileOptions(content(), { preprocess: { tfidf: true } }, "t"),
      RangeError,
      "idf of length 3, got none",
    ],
    [
      "short idf",
      () =>
        applyModelFileOptions(
          content(),
          { preprocess: { tfidf: true, idf: Float32Array.of(1) } },
          "t",
        ),
      RangeError,
      "got 1",
    ],
  ];
  for (const [name, f, type, text] of cases) {
    const e = errorOf(f);
    assert(
      e instanceof type && e.message.startsWith("t: ") && e.message.includes(text),
      `${name}: ${e}`,
    );
  }
  const idf = Float32Array.of(1, 2, 3);
  const c = applyModelFileOptions(
    { ...content(), meta: { trainer: "x" } },
    {
      featureSpace: { type: "hashing", dim: 8, seed: 1 },
      meta: { run: 2 },
      preprocess: { tfidf: true, idf },
    },
    "t",
  );
  assert(c.featureSpace?.type === "hashing" && c.featureSpace.dim === 8, "hashing space kept");
  assert(c.meta?.trainer === "x" && c.meta?.run === 2, "metadata merged");
  assert(c.preprocess?.tfidf === true && c.preprocess.l2Normalize === undefined, "only tfidf");
  assert(c.tensors.idf.data !== idf && c.tensors.idf.data.join() === "1,2,3", "idf copied");
});
