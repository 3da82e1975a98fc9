/**
 * The SDK drops features unknown to the model, each value checked as the trainer's `/predict`
 * checks it: unknown names used to be added up together before being dropped, so two unknown
 * values near the float32 maximum were refused ("x values must be finite, got 6e+38") and two
 * unknown values past float32 that cancel were accepted.
 */
import { featurizer } from "../../sdk/features.ts";
import type { DecodedModel } from "../../sdk/kinds/types.ts";
import { assert } from "./helpers.ts";

const model = (featureSpace: DecodedModel["featureSpace"]): DecodedModel => ({
  kind: "linear-sparse",
  formatVersion: 3,
  numFeatures: 3,
  numLabels: 1,
  params: {},
  tensors: {},
  featureSpace,
  preprocess: { l2Normalize: true },
});

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return e instanceof TypeError ? e.message : `not a TypeError: ${e}`;
  }
  return "accepted";
};

for (
  const [what, fs] of [
    ["vocabulary", { type: "vocabulary", names: ["a", "b", "c"] }],
    ["vocabulary with text", { type: "vocabulary", names: ["a", "b", "c"], text: {} }],
    ["index", { type: "index" }],
  ] as const
) {
  Deno.test(`unknown names (${what}) are dropped one by one, each value checked`, () => {
    const rows = featurizer(model(fs));
    const known = what === "index" ? "2" : "c";
    // large unknown values: dropped, the row is the known feature's
    const [idx, val] = rows({ zz: 3e38, yy: 3e38, [known]: 2 });
    assert(idx.join() === "2" && val.join() === "1", `${idx} ${val}`);
    if (what === "vocabulary with text") {
      const t = rows({ text: "zz yy", features: { zz: 3e38, yy: 3e38, [known]: 2 } });
      assert(t[0].join() === "2" && t[1].join() === "1", `text: ${t[0]} ${t[1]}`);
    }
    // unknown values that are not finite float32s are refused, even when they cancel
    const msg = refusal(() => rows({ zz: 1e39, yy: -1e39, [known]: 2 }));
    assert(msg.includes("x values must be finite, got 1e+39"), msg);
    assert(refusal(() => rows({ zz: NaN })).includes("got NaN"), "NaN");
    assert(refusal(() => rows({ zz: "1" } as never)).includes("got NaN"), "a string");
  });
}
