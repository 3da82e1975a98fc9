// toModelFile refuses options it would otherwise misread or write into a broken file: a feature
// space of an unknown type (left out: the file read plain column indices), a vocabulary given as
// featureSpace that repeats a name (refused as featureNames), preprocess flags that are not
// booleans ("false" switched tf-idf on), an idf that is not a Float32Array or not finite (every
// score of the SDK NaN) — for every exportable model.
import { makeBatch, plantedData } from "./estimator_checks.ts";
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { loadModel } from "../../sdk/mod.ts";
import { assert } from "../helpers.ts";

const data = plantedData(48);

function thrown(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
  return "";
}

Deno.test("toModelFile: a bad featureSpace or preprocess option is refused, naming it", async () => {
  for (const name of MODEL_NAMES.filter((n) => n !== "knn")) {
    const factory = await loadFactory(name);
    const m = factory.create({
      ...(name === "coembed" ? { numRff: 20 } : name === "sleec" ? { rank: 8 } : {}),
      seed: 1,
      numFeatures: data.numFeatures,
      numLabels: data.numLabels,
    });
    m.learnMany(makeBatch(data.rows, data.numFeatures, data.numLabels));
    const D = m.numFeatures;
    const names = Array.from({ length: D }, (_, j) => `f${j}`);
    // the good variants are written and load
    for (
      const good of [
        { featureSpace: { type: "vocabulary" as const, names } },
        { preprocess: { tfidf: true, idf: new Float32Array(D).fill(2) } },
      ]
    ) {
      const sdk = loadModel(m.toModelFile(good));
      assert(sdk.numLabels === m.numLabels, `${name}: ${JSON.stringify(good).slice(0, 40)}`);
    }
    const cases: [string, Record<string, unknown>, string, string][] = [
      [
        "an unknown featureSpace type",
        { featureSpace: { type: "words" } },
        "TypeError",
        "featureSpace.type",
      ],
      [
        "a featureSpace vocabulary repeating a name",
        { featureSpace: { type: "vocabulary", names: names.map((n, j) => j === 5 ? "f2" : n) } },
        "RangeError",
        `featureSpace.names repeats "f2"`,
      ],
      [
        "tfidf as a string",
        {
          preprocess: { tfidf: "false", idf: new Float32Array(D).fill(2) },
        },
        "TypeError",
        "preprocess.tfidf",
      ],
      [
        "l2Normalize as a number",
        { preprocess: { l2Normalize: 1 } },
        "TypeError",
        "preprocess.l2Normalize",
      ],
      [
        "idf as an array",
        {
          preprocess: { tfidf: true, idf: Array(D).fill(1) },
        },
        "TypeError",
        "preprocess.idf",
      ],
      [
        "a NaN idf",
        {
          preprocess: { tfidf: true, idf: new Float32Array(D).fill(1).fill(NaN, 3, 4) },
        },
        "RangeError",
        "preprocess.idf[3]",
      ],
    ];
    for (const [what, options, type, field] of cases) {
      const message = thrown(() => m.toModelFile(options));
      assert(
        message.startsWith(type) && message.includes(field) && message.includes(name),
        `${name}, ${what}: "${message}"`,
      );
    }
  }
});
