/**
 * The popularity model file is written by the one `linear-sparse` writer (`linearSparseFile` of
 * src/models/linear_sparse_file.ts), as br's and ova's are, and its bytes are the ones it had
 * when popularity built the content itself: the SHA-256 digests below were taken from files the
 * code of before wrote (session 34), for plain, quantized, named, hashed and tf-idf options and
 * an empty model. Its params stay popularity's own (no `nnz`) and it has no `biasOrder`.
 */
import { PopularityEstimator } from "../../../src/models/popularity/mod.ts";
import type { ModelFileOptions } from "../../../src/models/estimator.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { decodeModelFile } from "../../../sdk/internal.ts";
import { assert, assertEquals } from "../../helpers.ts";

/** Name → [SHA-256 of the file, its length], from the files of before the shared writer. */
const FROZEN: Record<string, [string, number]> = {
  plain: ["e74de223f5b8ff78b00f3570b738c12c8e657bbd45b37b01b6024ca2fac5321a", 419],
  f16: ["84c8c36cbd12695a631daa6855169784b65edba45b01a14afe6b14173d7da900", 419],
  i8: ["96d33e67399232af7935be98256b2d67f8d8263ed5a3d54fc2cd790a24bce807", 427],
  named: ["314e826928b97abeca6f59228b4eb96ca0e0d356b8bb47a2e7232a2aad54b0dc", 491],
  hashing: ["aece6e13b19c96fed5cf425af7cf8f93df07269b8548261a7cff70e3f61e4a20", 491],
  tfidf: ["6f19bfc33bbbb68704591ace61ba727bf3a7c7dab9ac56bfd8587cc88ddbd320", 495],
  empty: ["b3a68e299a864ded0e820f467144c437802a5ac0358fb836644158f0970b9dbf", 371],
};

const OPTIONS: Record<string, ModelFileOptions> = {
  plain: {},
  f16: { quantize: "f16" },
  i8: { quantize: "i8" },
  named: {
    labelNames: ["a", "b", "c", "d", "e", "f"],
    featureNames: ["u", "v", "w", "x", "y"],
    meta: { run: 3, trainer: "mine" },
  },
  hashing: {
    featureSpace: { type: "hashing", dim: 16, seed: 9, signed: true },
    preprocess: { l2Normalize: true },
  },
  tfidf: { preprocess: { tfidf: true, idf: Float32Array.of(1, 2, 3, 4, 5) } },
};

const row = (i: number[]) => ({
  indices: Int32Array.from(i),
  values: Float32Array.from(i, () => 1),
});

function model(): PopularityEstimator {
  const m = new PopularityEstimator({ threshold: 0.25, numFeatures: 5 });
  m.learnOne(row([0, 3]), [2]);
  m.learnOne(row([1]), [0, 2]);
  m.learnOne(row([4]), [5]);
  m.learnOne(row([]), [2, 5]);
  return m;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("popularity.toModelFile: the bytes of before the shared linear-sparse writer", async () => {
  const m = model();
  const files: Record<string, Uint8Array> = {};
  for (const [name, o] of Object.entries(OPTIONS)) files[name] = m.toModelFile(o);
  files.empty = new PopularityEstimator().toModelFile();
  const got: Record<string, [string, number]> = {};
  for (const [name, bytes] of Object.entries(files)) {
    got[name] = [await sha256(bytes), bytes.length];
  }
  assertEquals(got, FROZEN);
});

Deno.test("popularity's file: its own params, no biasOrder, the scores as bias; toModelContent is the same content", () => {
  const m = model();
  const c = decodeModelFile(m.toModelFile(OPTIONS.named));
  assertEquals(c.params, { trainer: "popularity", threshold: 0.25 });
  assertEquals(c.meta, { trainer: "mine", rows: 4, run: 3 });
  assertEquals(Object.keys(c.tensors), ["featPtr", "labelIdx", "weights", "bias"]);
  assertEquals([...c.tensors.bias.data], [...m.predictScores(row([]))]);
  const content = m.toModelContent(OPTIONS.named);
  assertEquals(content.params, c.params);
  assertEquals(content.meta, c.meta);
  assertEquals(Object.keys(content.tensors), Object.keys(c.tensors));
  // the SDK answers what the model answers
  const sdk = loadModel(m.toModelFile());
  const top = sdk.predictTopK({ indices: Int32Array.of(1), values: Float32Array.of(1) }, 3);
  assertEquals([...top.labels], [...m.predictTopK(row([1]), 3).labels]);
  assert(top.labels[0] === 2, `top label ${top.labels[0]}`);
});
