/**
 * What a small model file may make a reader reserve (docs/model-format.md, "Entries" and
 * "`knn-embedding`"), and the `probes` query option:
 *
 * - a `knn-embedding` `rank` is at most SLEEC's largest (4096), also in a file without points: a
 *   rank of 2^31 failed in the SDK with "Invalid typed array length: -268435454" and was accepted
 *   by the trainer's reader; 2^27 made both reserve gigabytes;
 * - `numFeatures` and `numLabels` are at most 2^24, or the file's length in bytes: a 500-byte
 *   file declaring 2^30 labels was accepted by both readers (the trainer's kNN predictor then
 *   took ~20 s and 12.6 GB per query), and the writer wrote it;
 * - `probes` is an integer in [1, 2^32) for every kind: NaN or a string was served silently.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { withLabelIndex } from "../../src/linalg/mips_index.ts";
import { SleecModel } from "../../src/models/sleec/batch.ts";
import { SLEEC_SETTINGS } from "../../src/models/sleec/config.ts";
import { knnModelContent } from "../../src/models/sleec/model_file.ts";
import type { KnnModel } from "../../src/models/sleec/predictor.ts";
import { decodeModel } from "../../sdk/decode.ts";
import { predictHandler } from "../../sdk/http.ts";
import { crc32, decodeModelFile } from "../../sdk/internal.ts";
import { loadModel, ModelFormatError } from "../../sdk/mod.ts";
import { assert, mulberry32 } from "./helpers.ts";

/** The error `f` throws (fails when it throws nothing). */
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("nothing thrown");
}

/** Asserts that `f` throws a `corrupt` ModelFormatError whose message holds `part`. */
function corrupt(f: () => unknown, part: string, what: string): void {
  const e = thrown(f);
  assert(
    e instanceof ModelFormatError && e.reason === "corrupt" && e.message.includes(part),
    `${what}: ${e}, expected corrupt '${part}'`,
  );
}

/** A knn-embedding model of rank `rank`: one point in one cluster, or none. */
function knn(rank: number, points: boolean, over: Partial<KnnModel> = {}): KnnModel {
  const clusters = points
    ? [{
      learner: 0,
      centroid: Float32Array.of(1, 0, 0),
      v: new Float32Array(3 * rank).fill(0.5),
      numPoints: 1,
      points: new Float32Array(rank).fill(1 / Math.sqrt(rank)),
      labels: [Int32Array.of(1)],
    }]
    : [];
  return {
    numFeatures: 3,
    numLabels: 2,
    rank,
    numLearners: 1,
    k: 1,
    weighted: false,
    clusters,
    ...over,
  };
}

Deno.test("knn-embedding rank: at most SLEEC's largest, 4096, in both readers, with or without points", () => {
  const most = SLEEC_SETTINGS.specs.rank.max;
  assert(most === 4096, `SLEEC's largest rank is ${most}: the SDK's limit (4096) must follow it`);
  const x = { indices: Int32Array.of(0), values: Float32Array.of(1) };
  for (const points of [false, true]) {
    const bytes = encodeModelFile(knnModelContent(knn(4096, points)));
    const sdk = loadModel(bytes).predictTopK(x, 2), trainer = SleecModel.fromModelFile(bytes);
    const want = points ? "1,0" : "0,1";
    assert(sdk.labels.join() === want, `SDK, rank 4096, points ${points}: ${sdk.labels}`);
    assert(
      trainer.predictTopK(x, 2).labels.join() === want,
      `trainer, rank 4096, points ${points}`,
    );
  }
  const message = 'param "rank" must be an integer in [1, 4096]';
  for (const rank of [4097, 2 ** 27, 2 ** 31, 2 ** 40]) {
    const bytes = encodeModelFile(knnModelContent(knn(rank, false)));
    corrupt(() => loadModel(bytes), message, `SDK, rank ${rank}`);
    const e = thrown(() => SleecModel.fromModelFile(bytes));
    assert(
      e instanceof RangeError && e.message.includes(`${message}, got ${rank}`),
      `trainer, rank ${rank}: ${e}`,
    );
  }
});

/**
 * `bytes` with the uint32 value of header entry `key` (written as 0xce, i.e. ≥ 65536) set to
 * `value`, and the CRC-32 redone: a file the writer would refuse.
 */
function declare(bytes: Uint8Array, key: string, value: number): Uint8Array {
  const out = bytes.slice(), tag = [0xa0 + key.length, ...new TextEncoder().encode(key), 0xce];
  const at = out.findIndex((_, i) => tag.every((b, j) => out[i + j] === b));
  assert(at > 0, `no uint32 ${key}`);
  const view = new DataView(out.buffer);
  view.setUint32(at + tag.length, value);
  view.setUint32(out.length - 4, crc32(out, 0, out.length - 11));
  return out;
}

/** A linear-sparse model without bias: D features, L labels, one weight. */
function sparse(D: number, L: number, tensors: ModelFileContent["tensors"] = {}): ModelFileContent {
  const featPtr = new Int32Array(D + 1).fill(1);
  featPtr[0] = 0;
  return {
    kind: "linear-sparse",
    numFeatures: D,
    numLabels: L,
    params: {},
    tensors: {
      featPtr: { dtype: "i32", shape: [D + 1], data: featPtr },
      labelIdx: { dtype: "i32", shape: [1], data: Int32Array.of(1) },
      weights: { dtype: "f32", shape: [1], data: Float32Array.of(0.5) },
      ...tensors,
    },
  };
}

Deno.test("numFeatures, numLabels: at most 2^24 or the file's length, in both readers and the writer", () => {
  const sdkMessage = "numFeatures, numLabels must be an integer in [0, 16777216]";
  const wide = 70000; // written as a uint32, then declared larger
  const files: [string, Uint8Array, string][] = [
    [
      "knn numLabels",
      encodeModelFile(knnModelContent(knn(2, false, { numLabels: wide }))),
      "numLabels",
    ],
    [
      "knn numFeatures",
      encodeModelFile(knnModelContent(knn(2, false, { numFeatures: wide }))),
      "numFeatures",
    ],
    ["sparse numLabels", encodeModelFile(sparse(1, wide)), "numLabels"],
  ];
  for (const [what, bytes, key] of files) {
    assert(bytes.length < 2000, `${what}: ${bytes.length} bytes`);
    loadModel(bytes); // as written: read
    for (const n of [2 ** 24 + 1, 2 ** 30, 2 ** 32 - 1]) {
      const big = declare(bytes, key, n);
      corrupt(() => loadModel(big), sdkMessage, `SDK, ${what} ${n}`);
      const part = `${key} ${n} is above 16777216, the most a file of ${big.length} bytes`;
      corrupt(() => decodeModelFile(big), part, `trainer reader, ${what} ${n}`);
      if (what.startsWith("knn")) {
        corrupt(() => SleecModel.fromModelFile(big), part, `SleecModel, ${what} ${n}`);
      }
    }
  }
  // 2^24 itself is read (decoded only: a scorer would reserve per-label scratch)
  const edge = declare(files[2][1], "numLabels", 2 ** 24);
  assert(decodeModel(edge).numLabels === 2 ** 24, "SDK: 2^24 labels");
  assert(decodeModelFile(edge).numLabels === 2 ** 24, "trainer reader: 2^24 labels");
  // the writer refuses what the readers refuse, naming the field and the limit
  const e = thrown(() => encodeModelFile(sparse(1, 2 ** 24 + 1)));
  assert(
    e instanceof RangeError &&
      e.message.includes("encodeModelFile: numLabels 16777217 is above 16777216"),
    `writer: ${e}`,
  );
});

Deno.test("numFeatures, numLabels past 2^24 are read from a file at least that many bytes long", () => {
  // a file of 2^24 + 56 bytes or so: the declared labels may reach its length
  const L = 2 ** 24 + 8;
  const pad = { dtype: "u8" as const, shape: [L], data: new Uint8Array(L) };
  const bytes = encodeModelFile(sparse(1, L, { pad }));
  assert(bytes.length > L, `${bytes.length} bytes`);
  assert(decodeModel(bytes).numLabels === L, "SDK");
  assert(decodeModelFile(bytes).numLabels === L, "trainer reader");
  corrupt(
    () => decodeModel(declare(bytes, "numLabels", bytes.length + 1)),
    `numFeatures, numLabels must be an integer in [0, ${bytes.length}]`,
    "SDK, one label past the length",
  );
  corrupt(
    () => decodeModelFile(declare(bytes, "numLabels", bytes.length + 1)),
    `numLabels ${bytes.length + 1} is above ${bytes.length}`,
    "trainer reader, one label past the length",
  );
});

const FIXTURES = ["linear-sparse", "linear-lowrank", "knn-embedding", "random-features"].map(
  (kind) => new URL(`../fixtures/v1/${kind}.tsm`, import.meta.url),
);

Deno.test("probes: an integer in [1, 2^32) for every kind, else a RangeError naming it", async () => {
  const message = "predictTopK: options.probes must be an integer in [1, 4294967295]";
  for (const url of FIXTURES) {
    const m = loadModel(await Deno.readFile(url)), x = { indices: [0, 1], values: [1, 0.5] };
    const exact = JSON.stringify(m.predictTopK(x, 3, { exact: true }));
    for (const probes of [1, 2, 2 ** 32 - 1]) {
      const top = m.predictTopK(x, 3, { probes });
      assert(top.labels.length === 3, `${m.kind}, probes ${probes}`);
    }
    assert(
      JSON.stringify(m.predictTopK(x, 3, { probes: 2 ** 32 - 1 })) === exact,
      `${m.kind}: every cluster probed is the exact answer`,
    );
    for (const probes of [NaN, "2", 0, -1, 1.5, Infinity, 2 ** 32, true]) {
      for (const exact of [undefined, true]) {
        const e = thrown(() => m.predictTopK(x, 3, { probes: probes as number, exact }));
        assert(
          e instanceof RangeError && e.message === `${message}, got ${String(probes)}`,
          `${m.kind}, probes ${String(probes)}, exact ${exact}: ${e}`,
        );
      }
    }
  }
});

Deno.test("probes on an indexed file: null or absent is the file's default, a bad value is refused", () => {
  // 400 random labels on 4 dimensions in 40 leaves, 2 probed by default
  const L = 400, r = 4, rand = mulberry32(5), g = () => rand() - 0.5;
  const content = withLabelIndex(
    {
      kind: "linear-lowrank",
      numFeatures: r,
      numLabels: L,
      params: { rank: r },
      tensors: {
        W: { dtype: "f32", shape: [r, r], data: Float32Array.from({ length: r * r }, g) },
        H: { dtype: "f32", shape: [L, r], data: Float32Array.from({ length: L * r }, g) },
      },
    },
    "H",
    { minLabels: 0, clusters: 40, probes: 2, seed: 3 },
  );
  const m = loadModel(encodeModelFile(content));
  assert(m.params.mipsProbes === 2, `mipsProbes ${m.params.mipsProbes}`);
  let differ = 0;
  for (let q = 0; q < 20; q++) {
    const x = { indices: [0, 1, 2, 3], values: [g(), g(), g(), g()] };
    const key = (o?: object) => JSON.stringify(m.predictTopK(x, 5, o));
    assert(key({ probes: null }) === key(), `query ${q}, probes null: not the default`);
    assert(key({ probes: 2 }) === key(), `query ${q}: probes 2 is the default`);
    assert(key({ probes: 40 }) === key({ exact: true }), `query ${q}, every leaf: not exact`);
    if (key({ probes: 1 }) !== key()) differ++; // null read as 1 probe, as it was, differs
    for (const probes of [NaN, "40", 0]) {
      const e = thrown(() => m.predictTopK(x, 5, { probes: probes as number }));
      assert(
        e instanceof RangeError && /options\.probes/.test(e.message),
        `probes ${probes}: ${e}`,
      );
    }
  }
  assert(differ > 0, "one probe answers every query as the default two");
});

Deno.test("probes over HTTP: the protocol has no such field, a 400 names it (never a 500)", async () => {
  const model = loadModel(await Deno.readFile(FIXTURES[1]));
  const handle = predictHandler({ get: () => Promise.resolve(model) });
  for (const probes of [2, "x", null, -1]) {
    const res = await handle(
      new Request("http://x/predict", {
        method: "POST",
        body: JSON.stringify({ indices: [0], k: 2, probes }),
      }),
    );
    const body = await res.json();
    assert(
      res.status === 400 && /unknown field "probes"/.test(body.error),
      `probes ${probes}: ${res.status} ${JSON.stringify(body)}`,
    );
  }
});
