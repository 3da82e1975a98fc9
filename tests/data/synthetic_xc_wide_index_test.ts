// syntheticXcStream sized each line's room at 16 bytes a pair, but ` 2147483646:0.1234` takes
// 18: with feature indices of 9 or 10 digits a long row could run past its buffer, whose bytes
// a typed array drops without a word, so lines ran together and the text no longer parsed.
import { SyntheticGenerator, syntheticXcStream } from "../../src/data/synthetic.ts";
import { loadXcBytes } from "../../src/data/dataset_load.ts";
import { assert, assertEquals } from "../helpers.ts";

Deno.test("synthetic XC text with 10-digit feature indices parses back to the generated rows", async () => {
  const opts = {
    rows: 12,
    numFeatures: 2_000_000_000,
    numLabels: 10,
    avgNnz: 3000,
    noise: 1,
    seed: 1,
  };
  for (const chunkBytes of [100, 4096]) {
    const bytes = new Uint8Array(
      await new Response(syntheticXcStream(opts, chunkBytes)).arrayBuffer(),
    );
    const ds = loadXcBytes(bytes, "wide.txt");
    assertEquals(ds.x.numRows, opts.rows, `rows parsed back (chunks of ${chunkBytes})`);
    const g = new SyntheticGenerator(opts);
    for (let i = 0; i < opts.rows; i++) {
      const e = g.next();
      const a = ds.x.indptr[i], b = ds.x.indptr[i + 1];
      assertEquals(ds.x.indices.subarray(a, b), e.x.indices, `features of row ${i}`);
      assertEquals(ds.y.indices.subarray(ds.y.indptr[i], ds.y.indptr[i + 1]), e.labels);
      assert(e.x.indices.some((j) => j >= 1e9), "the row has 10-digit indices");
    }
  }
});
