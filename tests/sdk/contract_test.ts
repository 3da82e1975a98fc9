/**
 * One model-file contract (issue 18): the trainer's API (mod.ts) and the SDK's (sdk/mod.ts) export
 * the same `ModelFormatError` class and `FORMAT_VERSION`, so an error from either reader is an
 * instance of the class either side exports, and the trainer's writer and the SDK agree on the
 * version.
 */
import * as trainer from "../../mod.ts";
import * as sdk from "../../sdk/mod.ts";
import { assert } from "./helpers.ts";

const TRUNCATED = await Deno.readFile(new URL("../fixtures/bad/truncated.tsm", import.meta.url));

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("nothing was thrown");
}

Deno.test("mod.ts and sdk/mod.ts export one ModelFormatError: instanceof works both ways", () => {
  assert(trainer.ModelFormatError === sdk.ModelFormatError, "two ModelFormatError classes");
  const fromTrainer = thrown(() => trainer.decodeModelFile(TRUNCATED));
  const fromSdk = thrown(() => sdk.loadModel(TRUNCATED));
  for (const [who, e] of [["trainer", fromTrainer], ["SDK", fromSdk]] as const) {
    assert(e instanceof trainer.ModelFormatError, `${who} error is not mod.ts's class`);
    assert(e instanceof sdk.ModelFormatError, `${who} error is not sdk/mod.ts's class`);
    assert(e.reason === "truncated" && e.offset === 100, `${who}: ${e.message}`);
  }
  const made = new trainer.ModelFormatError("corrupt", "x");
  assert(made instanceof sdk.ModelFormatError && made.name === "ModelFormatError", "constructed");
});

Deno.test("mod.ts and sdk/mod.ts export one FORMAT_VERSION, which the writer's files carry at most", () => {
  assert(trainer.FORMAT_VERSION === sdk.FORMAT_VERSION, "two format versions");
  const bytes = trainer.encodeModelFile({
    kind: "linear-sparse",
    numFeatures: 1,
    numLabels: 1,
    featureSpace: { type: "hashing", dim: 1, seed: 0, text: { ngrams: 1 } },
    params: {},
    tensors: {
      featPtr: { dtype: "i32", shape: [2], data: Int32Array.of(0, 1) },
      labelIdx: { dtype: "i32", shape: [1], data: Int32Array.of(0) },
      weights: { dtype: "f32", shape: [1], data: Float32Array.of(1) },
    },
  });
  assert(sdk.loadModel(bytes).formatVersion === sdk.FORMAT_VERSION, "newest version");
});
