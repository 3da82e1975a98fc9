/**
 * The SDK's feature hashing (sdk/features.ts, whose `murmur3` is the trainer's hash too) agrees
 * with the trainer's (src/data/feature_hash.ts, `FeatureHasher`): the same MurmurHash3 values,
 * the same columns and signs, colliding names added up and cancelled names dropped; and a model
 * trained on signed hashed rows, written with its hashing feature space (format version 2), gives
 * the trainer's scores in the SDK when queried with the raw named features.
 */
import { hashName } from "../../src/data/feature_hash.ts";
import { FeatureHasher } from "../../src/data/hashing.ts";
import type { SparseVector } from "../../src/data/types.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { BrEstimator, linearSparseContent, trainDcd } from "../../src/models/br/mod.ts";
import { featurizer, murmur3 } from "../../sdk/features.ts";
import { loadModel, type TopK } from "../../sdk/mod.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert, mulberry32 } from "./helpers.ts";

const NAMES = [
  "",
  "a",
  "ab",
  "abc",
  "abcd",
  "word:cat",
  "東京",
  "🏷️tag",
  "naïve café",
  "x".repeat(301),
];

/** MurmurHash3 x86 32, one byte at a time: the reference for the block-wise `murmur3`. */
function murmurReference(b: Uint8Array, seed: number): number {
  const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));
  let h = seed | 0, k = 0;
  for (let i = 0; i < b.length; i++) {
    k |= b[i] << (i & 3) * 8;
    if ((i & 3) === 3 || i === b.length - 1) {
      h ^= Math.imul(rotl(Math.imul(k, 0xcc9e2d51), 15), 0x1b873593);
      if ((i & 3) === 3) h = (Math.imul(rotl(h, 13), 5) + 0xe6546b64) | 0;
      k = 0;
    }
  }
  h ^= b.length;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

Deno.test("murmur3 = a byte-wise reference on names, random bytes of every length and sub-ranges; trainer hashName agrees", () => {
  const enc = new TextEncoder(), rand = mulberry32(5);
  for (const name of NAMES) {
    for (const seed of [0, 7, 0x9747b28c, 0xffffffff]) {
      assert(murmur3(enc.encode(name), seed) === hashName(name, seed), `${name} / ${seed}`);
      assert(murmur3(enc.encode(name), seed) === murmurReference(enc.encode(name), seed), name);
    }
  }
  for (let n = 0; n < 64; n++) {
    const b = Uint8Array.from({ length: n }, () => rand() * 256), seed = (rand() * 2 ** 32) >>> 0;
    assert(murmur3(b, seed) === murmurReference(b, seed), `${n} random bytes`);
    const at = Math.floor(rand() * (n + 1)), len = Math.floor(rand() * (n - at + 1));
    assert(
      murmur3(b, seed, len, at) === murmurReference(b.subarray(at, at + len), seed),
      `[${at}, ${at + len}) of ${n} random bytes`,
    );
  }
});

Deno.test("SDK hashing feature space = FeatureHasher: columns, signs, collisions, cancellations", () => {
  for (const signed of [false, true]) {
    const dim = 16, seed = 3;
    const hasher = new FeatureHasher({ dim, seed, signed });
    const rows = featurizer({
      kind: "linear-sparse",
      formatVersion: 2,
      numFeatures: dim,
      numLabels: 1,
      params: {},
      tensors: {},
      featureSpace: { type: "hashing", dim, seed, signed },
    });
    const names = [...NAMES, ...Array.from({ length: 40 }, (_, i) => `k${i}`)];
    const values = names.map((_, i) => (i % 5) - 2.5);
    const want = hasher.hashNamed(names, values); // 50 names in 16 columns: collisions
    const [indices, got] = rows(Object.fromEntries(names.map((n, i) => [n, values[i]])));
    assert(
      indices.join() === want.indices.join(),
      `signed ${signed}: ${indices} vs ${want.indices}`,
    );
    assert(got.join() === want.values.join(), `signed ${signed}: ${got} vs ${want.values}`);
    if (signed) {
      // two names in one column with opposite signs cancel: the trainer drops the entry, so does the SDK
      const info = names.map((n) => ({ n, ...hasher.bucketOfName(n) }));
      const a = info[0], b = info.find((o) => o.index === a.index && o.sign === -a.sign)!;
      assert(hasher.hashNamed([a.n, b.n], [1, 1]).indices.length === 0, "trainer cancels");
      assert(rows({ [a.n]: 1, [b.n]: 1 })[0].length === 0, "SDK cancels");
    }
  }
});

function same(a: TopK, b: TopK, what: string): void {
  assert(a.labels.join() === b.labels.join(), `${what}: labels ${a.labels} vs ${b.labels}`);
  assert(a.scores.join() === b.scores.join(), `${what}: scores ${a.scores} vs ${b.scores}`);
}

Deno.test("signed hashing end to end: trainer rows → BR → file (version 2) → SDK on named features", () => {
  const data = plantedData(240, 8, 3), dim = 32, seed = 11;
  const hasher = new FeatureHasher({ dim, seed, signed: true });
  const named = (x: SparseVector) => [...x.indices].map((j) => `feature-${j}`);
  const rows = data.rows.map((r) => ({
    x: hasher.hashNamed(named(r.x), r.x.values),
    labels: r.labels,
  }));
  const batch = makeBatch(rows, dim, data.numLabels);
  const weights = trainDcd(batch.x, batch.y, { C: 1 });
  const trainer = BrEstimator.fromLabelWeights(weights);
  const content = linearSparseContent(weights);
  content.featureSpace = { type: "hashing", dim, seed, signed: true };
  const file = encodeModelFile(content);
  const sdk = loadModel(file);
  assert(sdk.formatVersion === 2 && file[1 + 16 + 14] === 2, `version ${sdk.formatVersion}`);
  // the same file read as unsigned hashing answers differently: the signs matter
  const unsigned = loadModel(
    encodeModelFile({ ...content, featureSpace: { type: "hashing", dim, seed } }),
  );
  let negative = 0, differs = 0;
  data.rows.forEach((r, i) => {
    const record = Object.fromEntries(named(r.x).map((n, p) => [n, r.x.values[p]]));
    const want = trainer.predictTopK(rows[i].x, 5);
    same(sdk.predictTopK(record, 5), want, `row ${i}`);
    if (rows[i].x.values.some((v) => v < 0)) negative++;
    if (unsigned.predictTopK(record, 5).scores.join() !== want.scores.join()) differs++;
  });
  assert(
    negative > 100 && differs > 100,
    `${negative} rows with negated features, ${differs} differ`,
  );
});
