// Feature hashing: MurmurHash3 reference values, UTF-8 keys, the hasher's documented mapping.
// (The hash is the SDK's `murmur3`, the one MurmurHash3 of the project, through sdk/internal.ts.)
import { hashBucket, hashIndex, hashName, hashSign } from "../../src/data/feature_hash.ts";
import { murmur3 } from "../../sdk/internal.ts";
import { FeatureHasher } from "../../src/data/hashing.ts";
import { assert, assertEquals, assertThrowsMsg } from "./helpers.ts";

const enc = new TextEncoder();

Deno.test("murmur3 matches the published MurmurHash3_x86_32 test vectors", () => {
  const vectors: [string, number, number][] = [
    ["", 0, 0],
    ["", 1, 0x514e28b7],
    ["", 0xffffffff, 0x81f16f39],
    ["\0\0\0\0", 0, 0x2362f9de],
    ["aaaa", 0x9747b28c, 0x5a97808a],
    ["a", 0x9747b28c, 0x7fa09ea6],
    ["abc", 0x9747b28c, 0xc84a62dd],
    ["Hello, world!", 0x9747b28c, 0x24884cba],
    ["The quick brown fox jumps over the lazy dog", 0x9747b28c, 0x2fa826cd],
  ];
  for (const [s, seed, want] of vectors) {
    assert(murmur3(enc.encode(s), seed) === want, `${JSON.stringify(s)} seed ${seed}`);
  }
  assert(murmur3(enc.encode("abcdef"), 3, 3) === murmur3(enc.encode("abc"), 3), "length");
  assert(murmur3(enc.encode("> abcdefg"), 3, 5, 2) === murmur3(enc.encode("abcde"), 3), "offset");
});

Deno.test("hashName encodes keys as UTF-8 like TextEncoder (accents, CJK, emoji, lone surrogates)", () => {
  for (const s of ["é", "naïve café", "東京", "🏷️tag", "a\ud800b", "x".repeat(1000)]) {
    assert(hashName(s, 17) === murmur3(enc.encode(s), 17), JSON.stringify(s));
  }
});

Deno.test("hashIndex equals hashName of the decimal text", () => {
  for (const j of [0, 1, 9, 10, 99, 100, 1836, 65535, 123456789, 2147483647]) {
    assert(hashIndex(j, 5) === hashName(String(j), 5), `index ${j}`);
  }
});

Deno.test("bucket and sign as documented; FeatureHasher validates and describes itself", async () => {
  assert(hashBucket(0xffffffff, 1000) === 4294967295 % 1000, "unsigned remainder");
  assert(hashSign(0x80000000) === -1 && hashSign(0x7fffffff) === 1, "bit 31");
  const h = new FeatureHasher({ dim: 1 << 10, seed: -1, signed: true });
  assertEquals(h.toJSON(), {
    type: "hashing",
    hash: "murmur3_x86_32",
    dim: 1024,
    seed: 4294967295,
    signed: true,
  });
  const raw = hashName("word", 4294967295);
  assertEquals(h.bucketOfName("word"), { index: raw % 1024, sign: raw >= 0x80000000 ? -1 : 1 });
  await assertThrowsMsg(() => new FeatureHasher({ dim: 0 }), RangeError, "dim must be an integer");
  await assertThrowsMsg(
    () => new FeatureHasher({ dim: 8, seed: 0.5 }),
    RangeError,
    "seed must be an integer",
  );
  // signed hashing of one feature keeps |value|, sign from the hash
  const r = h.hashNamed(["word"], [2]);
  assertEquals(r.indices, [raw % 1024]);
  assertEquals(r.values, [raw >= 0x80000000 ? -2 : 2]);
  await assertThrowsMsg(() => h.hashNamed(["a"], []), RangeError, "1 names but 0 values");
});

Deno.test("hashing cancels exactly-opposite collisions and keeps rows canonical", () => {
  // find two keys with the same bucket and opposite signs in dim 2
  const h = new FeatureHasher({ dim: 2, seed: 3, signed: true });
  const keys = Array.from({ length: 50 }, (_, i) => `k${i}`);
  const info = keys.map((k) => ({ k, ...h.bucketOfName(k) }));
  const a = info[0];
  const b = info.find((o) => o.index === a.index && o.sign === -a.sign)!;
  const r = h.hashNamed([a.k, b.k], [1, 1]);
  assert(r.indices.length === 0, "opposite signs cancel and the zero entry is dropped");
  const many = h.hashNamed(keys, keys.map(() => 1));
  assert(
    many.indices.length <= 2 && (many.indices.length < 2 || many.indices[0] < many.indices[1]),
    "sorted, merged",
  );
});
