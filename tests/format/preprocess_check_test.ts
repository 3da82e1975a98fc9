// encodeModelFile's `preprocess`: a value that is not a boolean (or a preprocess that is not a
// map) was written as given, so the strict reader (decodeModelFile: prune, inspect, eval)
// refused the file as corrupt while the SDK read "yes" as true. Now the writer refuses it,
// naming the field.
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { assertEquals, assertThrowsMsg } from "../helpers.ts";

const content = (preprocess: unknown): ModelFileContent => ({
  kind: "linear-sparse",
  numFeatures: 2,
  numLabels: 2,
  params: {},
  preprocess: preprocess as ModelFileContent["preprocess"],
  tensors: {
    featPtr: { dtype: "i32", shape: [3], data: Int32Array.of(0, 1, 2) },
    labelIdx: { dtype: "i32", shape: [2], data: Int32Array.of(1, 0) },
    weights: { dtype: "f32", shape: [2], data: Float32Array.of(0.5, -1) },
  },
});

Deno.test("encodeModelFile refuses a preprocess the strict reader would refuse, naming it", async () => {
  for (
    const [pre, msg] of [
      [
        { l2Normalize: "yes" },
        "encodeModelFile: preprocess.l2Normalize must be a boolean, got yes",
      ],
      [{ l2Normalize: true, tfidf: 1 }, "preprocess.tfidf must be a boolean, got 1"],
      [{ l2Normalize: null }, "preprocess.l2Normalize must be a boolean, got null"],
      [[true], "encodeModelFile: preprocess must be an object"],
    ] as const
  ) {
    await assertThrowsMsg(() => encodeModelFile(content(pre)), TypeError, msg);
  }
  // what the writer writes, the strict reader reads
  for (const pre of [{ l2Normalize: true }, { l2Normalize: false }, {}, undefined]) {
    const back = decodeModelFile(encodeModelFile(content(pre)));
    assertEquals(back.preprocess, pre);
  }
});

Deno.test("encodeModelFile refuses a meta that is not a map (both readers refuse such a file)", async () => {
  for (const meta of [[1, 2], "trained", 3, Float32Array.of(1)]) {
    await assertThrowsMsg(
      () => encodeModelFile({ ...content(undefined), meta: meta as never }),
      TypeError,
      "encodeModelFile: meta must be an object (a map of training metadata)",
    );
  }
  const back = decodeModelFile(encodeModelFile({ ...content(undefined), meta: { rows: 3 } }));
  assertEquals(back.meta, { rows: 3 });
});
