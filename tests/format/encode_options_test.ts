// encodeModelFile at its boundary: options with an unknown key or of the wrong type, and
// content that is not a model's, are TypeErrors naming the field (not "Cannot read properties").
import { decodeModelFile } from "../../sdk/internal.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { assert, assertThrowsMsg } from "../helpers.ts";

// deno-lint-ignore no-explicit-any
const loose = (v: unknown): any => v;

function content(): ModelFileContent {
  return {
    kind: "linear-sparse",
    numFeatures: 2,
    numLabels: 2,
    params: {},
    tensors: {
      featPtr: { dtype: "i32", shape: [3], data: Int32Array.of(0, 1, 2) },
      labelIdx: { dtype: "i32", shape: [2], data: Int32Array.of(1, 0) },
      weights: { dtype: "f32", shape: [2], data: Float32Array.of(0.5, -1) },
      bias: { dtype: "f32", shape: [2], data: Float32Array.of(0.25, -2) },
    },
  };
}

Deno.test("encodeModelFile: a typo'd option or a keepF32 string is refused, not ignored", async () => {
  await assertThrowsMsg(
    () => encodeModelFile(content(), loose({ quantise: "f16" })),
    TypeError,
    'encodeModelFile: unknown option "quantise" (known: quantize, keepF32)',
  );
  // a string was spread into its characters: the bias was silently quantised
  await assertThrowsMsg(
    () => encodeModelFile(content(), loose({ quantize: "f16", keepF32: "bias" })),
    TypeError,
    'encodeModelFile: keepF32 must be an array of tensor names, got "bias"',
  );
  await assertThrowsMsg(() => encodeModelFile(content(), loose(null)), TypeError, "options");
  await assertThrowsMsg(
    () => encodeModelFile(content(), loose({ quantize: {} })),
    TypeError,
    "quantize must be",
  );
  const f = decodeModelFile(encodeModelFile(content(), { quantize: "f16", keepF32: ["bias"] }));
  assert(f.tensors.bias.dtype === "f32" && f.tensors.weights.dtype === "f16", "kept f32");
});

Deno.test("encodeModelFile: content that is not a model's names what is wrong", async () => {
  await assertThrowsMsg(() => encodeModelFile(loose(null)), TypeError, "encodeModelFile: content");
  await assertThrowsMsg(
    () => encodeModelFile({ ...content(), tensors: loose(undefined) }),
    TypeError,
    "encodeModelFile: tensors must be an object",
  );
  await assertThrowsMsg(
    () => encodeModelFile({ ...content(), tensors: loose({ a: { dtype: "f32", shape: [1] } }) }),
    TypeError,
    "encodeModelFile: tensor a must be { dtype, shape, data }",
  );
  await assertThrowsMsg(
    () =>
      encodeModelFile({
        ...content(),
        tensors: loose({ a: { dtype: "f32", shape: "2", data: Float32Array.of(1, 2) } }),
      }),
    TypeError,
    "encodeModelFile: tensor a: shape must be an array of sizes",
  );
});
