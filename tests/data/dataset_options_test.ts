// Whole-file loading, batching and TF-IDF at the boundary: LoadOptions' keys and values are
// checked before anything is read, batchesOf checks when called (not at the first batch),
// examplesToBatch refuses a NaN size or a missing array, TfIdf.idf a negative column.
import { batchesOf, loadDataset, loadXcBytes, loadXcFile } from "../../src/data/dataset.ts";
import { examplesToBatch } from "../../src/data/batcher.ts";
import { TfIdf } from "../../src/data/tfidf.ts";
import { assertEquals, assertThrowsMsg, bytes, withTempDir } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
const loose = (v: unknown): any => v;
const TOY = "2 3 2\n0 0:1\n1 2:1\n";

Deno.test("loadXcBytes, loadXcFile: unknown keys and bad values are refused", async () => {
  await assertThrowsMsg(
    () => loadXcBytes(bytes(TOY), "t.txt", loose({ onErrors: "skip" })),
    TypeError,
    'loadXcBytes: unknown option "onErrors" (known: onError, format, featureIndexBase)',
  );
  await assertThrowsMsg(
    () => loadXcBytes(bytes(TOY), "t.txt", { format: "libsvm", featureIndexBase: -1 }),
    RangeError,
    "loadXcBytes: option featureIndexBase must be an integer in [0, 2147483647], got -1",
  );
  await withTempDir(async (dir) => {
    const path = `${dir}/t.txt`;
    await Deno.writeTextFile(path, TOY);
    // refused before the file is opened (the resource sanitizer sees no open file)
    await assertThrowsMsg(
      () => loadXcFile(path, loose({ fromat: "libsvm" })),
      TypeError,
      'loadXcFile: unknown option "fromat"',
    );
    await assertThrowsMsg(
      () => loadXcFile(path, loose({ format: "csv" })),
      TypeError,
      "loadXcFile: unknown format 'csv' (expected xc or libsvm)",
    );
    assertEquals((await loadXcFile(path, { format: "xc", onError: "fail" })).x.numRows, 2);
  });
  assertEquals(loadXcBytes(bytes(TOY), "t.txt", { onError: "skip" }).x.numRows, 2);
});

Deno.test("loadDataset: dataDir and name must be non-empty strings", async () => {
  await assertThrowsMsg(
    () => loadDataset(loose(undefined), "toy", "train"),
    TypeError,
    "loadDataset: dataDir must be a non-empty string, got undefined",
  );
  await assertThrowsMsg(
    () => loadDataset("/tmp", "", "test"),
    TypeError,
    'loadDataset: name must be a non-empty string, got ""',
  );
});

Deno.test("batchesOf: checked when called, not at the first batch", async () => {
  const ds = loadXcBytes(bytes(TOY), "t.txt");
  for (const size of [0, -1, 1.5, NaN, Infinity]) {
    await assertThrowsMsg(
      () => batchesOf(ds, size),
      RangeError,
      `batchesOf: option batchSize must be an integer in [1, 2147483647], got ${size}`,
    );
  }
  await assertThrowsMsg(() => batchesOf(ds, loose("2")), TypeError, "batchSize");
  await assertThrowsMsg(() => batchesOf(ds, loose(undefined)), TypeError, "batchSize is required");
  await assertThrowsMsg(
    () => batchesOf(loose(undefined), 2),
    TypeError,
    "batchesOf: expected a dataset with CSR x and y, got undefined",
  );
  assertEquals([...batchesOf(ds, 1)].map((b) => b.x.numRows), [1, 1]);
});

Deno.test("examplesToBatch: NaN sizes and a missing array are refused", async () => {
  const e = {
    x: { indices: Int32Array.of(1), values: Float32Array.of(1) },
    labels: Int32Array.of(0),
  };
  await assertThrowsMsg(
    () => examplesToBatch([e], NaN, 2),
    RangeError,
    "examplesToBatch: option numFeatures must be an integer in [0, 2147483647], got NaN",
  );
  await assertThrowsMsg(() => examplesToBatch([e], 2, -1), RangeError, "numLabels");
  await assertThrowsMsg(() => examplesToBatch([e], loose("4"), 2), TypeError, "numFeatures");
  await assertThrowsMsg(
    () => examplesToBatch(loose(undefined), 2, 2),
    TypeError,
    "examplesToBatch: examples must be an array of examples, got undefined",
  );
  const b = examplesToBatch([e], 0, 0);
  assertEquals([b.x.numCols, b.y.numCols], [2, 1]);
});

Deno.test("TfIdf.idf: a negative or fractional column is a RangeError, not NaN", async () => {
  const t = TfIdf.fromJSON({ numDocs: 1, df: [1], fit: false });
  for (const j of [-1, 0.5, NaN]) {
    await assertThrowsMsg(
      () => t.idf(j),
      RangeError,
      `TfIdf.idf: column ${j} is not a non-negative integer`,
    );
  }
  await assertThrowsMsg(
    () => t.apply({ indices: Int32Array.of(-1), values: Float32Array.of(1) }),
    RangeError,
    "column -1",
  );
  assertEquals([t.idf(0), t.idf(9)], [1, Math.fround(Math.log(2) + 1)]);
});
