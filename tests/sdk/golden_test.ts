/**
 * The SDK on the golden files (tests/fixtures, format versions 1 and 2): answers equal the
 * reference implementations' recorded in expected.json, both readers (the strict `decodeModelFile` and the SDK's `loadModel`) decode the same tensors, and
 * both give the same reason and offset for every broken file and every truncation.
 */
import { decodeModelFile } from "../../sdk/internal.ts";
import { dequantize } from "../../src/format/quantize.ts";
import { decodeModel } from "../../sdk/decode.ts";
import { loadModel } from "../../sdk/mod.ts";
import { assert, outcome } from "./helpers.ts";
import { type ProbeAnswer, referenceTopK } from "../fixtures/generate.ts";

const FIXTURES = new URL("../fixtures/", import.meta.url);
const expected: { good: Record<string, ProbeAnswer[]>; bad: Record<string, string> } = JSON.parse(
  await Deno.readTextFile(new URL("expected.json", FIXTURES)),
);

function sameAnswer(
  got: { labels: Int32Array; scores: Float32Array },
  want: ProbeAnswer,
  what: string,
) {
  assert(got.labels.length === want.labels.length, `${what}: ${got.labels.length} labels`);
  want.labels.forEach((l, i) => {
    assert(
      Math.abs(got.scores[i] - want.scores[i]) <= 1e-6,
      `${what}: score ${i} ${got.scores[i]} vs ${want.scores[i]}`,
    );
    const tie = Math.abs(want.scores[i] - (want.scores[i + 1] ?? NaN)) <= 1e-6 ||
      Math.abs(want.scores[i] - (want.scores[i - 1] ?? NaN)) <= 1e-6;
    assert(got.labels[i] === l || tie, `${what}: label ${i} ${got.labels[i]} vs ${l}`);
  });
}

Deno.test("SDK answers on the golden v1 and v2 files equal the reference implementations", async () => {
  const names = Object.keys(expected.good);
  for (const kind of ["linear-sparse", "linear-lowrank", "knn-embedding", "random-features"]) {
    assert(names.some((n) => n.startsWith(`v1/${kind}`)), `no golden v1 file of kind ${kind}`);
  }
  assert(names.some((n) => n.startsWith("v2/")), "no golden v2 file");
  for (const name of names) {
    const bytes = await Deno.readFile(new URL(name, FIXTURES));
    const model = loadModel(bytes);
    assert(model.formatVersion === +name[1], `${name}: version ${model.formatVersion}`);
    for (const [i, want] of expected.good[name].entries()) {
      const x = want.input as Parameters<typeof model.predictTopK>[0];
      sameAnswer(model.predictTopK(x, model.numLabels), want, `${name} probe ${i}`);
      // the reference recomputed now, on the trainer reader's decoding, still agrees
      sameAnswer(
        (() => {
          const r = referenceTopK(decodeModelFile(bytes), want.input);
          return { labels: Int32Array.from(r.labels), scores: Float32Array.from(r.scores) };
        })(),
        want,
        `${name} probe ${i} (reference)`,
      );
    }
    const top2 = model.predictTopK(expected.good[name][0].input as Record<string, number>, 2);
    assert(top2.labels.length === Math.min(2, model.numLabels), `${name}: k = 2`);
  }
});

Deno.test("both readers decode the golden files to the same values", async () => {
  for (const name of Object.keys(expected.good)) {
    const bytes = await Deno.readFile(new URL(name, FIXTURES));
    const a = decodeModelFile(bytes), b = decodeModel(bytes);
    assert(a.kind === b.kind && a.numFeatures === b.numFeatures, `${name}: header`);
    assert(a.numLabels === b.numLabels && a.formatVersion === b.formatVersion, `${name}: sizes`);
    assert(JSON.stringify(a.labelNames) === JSON.stringify(b.labelNames), `${name}: names`);
    assert(JSON.stringify(a.featureSpace) === JSON.stringify(b.featureSpace), `${name}: space`);
    assert(JSON.stringify(a.params) === JSON.stringify(b.params), `${name}: params`);
    assert(JSON.stringify(a.meta) === JSON.stringify(b.meta), `${name}: meta`);
    assert(
      Object.keys(a.tensors).sort().join() === Object.keys(b.tensors).sort().join(),
      `${name}: tensor names`,
    );
    for (const [t, ta] of Object.entries(a.tensors)) {
      const tb = b.tensors[t];
      const va = ta.dtype === "i32" || ta.dtype === "u16" || ta.dtype === "u8"
        ? ta.data
        : dequantize(ta);
      assert(ta.shape.join() === tb.shape.join(), `${name}/${t}: shape`);
      assert([...va].every((v, i) => Object.is(v, tb.data[i])), `${name}/${t}: values`);
      if (ta.dtype === "f32" || ta.dtype === "i32") {
        assert(tb.data.buffer === bytes.buffer, `${name}/${t}: SDK tensor is not zero-copy`);
      }
    }
  }
});

Deno.test("both readers give the same reason and offset for each broken file", async () => {
  for (const [name, reason] of Object.entries(expected.bad)) {
    const bytes = await Deno.readFile(new URL(`bad/${name}`, FIXTURES));
    const a = outcome(() => decodeModelFile(bytes)), b = outcome(() => loadModel(bytes));
    assert(b.reason === reason, `${name}: SDK says ${b.reason} (${b.message}), expected ${reason}`);
    assert(
      a.reason === b.reason && a.offset === b.offset && a.version === b.version,
      `${name}: trainer ${JSON.stringify(a)} vs SDK ${JSON.stringify(b)}`,
    );
  }
});

Deno.test("both readers agree on every truncation and every single-byte change of a file", async () => {
  for (const name of ["v1/linear-sparse.tsm", "v1/random-features-f16.tsm"]) {
    const bytes = await Deno.readFile(new URL(name, FIXTURES));
    for (let n = 0; n < bytes.length; n++) {
      const cut = bytes.slice(0, n);
      const a = outcome(() => decodeModelFile(cut)), b = outcome(() => loadModel(cut));
      assert(b.reason === "truncated", `${name} cut at ${n}: ${b.message}`);
      assert(a.offset === b.offset, `${name} cut at ${n}: offsets ${a.offset} vs ${b.offset}`);
    }
    for (let i = 0; i < bytes.length; i++) {
      for (const x of [0x01, 0x80, 0xff]) {
        const bad = bytes.slice();
        bad[i] ^= x;
        const a = outcome(() => decodeModelFile(bad)), b = outcome(() => loadModel(bad));
        assert(b.reason !== "ok", `${name}: byte ${i} ^ ${x} went unnoticed`);
        assert(
          a.reason === b.reason && a.offset === b.offset,
          `${name}: byte ${i} ^ ${x}: trainer ${a.message} | SDK ${b.message}`,
        );
      }
    }
  }
});
