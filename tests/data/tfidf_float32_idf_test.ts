// The trainer weighted a row by the float64 IDF, the model file stores it as float32 and the SDK
// weighs a query by that: the same value came out an ulp apart in some columns, so a model
// learned from rows the served model would weigh otherwise. idf(j) is now the stored float32.
import { TfIdf } from "../../src/data/tfidf.ts";
import { assertEquals } from "../helpers.ts";

Deno.test("TfIdf: rows are weighted by the float32 IDF the model file stores", () => {
  const D = 60;
  // document frequencies 1..60 of 97 documents: IDFs that are not float32 numbers
  const t = TfIdf.fromJSON({
    numDocs: 97,
    df: Array.from({ length: D }, (_, j) => j + 1),
    fit: false,
  });
  const stored = t.idfVector(D);
  const indices = Int32Array.from({ length: D }, (_, j) => j);
  let mismatches = 0, checked = 0;
  for (let r = 0; r < 50; r++) {
    const values = Float32Array.from(
      { length: D },
      (_, j) => 1 + ((r * 7919 + j * 104729) % 1000) / 997,
    );
    const w = t.apply({ indices, values }).values;
    for (let j = 0; j < D; j++) {
      checked++;
      if (w[j] !== Math.fround(values[j] * stored[j])) mismatches++;
    }
  }
  assertEquals({ checked, mismatches }, { checked: 50 * D, mismatches: 0 });
  for (let j = 0; j < D; j++) assertEquals(t.idf(j), stored[j]);
});
