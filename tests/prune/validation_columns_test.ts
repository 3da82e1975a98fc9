// Validation rows with columns the model does not have (a --valid or test file of a wider
// feature space, a state directory's model that never saw the last columns): the SDK drops them
// before TF-IDF and L2 normalisation, but POP normalised the rows with them, so it validated
// (and reported) scores the model never gives — here PSP@1 0 instead of 100, which let the
// search cut anything.
import { pruneModel } from "../../src/prune/prune_model.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { PspAtK } from "../../src/metrics/psp.ts";
import { runPrune } from "../../src/cli/prune.ts";
import { loadModel } from "../../sdk/mod.ts";
import { assertEquals, withTempDir } from "../helpers.ts";

// D = 2: label 0 ← feature 0; label 1 has only a bias, which beats a down-scaled feature 0
const weights = {
  numFeatures: 2,
  numLabels: 2,
  labelPtr: Int32Array.of(0, 1, 1),
  featIdx: Int32Array.of(0),
  values: Float32Array.of(1),
  bias: Float32Array.of(0, 0.5),
};
const props = Float64Array.of(0.5, 0.5);

/** Rows: feature 0 = 1 and column 5 (unknown to the model) = 10; true label 0. */
const wideRows = (n: number) => ({
  x: {
    numRows: n,
    numCols: 6,
    indptr: Int32Array.from({ length: n + 1 }, (_, i) => 2 * i),
    indices: Int32Array.from({ length: 2 * n }, (_, p) => (p % 2 ? 5 : 0)),
    values: Float32Array.from({ length: 2 * n }, (_, p) => (p % 2 ? 10 : 1)),
  },
  y: {
    numRows: n,
    numCols: 2,
    indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
    indices: new Int32Array(n),
  },
});

/** PSP@1 of the SDK's answers on the rows. */
function sdkPsp1(file: Uint8Array, rows: ReturnType<typeof wideRows>): number {
  const m = loadModel(file), psp = new PspAtK(props, [1]);
  for (let i = 0; i < rows.x.numRows; i++) {
    const [s, e] = [rows.x.indptr[i], rows.x.indptr[i + 1]];
    const top = m.predictTopK({
      indices: rows.x.indices.subarray(s, e),
      values: rows.x.values.subarray(s, e),
    }, 1);
    psp.add(top.labels, rows.y.indices.subarray(rows.y.indptr[i], rows.y.indptr[i + 1]));
  }
  return psp.result()["PSP@1"];
}

Deno.test("pruneModel validates on the columns the model scores, as the SDK does", () => {
  const idf = Float32Array.of(2, 3);
  for (const preprocess of [{ l2Normalize: true }, { tfidf: true, l2Normalize: true, idf }]) {
    const content = linearSparseContent(weights, { preprocess });
    const file = encodeModelFile(content);
    const rows = wideRows(3);
    const sdk = sdkPsp1(file, rows);
    assertEquals(sdk, 100);
    const r = pruneModel(content, rows, [3, 1], props, { delta: 1, ks: [1] }, file);
    assertEquals(r.search.baseline, [sdk], JSON.stringify(Object.keys(preprocess)));
    assertEquals(r.stored, [sdk]);
  }
});

Deno.test("deno task prune --test scores the test rows on the model's columns, as the SDK does", async () => {
  await withTempDir(async (dir) => {
    const file = encodeModelFile(
      linearSparseContent(weights, { preprocess: { l2Normalize: true } }),
    );
    await Deno.writeFile(`${dir}/m.tsm`, file);
    // training rows within the model's 2 features; test rows with the unknown column 5
    const train = ["0 0:1", "1 1:1", "0 0:1", "1 1:1", "0 0:1"];
    await Deno.writeTextFile(`${dir}/toy.train.txt`, `5 2 2\n${train.join("\n")}\n`);
    await Deno.writeTextFile(`${dir}/toy.test.txt`, "2 6 2\n0 0:1 5:10\n0 0:1 5:10\n");
    const s = await runPrune({
      dataset: "toy",
      dataDir: dir,
      model: `${dir}/m.tsm`,
      out: `${dir}/m.pop.tsm`,
      plot: false,
      test: true,
      delta: 1,
      ks: [1],
      valFraction: 0.4,
      onMessage: () => {},
    });
    assertEquals(s.testBaseline, [100]);
    assertEquals(s.testPruned, [100]);
  });
});
