/**
 * `predictTopK({text, features})`: the values of `features` must be numbers, as in a record
 * `{name: value}` and as the HTTP protocol (sdk/predict_protocol.ts) requires them. A string, a
 * boolean or null beside a text was skipped silently (the row was answered without it); the SDK
 * now refuses it with a TypeError naming the feature.
 */
import { featurizer } from "../../sdk/features.ts";
import type { DecodedModel } from "../../sdk/kinds/types.ts";
import { assert } from "./helpers.ts";

const model = (text: Record<string, unknown>): DecodedModel => ({
  kind: "linear-sparse",
  formatVersion: 3,
  numFeatures: 3,
  numLabels: 1,
  params: {},
  tensors: {},
  featureSpace: { type: "vocabulary", names: ["a", "b", "c"], text },
});

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return e instanceof TypeError ? e.message : `not a TypeError: ${e}`;
  }
  return "accepted";
};

for (const text of [{}, { ignoreFeatures: true }]) {
  Deno.test(`text with features ${JSON.stringify(text)}: a value that is not a number is refused`, () => {
    const rows = featurizer(model(text));
    // numbers are taken (or ignored, with ignoreFeatures)
    const [idx, val] = rows({ text: "a b", features: { c: 2, zz: 1 } });
    const want = text.ignoreFeatures ? "0,1|1,1" : "0,1,2|1,1,2";
    assert(`${idx}|${val}` === want, `${idx}|${val}`);
    for (const bad of ["2", true, null, [1], { v: 1 }]) {
      for (const name of ["c", "zz", "new york"]) {
        const msg = refusal(() => rows({ text: "a b", features: { [name]: bad } } as never));
        assert(
          msg.includes(`features["${name}"] is not a number`),
          `${name}: ${JSON.stringify(bad)}: ${msg}`,
        );
      }
    }
  });
}
