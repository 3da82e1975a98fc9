/**
 * One model-file contract (issue 18): the trainer's API (mod.ts) and the SDK's (sdk/mod.ts) export
 * the same `ModelFormatError` class and `FORMAT_VERSION`, so an error from either reader is an
 * instance of the class either side exports, and the trainer's writer and the SDK agree on the
 * version.
 */
import * as trainer from "../../mod.ts";
import * as sdk from "../../sdk/mod.ts";
import { encodeKnnModel } from "../../src/models/sleec/model_file.ts";
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
  // the newest feature the writer has: a knn-embedding vote power (version 4)
  const bytes = encodeKnnModel({
    numFeatures: 1,
    numLabels: 1,
    rank: 1,
    numLearners: 1,
    k: 1,
    weighted: true,
    votePower: 2,
    clusters: [{
      learner: 0,
      centroid: Float32Array.of(1),
      v: Float32Array.of(1),
      numPoints: 1,
      points: Float32Array.of(1),
      labels: [Int32Array.of(0)],
    }],
  });
  assert(sdk.loadModel(bytes).formatVersion === sdk.FORMAT_VERSION, "newest version");
});
