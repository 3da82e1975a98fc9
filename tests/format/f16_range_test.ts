// encodeModelFile(…, { quantize: "f16" }) of a finite value past ±65504: it was written as
// ±Infinity, silently, and the SDK then scored with an infinite weight. Now it is a RangeError
// naming the tensor, the value and the limit.
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { assertEquals, assertThrowsMsg } from "../helpers.ts";

const content = (values: number[]) => ({
  kind: "linear-lowrank" as const,
  numFeatures: values.length,
  numLabels: 1,
  params: { rank: 1 },
  tensors: {
    W: { dtype: "f32" as const, shape: [values.length, 1], data: Float32Array.from(values) },
    H: { dtype: "f32" as const, shape: [1, 1], data: Float32Array.of(1) },
  },
});

Deno.test("encodeModelFile: quantize f16 refuses a finite value beyond ±65504, naming it", async () => {
  for (const big of [65520, -70000, 3e38]) {
    await assertThrowsMsg(
      () => encodeModelFile(content([1, big]), { quantize: "f16" }),
      RangeError,
      `encodeModelFile: tensor W: value ${
        Math.fround(big)
      } at index 1 is beyond the float16 range ±65504`,
    );
  }
  // the largest float16 values, values that round to them, and infinities are written as they are
  const ok = [65504, -65519, Infinity, -Infinity, 1e-8];
  const back = decodeModelFile(encodeModelFile(content(ok), { quantize: "f16" })).tensors.W;
  assertEquals(back.dtype, "f16");
  // the same tensor kept f32, or quantised to i8, is written
  const kept = decodeModelFile(
    encodeModelFile(content([1, 70000]), { quantize: "f16", keepF32: ["W"] }),
  );
  assertEquals([...kept.tensors.W.data], [1, 70000]);
  assertEquals(
    decodeModelFile(encodeModelFile(content([1, 70000]), { quantize: "i8" })).tensors.W.dtype,
    "i8",
  );
});
