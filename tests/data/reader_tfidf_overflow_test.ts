// readExamples with tfidf and l2: a raw value near the float32 maximum times an IDF above 1 is
// Infinity in float32, and the L2 normalisation of such a row left the Infinity in place: the
// reader delivered a row of Infinity (a model refused it, naming a batch row, not the line),
// while the model file's preprocessing and the SDK scale such a row by a power of two first
// (src/data/tfidf_overflow.ts) and answer by its direction. The reader does the same now.
import { preprocessRows } from "../../src/data/preprocess.ts";
import { assert, assertEquals, readAll } from "./helpers.ts";

const TEXT = "3 2 1\n0 1:1\n0 1:1\n0 0:3e38 1:1\n";

Deno.test("readExamples tfidf + l2: a row whose weighted values overflow float32 is a unit row", async () => {
  const r = await readAll([TEXT], { name: "x.txt", tfidf: true, l2: true });
  assertEquals(r.error, undefined);
  assertEquals(r.rows.length, 3);
  const last = r.rows[2].x;
  assert([...last.values].every(Number.isFinite), `values ${[...last.values]}`);
  const norm = Math.hypot(...last.values);
  assert(Math.abs(norm - 1) < 1e-6, `norm ${norm}`);
  // the same direction as the model file's preprocessing gives (the IDF after the last row)
  const pre = preprocessRows({
    numRows: 1,
    numCols: 2,
    indptr: Int32Array.of(0, 2),
    indices: Int32Array.of(0, 1),
    values: Float32Array.of(3e38, 1),
  }, { tfidf: true, l2Normalize: true, idf: r.reader.tfidf!.idfVector(2) });
  assertEquals([...last.indices], [0, 1]);
  assert(Math.abs(last.values[0] - pre.values[0]) < 1e-6, `${last.values[0]} vs ${pre.values[0]}`);
  assert(last.values[1] > 0 && last.values[1] < 1e-30, `${last.values[1]}`);
  // the rows before it are weighted as always
  assertEquals([...r.rows[0].x.values], [1]);
});
