// Row building, TF-IDF, L2 normalisation and vocabularies.
import { RowBuilder } from "../../src/data/sparse_row.ts";
import { TfIdf } from "../../src/data/tfidf.ts";
import { l2Normalized, l2NormalizeInPlace } from "../../src/data/normalize.ts";
import { Vocabulary } from "../../src/data/vocabulary.ts";
import { Rng } from "../../src/random/mod.ts";
import { assert, assertEquals, assertThrowsMsg } from "./helpers.ts";

Deno.test("RowBuilder: sorts, sums duplicates, drops zeros — against a Map on random input", () => {
  const rng = new Rng(3);
  const b = new RowBuilder();
  for (let t = 0; t < 200; t++) {
    const n = rng.nextInt(100);
    const want = new Map<number, number>();
    for (let k = 0; k < n; k++) {
      const j = rng.nextInt(30), v = rng.nextInt(5) - 2;
      b.push(j, v);
      want.set(j, (want.get(j) ?? 0) + v);
    }
    const exp = [...want].filter(([, v]) => v !== 0).sort((x, y) => x[0] - y[0]);
    const r = b.build();
    assertEquals(r.indices, exp.map(([j]) => j));
    assertEquals(r.values, exp.map(([, v]) => v));
    assert(b.length === 0, "cleared");
  }
});

Deno.test("TfIdf: JSON round trip, freeze, idf vector", async () => {
  const t = new TfIdf();
  t.apply({ indices: Int32Array.of(0, 2), values: Float32Array.of(1, 1) });
  t.apply({ indices: Int32Array.of(2), values: Float32Array.of(1) });
  const j = t.toJSON();
  assertEquals(j, { numDocs: 2, df: [1, 0, 2], fit: true });
  const u = TfIdf.fromJSON(j);
  assert(u.idf(0) === t.idf(0) && u.idf(7) === Math.fround(Math.log(3) + 1), "same statistics");
  u.freeze();
  u.apply({ indices: Int32Array.of(1), values: Float32Array.of(1) });
  assert(u.numDocs === 2 && !u.fitting, "frozen: not counted");
  assertEquals(t.idfVector(3), [Math.log(3 / 2) + 1, Math.log(3) + 1, 1].map(Math.fround));
  await assertThrowsMsg(
    () => TfIdf.fromJSON({ numDocs: 1, df: [2], fit: true }),
    TypeError,
    "expected {numDocs",
  );
});

Deno.test("l2: unit norm, zero rows unchanged, the copy leaves the input alone", () => {
  const z = Float32Array.of(0, 0);
  l2NormalizeInPlace(z);
  assertEquals(z, [0, 0]);
  const x = { indices: Int32Array.of(0, 1, 2), values: Float32Array.of(1, 2, 2) };
  const y = l2Normalized(x);
  assertEquals(y.values, [1 / 3, 2 / 3, 2 / 3].map(Math.fround));
  assertEquals(x.values, [1, 2, 2]);
  assert(y.indices === x.indices, "indices shared");
});

Deno.test("Vocabulary: stable ids, growth only when asked, maxSize, JSON round trip", async () => {
  const v = new Vocabulary(["a", "b"], 3);
  assert(v.idOf("c", false) === -1 && v.size === 2, "no growth without add");
  assert(v.idOf("c", true) === 2 && v.idOf("a", true) === 0, "ids");
  await assertThrowsMsg(() => v.idOf("d", true), RangeError, "Vocabulary is full");
  assert(v.nameOf(1) === "b" && v.nameOf(9) === undefined, "nameOf");
  const w = Vocabulary.fromJSON(v.toJSON());
  assertEquals(w.names, ["a", "b", "c"]);
  await assertThrowsMsg(() => new Vocabulary(["x", "x"]), RangeError, "duplicate name 'x'");
  await assertThrowsMsg(
    () => Vocabulary.fromJSON({ names: [1] as unknown as string[] }),
    TypeError,
    "expected {names",
  );
});
