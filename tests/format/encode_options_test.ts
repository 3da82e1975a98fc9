// encodeModelFile at its boundary: options with an unknown key or of the wrong type, and
// content that is not a model's, are TypeErrors naming the field (not "Cannot read properties").
// The checks interpolated the bad value as is: an object printed "[object Object]", a symbol made
// the message itself throw, ["f16"] printed as f16, and a keepF32 holding a bigint threw
// JSON.stringify's own error. Now every message shows the value readably and briefly.
import { decodeModelFile } from "../../sdk/internal.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";

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

/** The error encoding the edited content (and options) throws; fails when it encodes. */
function errorOf(edit: (c: ModelFileContent) => void, options: unknown = {}): Error {
  const c = content();
  edit(c);
  try {
    encodeModelFile(c, loose(options));
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error, the content was encoded");
}

const W = "encodeModelFile";
const T = `${W}: tensor weights`;

Deno.test("encodeModelFile: a bad value is shown readably in the message, not [object Object]", () => {
  const cases: [string, () => Error, typeof TypeError | typeof RangeError, string][] = [
    [
      "numLabels",
      () => errorOf((c) => c.numLabels = loose({ n: 2 })),
      RangeError,
      `${W}: numLabels must be a non-negative integer, got {"n":2}`,
    ],
    [
      "numFeatures a symbol",
      () => errorOf((c) => c.numFeatures = loose(Symbol("two"))),
      RangeError,
      `${W}: numFeatures must be a non-negative integer, got Symbol(two)`,
    ],
    [
      "kind",
      () => errorOf((c) => c.kind = loose({ name: "ova" })),
      TypeError,
      `${W}: kind must be a non-empty string, got {"name":"ova"}`,
    ],
    [
      "labelNames not an array",
      () => errorOf((c) => c.labelNames = loose("ab")),
      TypeError,
      `${W}: labelNames must be an array of names, got "ab"`,
    ],
    [
      "a label name",
      () => errorOf((c) => c.labelNames = loose(["a", { b: 1 }])),
      TypeError,
      `${W}: labelNames[1] is not a string, got {"b":1}`,
    ],
    [
      "preprocess",
      () => errorOf((c) => c.preprocess = loose({ tfidf: { on: true } })),
      TypeError,
      `${W}: preprocess.tfidf must be a boolean, got {"on":true}`,
    ],
    [
      "params",
      () => errorOf((c) => c.params.bad = loose({ x: 1 })),
      TypeError,
      `${W}: params.bad must be a number, string, boolean or number array, got {"x":1}`,
    ],
    [
      "quantize",
      () => errorOf(() => {}, { quantize: ["f16"] }),
      TypeError,
      `${W}: quantize must be "f32", "f16" or "i8", got ["f16"]`,
    ],
    [
      "keepF32 with a bigint",
      () => errorOf(() => {}, { keepF32: ["bias", 1n] }),
      TypeError,
      `${W}: keepF32 must be an array of tensor names, got ["bias","1n"]`,
    ],
    [
      "shape",
      () => errorOf((c) => c.tensors.weights.shape = loose("2")),
      TypeError,
      `${T}: shape must be an array of sizes, got "2"`,
    ],
    [
      "shape entry",
      () => errorOf((c) => c.tensors.weights.shape = loose([{ rows: 2 }])),
      RangeError,
      `${T}: shape entry {"rows":2} is not a non-negative integer`,
    ],
    [
      "dtype",
      () => errorOf((c) => c.tensors.weights.dtype = loose({ type: "f32" })),
      TypeError,
      `${T}: unknown dtype {"type":"f32"}`,
    ],
    [
      // an inherited key of the dtype table is no dtype (it wrote a file no reader reads)
      "dtype constructor",
      () => errorOf((c) => c.tensors.weights.dtype = loose("constructor")),
      TypeError,
      `${T}: unknown dtype "constructor"`,
    ],
  ];
  for (const [what, run, cls, message] of cases) {
    const e = run();
    assert(e instanceof cls, `${what}: expected a ${cls.name}, got ${e}`);
    assertEquals(e.message, message, what);
  }
});

Deno.test("encodeModelFile: a long bad value is cut short in the message", () => {
  const big = Array.from({ length: 10_000 }, (_, i) => i);
  const keep = errorOf(() => {}, { keepF32: big });
  assertEquals(
    keep.message,
    `${W}: keepF32 must be an array of tensor names, got [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,...`,
  );
  const names = errorOf((c) => c.labelNames = loose([{ name: "x".repeat(5000) }, "b"]));
  assert(names instanceof TypeError, String(names));
  assert(names.message.length < 150, `${names.message.length} characters`);
  assert(names.message.startsWith(`${W}: labelNames[0] is not a string, got {"name":"xxx`));
  // a string in the preprocess message (shown unquoted there) is cut too
  const pre = errorOf((c) => c.preprocess = loose({ l2Normalize: "y".repeat(5000) }));
  assertEquals(
    pre.message,
    `${W}: preprocess.l2Normalize must be a boolean, got ${"y".repeat(57)}...`,
  );
});
