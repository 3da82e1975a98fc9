/**
 * The trainer's model-file writer (src/format) with the SDK's strict reader (sdk/model_file.ts,
 * through sdk/internal.ts): round trips of every dtype, zero-copy views,
 * quantisation error bounds, encoder errors naming the field, the golden v1 files (the current
 * writer still writes them byte for byte, and the reader reads them), and the broken files.
 */
import { decodeModelFile, FORMAT_VERSION, ModelFormatError } from "../../sdk/internal.ts";
import { encodeModelFile, formatVersionOf } from "../../src/format/model_file.ts";
import { dequantize, float16ToFloat32, float32ToFloat16 } from "../../src/format/quantize.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { badFixtures, goodFixtures } from "../fixtures/generate.ts";
import { assert } from "../helpers.ts";

function readError(f: () => unknown): ModelFormatError {
  try {
    f();
  } catch (e) {
    if (e instanceof ModelFormatError) return e;
    throw new Error(`expected a ModelFormatError, got ${e}`);
  }
  throw new Error("expected a ModelFormatError, nothing was thrown");
}

const FIXTURES = new URL("../fixtures/", import.meta.url);

function content(): ModelFileContent {
  return {
    kind: "linear-lowrank",
    numFeatures: 3,
    numLabels: 2,
    labelNames: ["a", "ü-β"],
    featureSpace: { type: "vocabulary", names: ["x", "y", "z"] },
    preprocess: { l2Normalize: true },
    params: { rank: 2, name: "t", flag: true, list: [1, 2.5] },
    meta: { nested: { deep: [1, "two", null] }, big: 2 ** 40, neg: -70000 },
    tensors: {
      W: { dtype: "f32", shape: [3, 2], data: Float32Array.of(1, -2, 0.5, 3e-8, 7, -0) },
      H: { dtype: "f64", shape: [2, 2], data: Float64Array.of(Math.PI, -1, 2, 1e-300) },
      ids: { dtype: "i32", shape: [3], data: Int32Array.of(-1, 0, 2 ** 31 - 1) },
      small: { dtype: "u8", shape: [2], data: Uint8Array.of(0, 255) },
      half: { dtype: "u16", shape: [1], data: Uint16Array.of(65535) },
      q: { dtype: "i8", shape: [2, 1], data: Int8Array.of(-127, 5), scale: Float32Array.of(1, 2) },
      bias: { dtype: "f32", shape: [2], data: Float32Array.of(0.25, -0.25) },
    },
  };
}

Deno.test("every field and dtype survives a round trip; aligned tensors are zero-copy views", () => {
  const c = content();
  const bytes = encodeModelFile(c);
  const d = decodeModelFile(bytes);
  assert(d.formatVersion === 1, `version ${d.formatVersion}`); // nothing of version 2 is used
  assert(d.kind === c.kind && d.numFeatures === 3 && d.numLabels === 2, "sizes");
  assert(JSON.stringify(d.labelNames) === JSON.stringify(c.labelNames), "label names");
  assert(JSON.stringify(d.featureSpace) === JSON.stringify(c.featureSpace), "feature space");
  assert(JSON.stringify(d.params) === JSON.stringify(c.params), "params");
  assert(JSON.stringify(d.meta) === JSON.stringify(c.meta), JSON.stringify(d.meta));
  for (const [name, t] of Object.entries(c.tensors)) {
    const got = d.tensors[name];
    assert(got.dtype === t.dtype && got.shape.join() === t.shape.join(), `${name} header`);
    assert(got.data.constructor === t.data.constructor, `${name} type`);
    assert([...got.data].every((v, i) => Object.is(v, t.data[i])), `${name} values`);
    assert(got.data.buffer === bytes.buffer, `${name} is not a view into the file`);
    assert(got.data.byteOffset % 8 === 0, `${name} blob not 8-byte aligned`);
  }
  assert(Object.is(d.tensors.W.data[5], -0), "-0 kept");
  assert([...(d.tensors.q.scale as Float32Array)].join() === "1,2", "i8 per-row scale");
});

Deno.test("unaligned input bytes decode to copies with the same values", () => {
  const bytes = encodeModelFile(content());
  const shifted = new Uint8Array(bytes.length + 1).subarray(1);
  shifted.set(bytes);
  const d = decodeModelFile(shifted);
  assert(d.tensors.W.data.buffer !== shifted.buffer, "unaligned f32 must be copied");
  assert(d.tensors.W.data[1] === -2 && d.tensors.H.data[0] === Math.PI, "values");
});

Deno.test("quantisation: f16 within half-precision rounding, i8 within half a step per row", () => {
  const rows = 3, width = 50;
  const data = Float32Array.from({ length: rows * width }, (_, i) => Math.sin(i) * (1 + i % 7));
  const c: ModelFileContent = {
    kind: "linear-lowrank",
    numFeatures: rows,
    numLabels: 1,
    params: {},
    tensors: {
      W: { dtype: "f32", shape: [rows, width], data },
      bias: { dtype: "f32", shape: [1], data: Float32Array.of(0.1) },
    },
  };
  const f32Size = encodeModelFile(c).length;
  const half = decodeModelFile(encodeModelFile(c, { quantize: "f16" }));
  const i8bytes = encodeModelFile(c, { quantize: "i8" });
  const i8 = decodeModelFile(i8bytes);
  assert(half.tensors.W.dtype === "f16" && i8.tensors.W.dtype === "i8", "dtypes");
  assert(half.tensors.bias.dtype === "f32" && i8.tensors.bias.dtype === "f32", "bias kept f32");
  assert(i8bytes.length < f32Size / 2, `i8 file ${i8bytes.length} vs f32 ${f32Size}`);
  const h = dequantize(half.tensors.W), q = dequantize(i8.tensors.W);
  const scale = i8.tensors.W.scale as Float32Array;
  for (let i = 0; i < data.length; i++) {
    assert(Math.abs(h[i] - data[i]) <= Math.abs(data[i]) * 2 ** -11 + 1e-7, `f16 ${i}`);
    const s = scale[Math.floor(i / width)];
    assert(Math.abs(q[i] - data[i]) <= s / 2 + 1e-7, `i8 ${i}: ${q[i]} vs ${data[i]}`);
  }
  // float16 corner cases: subnormals, overflow, NaN
  const corner = float16ToFloat32(float32ToFloat16(Float32Array.of(6e-8, 1e6, NaN, -0, 65504)));
  assert(corner[0] === 2 ** -24 && corner[1] === Infinity && Number.isNaN(corner[2]), `${corner}`);
  assert(Object.is(corner[3], -0) && corner[4] === 65504, `${corner}`);
});

Deno.test("signed hashing is written as format version 2, unsigned hashing as version 1", () => {
  // dim 3 = numFeatures; dim 1000 > numFeatures: a model grown from the columns it has seen
  for (const [signed, dim] of [[undefined, 3], [false, 3], [true, 3], [true, 1000]] as const) {
    const c = content();
    c.featureSpace = {
      type: "hashing",
      dim,
      seed: 42,
      ...(signed === undefined ? {} : { signed }),
    };
    const d = decodeModelFile(encodeModelFile(c));
    const want = signed ? 2 : 1;
    assert(formatVersionOf(c) === want && d.formatVersion === want, `signed ${signed}: version`);
    assert(JSON.stringify(d.featureSpace) === JSON.stringify(c.featureSpace), `signed ${signed}`);
  }
  // the version byte of the fixed header (after the fixmap, "magic" → "TAGSTREAM" and the
  // "formatVersion" key): a version-1 reader rejects the signed file as newer-version
  const c = content();
  const unsigned = encodeModelFile(c);
  c.featureSpace = { type: "hashing", dim: 3, seed: 42, signed: true };
  const signed = encodeModelFile(c);
  assert(unsigned[1 + 16 + 14] === 1 && signed[1 + 16 + 14] === 2, "version byte");
  assert(FORMAT_VERSION === 4, `FORMAT_VERSION ${FORMAT_VERSION}`);
});

Deno.test("the encoder rejects inconsistent content, naming the field", () => {
  const cases: [string, (c: ModelFileContent) => void, string][] = [
    ["shape", (c) => (c.tensors.W.shape = [2, 2]), "tensor W: shape [2,2] has 4 elements"],
    ["dtype", (c) => (c.tensors.W.dtype = "i32"), "tensor W: dtype i32 needs a Int32Array"],
    ["names", (c) => (c.labelNames = ["a"]), "labelNames has 1 names for 2 labels"],
    ["vocab", (c) => (c.featureSpace = { type: "vocabulary", names: ["x"] }), "featureSpace.names"],
    [
      "hash",
      (c) => (c.featureSpace = { type: "hashing", dim: 2, seed: 0 }),
      "featureSpace.dim must be an integer in [numFeatures = 3, 2^31), got 2",
    ],
    [
      "hash dim",
      (c) => (c.featureSpace = { type: "hashing", dim: 3.5, seed: 0 }),
      "featureSpace.dim must be an integer",
    ],
    [
      "signed",
      (c) => (c.featureSpace = { type: "hashing", dim: 3, seed: 0, signed: 1 as never }),
      "featureSpace.signed must be a boolean",
    ],
    ["idf", (c) => (c.preprocess = { tfidf: true }), "preprocess.tfidf needs a tensor idf"],
    ["params", (c) => (c.params.bad = { x: 1 } as unknown as number), "params.bad must be"],
    ["scale", (c) => (c.tensors.W.scale = 2), "scale is only allowed for i8"],
    ["count", (c) => (c.numLabels = -1), "numLabels must be a non-negative integer"],
  ];
  for (const [what, edit, message] of cases) {
    const c = content();
    edit(c);
    let err: unknown;
    try {
      encodeModelFile(c);
    } catch (e) {
      err = e;
    }
    assert(
      (err instanceof TypeError || err instanceof RangeError) && err.message.includes(message),
      `${what}: ${err}`,
    );
  }
});

Deno.test("golden v1 and v2 files: the writer reproduces them byte for byte and the reader reads them", async () => {
  const fixtures = goodFixtures();
  assert(Object.keys(fixtures).length >= 10, "fixture list");
  for (const [name, f] of Object.entries(fixtures)) {
    const golden = await Deno.readFile(new URL(name, FIXTURES));
    const bytes = encodeModelFile(f.content, f.options);
    assert(bytes.length === golden.length, `${name}: ${bytes.length} vs golden ${golden.length}`);
    const diff = bytes.findIndex((b, i) => b !== golden[i]);
    assert(diff < 0, `${name}: the writer no longer writes the golden file (byte ${diff})`);
    const d = decodeModelFile(golden);
    const version = +name[1]; // v1/ or v2/
    assert(
      formatVersionOf(f.content) === version,
      `${name}: written as ${formatVersionOf(f.content)}`,
    );
    assert(d.formatVersion === version && d.kind === f.content.kind, `${name}: header`);
    for (const [t, tensor] of Object.entries(f.content.tensors)) {
      const a = dequantize(d.tensors[t]), b = dequantize(tensor);
      const tol = f.options?.quantize === "i8" ? 0.02 : f.options?.quantize === "f16" ? 1e-3 : 0;
      assert(a.length === b.length, `${name}/${t}: length`);
      a.forEach((v, i) => assert(Math.abs(v - b[i]) <= tol, `${name}/${t}[${i}]: ${v} vs ${b[i]}`));
    }
  }
});

Deno.test("broken files give the reason: truncated, corrupt, bad-magic, newer-version, unsupported", async () => {
  const expected = JSON.parse(await Deno.readTextFile(new URL("expected.json", FIXTURES)));
  const names = Object.keys(expected.bad);
  for (const r of ["truncated", "corrupt", "bad-magic", "newer-version", "unsupported"]) {
    assert(names.some((n) => expected.bad[n] === r), `no bad fixture for ${r}`);
  }
  for (const name of names) {
    const bytes = await Deno.readFile(new URL(`bad/${name}`, FIXTURES));
    const e = readError(() => decodeModelFile(bytes));
    assert(e.reason === expected.bad[name], `${name}: ${e.reason} (${e.message})`);
    assert(e.message.includes(`(${e.reason})`), `${name}: message ${e.message}`);
  }
  const newer = readError(() =>
    decodeModelFile(Deno.readFileSync(new URL("bad/newer-version.tsm", FIXTURES)))
  );
  assert(
    newer.formatVersion === FORMAT_VERSION + 1 &&
      newer.message.includes(`format version ${FORMAT_VERSION + 1}`),
    newer.message,
  );
  const cut = readError(() =>
    decodeModelFile(Deno.readFileSync(new URL("bad/truncated.tsm", FIXTURES)))
  );
  assert(cut.offset === 100 && /has 100 of its \d+ bytes/.test(cut.message), cut.message);
  // the generator's broken files are exactly the committed ones
  const good: Record<string, Uint8Array> = {};
  for (const n of Object.keys(goodFixtures())) {
    good[n] = await Deno.readFile(new URL(n, FIXTURES));
  }
  for (const [n, f] of Object.entries(badFixtures(good))) {
    const file = await Deno.readFile(new URL(`bad/${n}`, FIXTURES));
    assert(file.join() === f.bytes.join(), `bad/${n} differs from the generator`);
  }
});

Deno.test("every truncation of a file is reported as truncated", () => {
  const bytes = encodeModelFile(content());
  for (let n = 0; n < bytes.length; n++) {
    const e = readError(() => decodeModelFile(bytes.subarray(0, n)));
    assert(e.reason === "truncated", `cut at ${n}: ${e.reason} ${e.message}`);
  }
});
