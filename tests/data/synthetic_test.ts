// The synthetic generator: determinism, power-law labels, planted structure, XC text output.
import {
  resolveSyntheticOptions,
  syntheticExamples,
  SyntheticGenerator,
  syntheticXcStream,
  writeSyntheticXc,
} from "../../src/data/synthetic.ts";
import { loadXcBytes, loadXcFile } from "../../src/data/dataset.ts";
import { assert, assertEquals, assertThrowsMsg } from "./helpers.ts";

Deno.test("synthetic: same seed, same rows; another seed, other rows; rows are valid", () => {
  const a = [...syntheticExamples({ rows: 200, seed: 9 })];
  const b = [...syntheticExamples({ rows: 200, seed: 9 })];
  const c = [...syntheticExamples({ rows: 200, seed: 10 })];
  const key = (rows: typeof a) =>
    rows.map((e) => `${e.labels}|${e.x.indices}|${e.x.values}`).join("\n");
  assert(key(a) === key(b), "deterministic");
  assert(key(a) !== key(c), "seed matters");
  for (const e of a) {
    assert(e.labels.length >= 1, "at least one label");
    for (let k = 1; k < e.labels.length; k++) {
      assert(e.labels[k] > e.labels[k - 1], "labels increasing");
    }
    for (let k = 1; k < e.x.indices.length; k++) {
      assert(e.x.indices[k] > e.x.indices[k - 1], "features increasing");
    }
    assert(
      e.x.indices.every((j) => j >= 0 && j < 2000) && e.labels.every((l) => l < 100),
      "in range",
    );
    const norm = Math.hypot(...e.x.values);
    assert(Math.abs(norm - 1) < 1e-5, `unit norm ${norm}`);
  }
  assertEquals(a.map((e) => e.line).slice(0, 3), [1, 2, 3]);
});

Deno.test("synthetic: averages follow avgNnz and avgLabels; label frequencies follow a power law", () => {
  const n = 6000;
  const rows = [
    ...syntheticExamples({ rows: n, numLabels: 100, avgLabels: 3, avgNnz: 20, seed: 1 }),
  ];
  const meanLabels = rows.reduce((s, e) => s + e.labels.length, 0) / n;
  const meanNnz = rows.reduce((s, e) => s + e.x.indices.length, 0) / n;
  assert(Math.abs(meanLabels - 3) < 0.3, `mean labels ${meanLabels}`);
  assert(meanNnz > 12 && meanNnz <= 20, `mean nnz ${meanNnz} (draws 20, duplicates merged)`);
  const count = new Float64Array(100);
  for (const e of rows) for (const l of e.labels) count[l]++;
  const head = count.slice(0, 10).reduce((a, b) => a + b, 0);
  const tail = count.slice(50).reduce((a, b) => a + b, 0);
  assert(head > 2 * tail, `head ${head} vs tail ${tail}: heavy head`);
  assert(count[0] > 5 * count[60], `label 0 ${count[0]} vs label 60 ${count[60]}`);
  const flat = [...syntheticExamples({ rows: 3000, numLabels: 20, labelExponent: 0, seed: 1 })];
  const fc = new Float64Array(20);
  for (const e of flat) for (const l of e.labels) fc[l]++;
  assert(Math.max(...fc) < 2 * Math.min(...fc), `exponent 0 is near uniform: ${fc}`);
});

Deno.test("synthetic: planted structure — features come from the labels' prototypes, labels cluster by topic", () => {
  const g = new SyntheticGenerator({ rows: 3000, noise: 0.2, seed: 4 });
  const F = g.options.featuresPerLabel;
  let inProto = 0, total = 0, sameTopic = 0, pairs = 0;
  for (let r = 0; r < 3000; r++) {
    const e = g.next();
    const proto = new Set<number>();
    for (const l of e.labels) for (let k = 0; k < F; k++) proto.add(g.prototypes[l * F + k]);
    for (const j of e.x.indices) if (proto.has(j)) inProto++;
    total += e.x.indices.length;
    for (let a = 0; a < e.labels.length; a++) {
      for (let b = a + 1; b < e.labels.length; b++) {
        pairs++;
        if (g.topicOf[e.labels[a]] === g.topicOf[e.labels[b]]) sameTopic++;
      }
    }
  }
  assert(inProto / total > 0.75, `share of features in prototypes ${inProto / total}`);
  // 10 topics: by chance about 1/10 of label pairs would share a topic
  assert(sameTopic / pairs > 0.4, `label pairs sharing a topic ${sameTopic / pairs}`);
});

Deno.test("synthetic: bad options are RangeErrors naming the option", async () => {
  await assertThrowsMsg(
    () => resolveSyntheticOptions({ numLabels: 0 }),
    RangeError,
    "numLabels must be a positive integer",
  );
  await assertThrowsMsg(
    () => resolveSyntheticOptions({ avgLabels: 50, numLabels: 10 }),
    RangeError,
    "avgLabels must be in [1, numLabels]",
  );
  await assertThrowsMsg(
    () => resolveSyntheticOptions({ noise: 2 }),
    RangeError,
    "noise must be in [0, 1]",
  );
  await assertThrowsMsg(
    () => resolveSyntheticOptions({ rows: 1.5 }),
    RangeError,
    "rows must be an integer in [0, 2^31)",
  );
  await assertThrowsMsg(
    () => resolveSyntheticOptions({ featuresPerLabel: 99, numFeatures: 10 }),
    RangeError,
    "featuresPerLabel",
  );
  assert([...syntheticExamples({ rows: 0 })].length === 0, "zero rows");
});

Deno.test("synthetic XC text parses back to the generated rows (values to 4 decimals)", async () => {
  const opts = { rows: 300, numFeatures: 1000, numLabels: 30, seed: 7 };
  const text = new Uint8Array(await new Response(syntheticXcStream(opts, 512)).arrayBuffer());
  const ds = loadXcBytes(text, "syn.txt");
  assert(ds.x.numRows === 300 && ds.numFeatures === 1000 && ds.numLabels === 30, "header");
  let p = 0, r = 0;
  for (const e of syntheticExamples(opts)) {
    assertEquals(ds.y.indices.subarray(ds.y.indptr[r], ds.y.indptr[r + 1]), e.labels, `row ${r}`);
    for (let k = 0; k < e.x.indices.length; k++, p++) {
      assert(ds.x.indices[p] === e.x.indices[k], `row ${r} index`);
      assert(
        Math.abs(ds.x.values[p] - e.x.values[k]) <= 5.1e-5 && ds.x.values[p] > 0,
        `row ${r} value`,
      );
    }
    r++;
  }
  const path = await Deno.makeTempFile({ suffix: ".txt" });
  try {
    const size = await writeSyntheticXc(path, opts);
    assert(size === text.length, `file size ${size} vs ${text.length}`);
    assert((await loadXcFile(path)).x.indices.length === ds.x.indices.length, "file parses");
  } finally {
    await Deno.remove(path);
  }
});
