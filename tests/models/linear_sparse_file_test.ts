/**
 * `linearSparseFile` (src/models/linear_sparse_file.ts), the one writer of the `linear-sparse`
 * files of br and ova: it checks the options a model's `toModelFile` was given, merges the
 * model's metadata and `l2Normalize`, and encodes with `quantize`.
 */
import {
  biasOrderOf,
  type FeatureMajor,
  linearSparseContentOf,
  linearSparseFile,
} from "../../src/models/linear_sparse_file.ts";
import * as labelWeights from "../../src/models/label_weights.ts";
import * as brApi from "../../src/models/br/mod.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import type { ModelFileOptions } from "../../src/models/estimator.ts";
import { BrEstimator } from "../../src/models/br/estimator.ts";
import { OvaEstimator } from "../../src/models/ova/estimator.ts";
import { assert, assertEquals, refusalOf } from "../helpers.ts";

/** Two features, three labels: feature 0 → labels 0, 2; feature 1 → label 1. */
const F: FeatureMajor = {
  featPtr: Int32Array.of(0, 2, 3),
  labelIdx: Int32Array.of(0, 2, 1),
  weights: Float32Array.of(0.5, -1.25, 2),
};
const BIAS = Float32Array.of(-1, 0.5, 0);

const messageOf = (f: () => unknown): string => refusalOf(f, "accepted");

Deno.test("linearSparseFile checks the caller's options, naming the model, before merging its own", () => {
  const model = { where: "demo.toModelFile", meta: { trainer: "demo" }, normalizes: true };
  const write = (o: unknown) => () => linearSparseFile(F, 2, 3, BIAS, o as ModelFileOptions, model);
  assertEquals(
    messageOf(write({ meta: "x" })),
    "TypeError: demo.toModelFile: option meta must be an object, got x",
  );
  assertEquals(
    messageOf(write({ preprocess: "x" })),
    "TypeError: demo.toModelFile: option preprocess must be an object, got x",
  );
  assertEquals(
    messageOf(write({ quantize: "f8" })),
    'RangeError: demo.toModelFile: option quantize must be one of f32, f16, i8, got "f8"',
  );
  assertEquals(
    messageOf(write({ labelNames: ["a"] })),
    "RangeError: demo.toModelFile: 1 label names for 3 labels",
  );
  assertEquals(
    messageOf(write(null)),
    "TypeError: demo.toModelFile: the options must be an object, got null",
  );
});

Deno.test("linearSparseFile: the caller's meta entries override the model's; no meta at all writes none", () => {
  const c = decodeModelFile(
    linearSparseFile(F, 2, 3, BIAS, { meta: { steps: 9, note: "x" } }, {
      where: "demo",
      meta: { trainer: "demo", steps: 1 },
      params: { lambda: 0.5 },
    }),
  );
  assertEquals(c.meta, { trainer: "demo", steps: 9, note: "x" });
  assertEquals(Object.keys(c.meta!), ["trainer", "steps", "note"]);
  assertEquals(c.params, { nnz: 3, lambda: 0.5 });
  const bare = decodeModelFile(linearSparseFile(F, 2, 3, undefined, {}, { where: "demo" }));
  assertEquals(bare.meta, undefined);
  assertEquals(Object.keys(bare.tensors).sort(), ["featPtr", "labelIdx", "weights"]);
});

Deno.test("linearSparseFile records l2Normalize on top of the pipeline's preprocessing only when the model normalizes", () => {
  const idf = Float32Array.of(1, 2);
  const options: ModelFileOptions = { preprocess: { tfidf: true, idf } };
  const of = (normalizes: boolean) =>
    decodeModelFile(linearSparseFile(F, 2, 3, BIAS, options, { where: "demo", normalizes }))
      .preprocess;
  assertEquals(of(true), { tfidf: true, l2Normalize: true });
  assertEquals(of(false), { tfidf: true });
  assertEquals(options.preprocess, { tfidf: true, idf }, "the caller's options are not changed");
});

Deno.test("linearSparseFile encodes with quantize: the bytes of encodeModelFile of linearSparseContentOf", () => {
  for (const quantize of [undefined, "f32", "f16", "i8"] as const) {
    const options: ModelFileOptions = { labelNames: ["a", "b", "c"], quantize };
    const bytes = linearSparseFile(F, 2, 3, BIAS, options, { where: "demo", meta: { m: 1 } });
    const content = linearSparseContentOf(F, 2, 3, BIAS, {
      labelNames: ["a", "b", "c"],
      meta: { m: 1 },
      where: "demo",
    });
    const expected = encodeModelFile(content, quantize ? { quantize } : undefined);
    assertEquals(bytes, expected, `quantize ${quantize}`);
    assertEquals([...(decodeModelFile(bytes).tensors.biasOrder.data)], [...biasOrderOf(BIAS)]);
  }
});

Deno.test("br and ova write their files through linearSparseFile: the model's meta, where and l2Normalize", () => {
  const x = { indices: Int32Array.of(0, 2), values: Float32Array.of(1, 3) };
  for (
    const [trainer, m] of [
      ["br", new BrEstimator({ numFeatures: 3, numLabels: 2, l2Normalize: true })],
      ["ova", new OvaEstimator({ numFeatures: 3, numLabels: 2, l2Normalize: true })],
    ] as const
  ) {
    m.learnOne(x, [1]);
    const c = decodeModelFile(m.toModelFile({ meta: { trainer: "mine" }, quantize: "f16" }));
    assertEquals(c.kind, "linear-sparse");
    assertEquals(c.meta?.trainer, "mine", trainer);
    assertEquals(c.preprocess, { l2Normalize: true }, trainer);
    assert(
      messageOf(() => m.toModelFile({ meta: 1 } as unknown as ModelFileOptions))
        .endsWith(`${trainer}.toModelFile: option meta must be an object, got 1`),
      trainer,
    );
  }
});

Deno.test("br/mod.ts still exports the writer's and the label-major weights' names, from the shared modules", () => {
  assert(brApi.linearSparseContentOf === linearSparseContentOf);
  assert(brApi.linearSparseContent === labelWeights.linearSparseContent);
  assert(brApi.toFeatureMajor === labelWeights.toFeatureMajor);
  // the label-major module is not a second door to the writer
  assert(!("linearSparseContentOf" in labelWeights) && !("biasOrderOf" in labelWeights));
  assertEquals([...biasOrderOf(BIAS)], [1, 2, 0]);
});
