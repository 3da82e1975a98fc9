/**
 * `tagstream inspect` prints a model file's feature space (its help: "feature space"); for a
 * model trained on text (format version 3) that includes the tokenizer settings the file carries
 * in `featureSpace.text` (README, "Text in, tags out"): the feature space used to be printed as
 * `hashing (dim N, seed S)` alone, the same as a model that takes no text.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import { assert, assertEquals, runMain, withTempDir } from "./helpers.ts";

/** A one-feature-per-column `linear-sparse` file over a hashing space, with `text` when given. */
function hashingModel(text?: Record<string, unknown>): Uint8Array {
  return encodeModelFile({
    kind: "linear-sparse",
    numFeatures: 4,
    numLabels: 2,
    featureSpace: { type: "hashing", dim: 4, seed: 7, ...(text ? { text } : {}) },
    params: {},
    tensors: {
      featPtr: { dtype: "i32", shape: [5], data: Int32Array.of(0, 1, 2, 2, 2) },
      labelIdx: { dtype: "i32", shape: [2], data: Int32Array.of(0, 1) },
      weights: { dtype: "f32", shape: [2], data: Float32Array.of(1, 1) },
    },
  });
}

Deno.test("inspect: a text model's feature space shows its tokenizer settings", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/text.tsm`, hashingModel({ ngrams: 3, minLength: 2 }));
    await Deno.writeFile(`${dir}/plain.tsm`, hashingModel());
    for (const json of [true, false]) {
      const args = json ? ["--json"] : [];
      const t = await runMain(["inspect", `${dir}/text.tsm`, ...args]);
      assertEquals(t.code, 0, t.err);
      const p = await runMain(["inspect", `${dir}/plain.tsm`, ...args]);
      assertEquals(p.code, 0, p.err);
      const fsOf = (out: string) =>
        json
          ? String(JSON.parse(out).featureSpace)
          : out.split("\n").find((l) => l.startsWith("featureSpace:")) ?? "";
      const text = fsOf(t.out), plain = fsOf(p.out);
      assert(text.includes("dim 4") && text.includes("seed 7"), text);
      assert(/ngrams\W+3/.test(text) && /minLength\W+2/.test(text), `no tokenizer in: ${text}`);
      assert(!/text|ngrams/.test(plain), `a model without text shows one: ${plain}`);
    }
  });
});
