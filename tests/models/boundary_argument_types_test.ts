// The models' public API given a value of the wrong type, as a JavaScript caller may: a null row
// to predictTopK/predictScores ("Cannot destructure property 'indices' of 'x' as it is null"), a
// string k ("k must be an integer >= 0, got 2": the string did not show), null options to a
// factory ("Cannot convert undefined or null to object"). Each is now a TypeError naming the
// method or the model, the argument and the value. Also: BR's toModelFile named an internal
// function for label names that do not fit ("linearSparseContent: 1 label names for 3 labels"),
// and CoEmbed's predict errors were prefixed "CoEmbed.predictTopK" and "CoEmbed predictScores"
// where the other models write "leml.predictTopK".
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { assert, assertBadInput, refusalOf } from "../helpers.ts";

const x = { indices: Int32Array.of(1), values: Float32Array.of(1) };

Deno.test("predictTopK and predictScores: a row that is not one, and a k that is not a number, are TypeErrors naming them", async () => {
  for (const name of MODEL_NAMES) {
    const m = (await loadFactory(name)).create({ seed: 1, numFeatures: 4, numLabels: 3 });
    m.learnOne(x, [0]);
    const cases: [string, () => unknown, string][] = [
      [
        "null row",
        () => m.predictTopK(null as never, 2),
        `TypeError: ${name}.predictTopK: x must be a sparse row { indices, values }, got null`,
      ],
      [
        "row without values",
        () => m.predictScores({ indices: Int32Array.of(1) } as never),
        `TypeError: ${name}.predictScores: x must be a sparse row { indices, values }, got an object without indices or values`,
      ],
      [
        "string k",
        () => m.predictTopK(x, "2" as never),
        `TypeError: ${name}.predictTopK: k must be an integer >= 0, got "2" (a string)`,
      ],
      [
        "NaN k",
        () => m.predictTopK(x, NaN),
        `RangeError: ${name}.predictTopK: k must be an integer >= 0, got NaN`,
      ],
    ];
    for (const [what, f, want] of cases) {
      const got = refusalOf(f);
      assert(got === want, `${name}, ${what}: ${got}`);
    }
  }
});

Deno.test("factories: options that are not an object are a TypeError naming the model", async () => {
  for (const name of MODEL_NAMES) {
    const f = await loadFactory(name);
    for (const [bad, shown] of [[null, "null"], [[1], "an array"], [3, "3"]] as const) {
      const got = refusalOf(() => f.create(bad as never));
      assert(got === `TypeError: ${name}: the options must be an object, got ${shown}`, got);
    }
    // undefined options are no options
    assert(f.create(undefined as never).kind === name, name);
  }
});

Deno.test("br and ova toModelFile and coembed's predict errors name the method", async () => {
  const br = (await loadFactory("br")).create({ seed: 1, numFeatures: 4, numLabels: 3 });
  const ova = (await loadFactory("ova")).create({ seed: 1, numFeatures: 4, numLabels: 3 });
  const coembed = (await loadFactory("coembed")).create({ seed: 1, numFeatures: 4, numLabels: 3 });
  coembed.learnOne(x, [0]);
  assertBadInput([
    [() => br.toModelFile({ labelNames: ["a"] }), /^br\.toModelFile: 1 label names for 3 labels$/],
    [
      () => ova.toModelFile({ labelNames: ["a"] }),
      /^ova\.toModelFile: 1 label names for 3 labels$/,
    ],
    [
      () => br.toModelFile({ featureNames: ["a"] }),
      /^br\.toModelFile: 1 feature names for 4 features$/,
    ],
    [
      () => coembed.predictScores(x, new Float32Array(1)),
      /^coembed\.predictScores: out has length 1, need 3$/,
    ],
    [() => coembed.predictTopK(x, -1), /^coembed\.predictTopK: k must be an integer >= 0, got -1$/],
    [
      () => coembed.predictTopK({ indices: Int32Array.of(2, 1), values: Float32Array.of(1, 1) }, 1),
      /^coembed\.predictTopK: x: feature indices are not strictly increasing \(1 after 2\)$/,
    ],
  ]);
});
