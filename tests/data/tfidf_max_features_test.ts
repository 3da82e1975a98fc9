/**
 * TF-IDF statistics keep their bound on feature indices: a checkpoint (`toJSON`/`fromJSON`) of a
 * `TfIdf` with a `maxFeatures` other than the default restores with it (it used to come back
 * with the default 2^24: refusing its own counts past 2^24, or accepting indices it refused),
 * and `inverseDocumentFrequency` counts every column of its matrix (it used to refuse a column
 * at or past 2^24 naming a `maxFeatures` its caller never set).
 */
import { TfIdf } from "../../src/data/tfidf.ts";
import { inverseDocumentFrequency } from "../../src/data/inverse_document_frequency.ts";

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}

const row = (...indices: number[]) => ({
  indices: Int32Array.from(indices),
  values: new Float32Array(indices.length).fill(1),
});

Deno.test("TfIdf.fromJSON restores maxFeatures: counts past 2^24 round-trip", () => {
  const big = 2 ** 24 + 3, t = new TfIdf({ maxFeatures: 2 ** 25 });
  t.observe(row(0, big));
  t.observe(row(big));
  const u = TfIdf.fromJSON(t.toJSON());
  assert(u.maxFeatures === 2 ** 25, `maxFeatures ${u.maxFeatures}`);
  assert(u.idf(big) === t.idf(big) && u.idf(0) === t.idf(0), "the same statistics");
  u.observe(row(big + 1)); // still within its bound
  assert(u.numDocs === 3, `${u.numDocs} rows`);
});

Deno.test("TfIdf.fromJSON restores maxFeatures: a smaller bound still refuses indices", () => {
  const t = new TfIdf({ maxFeatures: 10 });
  t.observe(row(9));
  const u = TfIdf.fromJSON(t.toJSON());
  let e: unknown;
  try {
    u.observe(row(12));
  } catch (err) {
    e = err;
  }
  assert(
    e instanceof RangeError && e.message.includes("[0, 10)"),
    `feature 12 of a TfIdf bounded by 10: ${e ?? "accepted"}`,
  );
  // (the default bound is not written: older checkpoints read the same)
  assert(!("maxFeatures" in new TfIdf().toJSON()), "default bound written");
  assert(TfIdf.fromJSON({ numDocs: 1, df: [1], fit: false }).maxFeatures === 2 ** 24, "default");
});

Deno.test("inverseDocumentFrequency counts every column of its matrix, past 2^24 too", () => {
  const D = 2 ** 24 + 2, j = D - 1;
  const x = {
    numRows: 2,
    numCols: D,
    indptr: Int32Array.of(0, 1, 3),
    indices: Int32Array.of(j, 0, j),
    values: Float32Array.of(1, 1, 1),
  };
  const idf = inverseDocumentFrequency(x);
  // column j is in both rows (idf 1), column 0 in one of two, column 1 in none
  assert(idf.length === D, `${idf.length} weights`);
  assert(idf[j] === 1, `idf of column ${j}: ${idf[j]}`);
  assert(idf[0] === Math.fround(Math.log(3 / 2) + 1), `idf of column 0: ${idf[0]}`);
  assert(idf[1] === Math.fround(Math.log(3) + 1), `idf of column 1: ${idf[1]}`);
});
