import {
  batchesOf,
  concatRows,
  labelCounts,
  labelsOf,
  loadDataset,
  loadNames,
  loadXcBytes,
  loadXcFile,
  rowView,
  splitRows,
  subsetRows,
} from "../../src/data/dataset.ts";
import { resolveDataDir } from "../../src/data/data_dir.ts";
import { assert, assertEquals, assertThrowsMsg, bytes, DATA_DIR, HAS_DATA } from "./helpers.ts";

const STATS: Record<string, [number, number, number, number, number, number, number]> = {
  // name: N train, N test, D, L, positives train, positives test, avg nnz train * 100
  bibtex: [4880, 2515, 1836, 159, 11616, 6146, 6849],
  delicious: [12920, 3185, 500, 983, 246088, 60229, 1854],
  yeast: [1500, 917, 103, 14, 6342, 3899, 10300],
  scene: [1211, 1196, 294, 6, 1286, 1299, 29051],
  emotions: [391, 202, 72, 6, 709, 399, 7176],
};

Deno.test({
  name: "loadDataset: real files match the data README statistics",
  ignore: !HAS_DATA,
  async fn() {
    for (const [name, [ntr, nte, d, l, ptr, pte, nnz]] of Object.entries(STATS)) {
      const tr = await loadDataset(DATA_DIR, name, "train");
      const te = await loadDataset(DATA_DIR, name, "test");
      assertEquals([tr.x.numRows, te.x.numRows], [ntr, nte], name);
      assertEquals([tr.numFeatures, tr.numLabels, te.numFeatures, te.numLabels], [d, l, d, l]);
      assertEquals([tr.y.indices.length, te.y.indices.length], [ptr, pte], name);
      assertEquals(Math.round((tr.x.indices.length / tr.x.numRows) * 100), nnz, name);
      assertEquals(tr.name, name);
      const labels = await loadNames(DATA_DIR, name, "labels");
      const feats = await loadNames(DATA_DIR, name, "features");
      assertEquals([labels.length, feats.length], [l, d], name);
    }
    const del = await loadDataset(DATA_DIR, "delicious", "train");
    let empty = 0;
    for (let i = 0; i < del.y.numRows; i++) if (labelsOf(del.y, i).length === 0) empty++;
    assertEquals(empty, 10, "delicious rows without labels");
    assertEquals((await loadNames(DATA_DIR, "delicious", "labels"))[612], "TAG_m\\'usica");
  },
});

Deno.test({
  name: "loadXcFile: values equal an independent parseFloat parse (scene, real-valued)",
  ignore: !HAS_DATA,
  async fn() {
    const ds = await loadXcFile(`${DATA_DIR}/scene.test.txt`);
    const lines = (await Deno.readTextFile(`${DATA_DIR}/scene.test.txt`)).split("\n");
    for (const i of [0, 1, 500, 1195]) {
      const toks = lines[i + 1].split(" ").slice(1);
      const r = rowView(ds.x, i);
      assertEquals(r.indices.length, toks.length);
      toks.forEach((t, k) => {
        const [f, v] = t.split(":");
        assertEquals([r.indices[k], r.values[k]], [Number(f), Math.fround(parseFloat(v))]);
      });
    }
  },
});

Deno.test("loadXcBytes: inline rows, empty labels, empty features, exotic numbers", () => {
  const ds = loadXcBytes(
    bytes("4 5 3\n0,2 1:1 4:-0.25\n 0:2\n1 \n2 3:1e-2 4:1234567890.1234567\n"),
    "t",
  );
  assertEquals(ds.x.indptr, [0, 2, 3, 3, 5]);
  assertEquals(ds.x.indices, [1, 4, 0, 3, 4]);
  assertEquals(ds.x.values, [1, -0.25, 2, Math.fround(0.01), Math.fround(1234567890.1234567)]);
  assertEquals(ds.y.indptr, [0, 2, 2, 3, 4]);
  assertEquals(ds.y.indices, [0, 2, 1, 2]);
  assertEquals(ds.name, "t");
});

Deno.test("loadXcBytes: error messages name line and field", async () => {
  const cases: [string, new (...a: never[]) => Error, string][] = [
    [
      "2 3 2\n0 1:1\n0 3:1\n",
      RangeError,
      "line 3 of x.txt: feature index 3 is out of range [0, 3)",
    ],
    ["1 3 2\n2 1:1\n", RangeError, "line 2 of x.txt: label index 2 is out of range [0, 2)"],
    ["1 3 2\n0 1:NaN\n", RangeError, "line 2 of x.txt: value 'NaN' of feature 1 is not a finite"],
    ["1 3 2\n0 1:inf\n", RangeError, "value 'inf' of feature 1 is not a finite number"],
    ["1 3 2\n0 1:1e99\n", RangeError, "not a finite 32-bit float"],
    ["1 3 2\n0 1:abc\n", SyntaxError, "value 'abc' of feature 1 is not a number"],
    ["1 3 2\n0 1\n", SyntaxError, "line 2 of x.txt: missing ':' after feature index 1"],
    ["1 3 2\n0 1:\n", SyntaxError, "missing value after '1:'"],
    [
      "1 3 2\n0 2:1 1:1\n",
      RangeError,
      "feature indices must be strictly increasing: 1 comes after 2",
    ],
    ["1 3 2\n1,0 1:1\n", RangeError, "label indices must be strictly increasing: 0 comes after 1"],
    ["1 3 2\n0:1 1:1\n", SyntaxError, "a row with no labels must start with a space"],
    ["1 3 2\n0 1:1\n0 2:1\n", RangeError, "line 3 of x.txt: more rows than the 1 declared"],
    [
      "3 3 2\n0 1:1\n",
      RangeError,
      "line 3 of x.txt: unexpected end of input after 1 rows, the header declares 3",
    ],
    ["0 1:1\n", SyntaxError, "line 1 of x.txt: expected the header 'N D L'"],
    ["2 3 2\n\n0 1:1\n", SyntaxError, "line 2 of x.txt: empty line"],
  ];
  for (const [text, cls, msg] of cases) {
    await assertThrowsMsg(() => loadXcBytes(bytes(text), "x.txt"), cls, msg);
  }
});

Deno.test("loadXcBytes: skip mode counts bad lines and keeps good ones", () => {
  const ds = loadXcBytes(bytes("4 3 2\n0 1:1\n0 9:1\n1 2:x\n1 0:1\n"), "x.txt", {
    onError: "skip",
  });
  assertEquals(ds.x.numRows, 2);
  assertEquals(ds.x.indices, [1, 0]);
  assertEquals([ds.report.accepted, ds.report.skipped], [2, 2]);
  assertEquals(ds.report.errors.map((e) => e.line), [3, 4]);
  assert(ds.report.errors[0].message.includes("feature index 9 is out of range [0, 3)"));
  const short = loadXcBytes(bytes("5 3 2\n0 1:1\n"), "s.txt", { onError: "skip" });
  assertEquals(short.x.numRows, 1);
  assert(short.report.errors[0].message.includes("header declares 5"));
});

Deno.test("loadXcFile: gzip detected by magic bytes; truncated gzip names the file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const text = "2 3 2\n0 1:1\n1 0:0.5 2:2\n";
    const gz = new Uint8Array(
      await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")))
        .arrayBuffer(),
    );
    await Deno.writeFile(`${dir}/a.txt.gz`, gz);
    const ds = await loadXcFile(`${dir}/a.txt.gz`);
    assertEquals(ds.x.values, [1, 0.5, 2]);
    assertEquals(ds.name, "a");
    await Deno.writeFile(`${dir}/b.txt.gz`, gz.subarray(0, gz.length - 6));
    await assertThrowsMsg(
      () => loadXcFile(`${dir}/b.txt.gz`),
      TypeError,
      "Cannot parse line 4 of b.txt.gz: truncated or corrupt gzip",
    );
    await assertThrowsMsg(() => loadXcFile(`${dir}/none.txt`), TypeError, "no such file");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("row views, subsets, splits, concat, batches, label counts", async () => {
  const ds = loadXcBytes(bytes("5 4 3\n0 0:1\n1 1:2\n0,2 2:3 3:4\n 0:5\n2 3:6\n"), "t");
  const r = rowView(ds.x, 2);
  assertEquals([r.indices, r.values], [[2, 3], [3, 4]]);
  assert(r.indices.buffer === ds.x.indices.buffer, "rowView is a view");
  assertEquals(labelsOf(ds.y, 3), []);
  assertEquals(labelCounts(ds.y), [2, 1, 2]);
  const s = subsetRows(ds, [4, 2, 4]);
  assertEquals(s.x.indptr, [0, 1, 3, 4]);
  assertEquals(s.x.values, [6, 3, 4, 6]);
  assertEquals(s.y.indices, [2, 0, 2, 2]);
  const { train, valid } = splitRows(ds, 0.4, 7);
  assertEquals([train.x.numRows, valid.x.numRows], [3, 2]);
  const again = splitRows(ds, 0.4, 7);
  assertEquals(again.valid.x.values, valid.x.values);
  const all = [...train.x.values, ...valid.x.values].sort();
  assertEquals(all, [1, 2, 3, 4, 5, 6]);
  const seeds = new Set(
    [1, 2, 3, 4, 5, 6, 8].map((k) => splitRows(ds, 0.4, k).valid.x.values.join()),
  );
  assert(seeds.size > 1, "different seeds give different splits");
  const c = concatRows(train, valid);
  assertEquals([c.x.numRows, c.x.indices.length, c.y.indices.length], [5, 6, 5]);
  const batches = [...batchesOf(ds, 2)];
  assertEquals(batches.map((b) => b.x.numRows), [2, 2, 1]);
  assertEquals(batches[1].x.indptr, [0, 2, 3]);
  assertEquals(batches[1].x.values, [3, 4, 5]);
  assertEquals(batches[2].y.indptr, [0, 1]);
  assertEquals(batches[2].y.indices, [2]);
  await assertThrowsMsg(
    () => subsetRows(ds, [5]),
    RangeError,
    "row 5 (position 0) is out of range [0, 5)",
  );
});

Deno.test("resolveDataDir: flag, then $TAGSTREAM_DATA, then ./data", () => {
  const old = Deno.env.get("TAGSTREAM_DATA");
  try {
    Deno.env.set("TAGSTREAM_DATA", "/env/dir");
    assertEquals(resolveDataDir("/flag"), "/flag");
    assertEquals(resolveDataDir(), "/env/dir");
    Deno.env.delete("TAGSTREAM_DATA");
    assertEquals(resolveDataDir(), "./data");
  } finally {
    if (old !== undefined) Deno.env.set("TAGSTREAM_DATA", old);
  }
});
