// kNN baseline: exact cosine neighbours (against a brute-force search), weighted votes,
// top-k consistent with scores, state round trip, clear errors.
import { CosineIndex, factory, KnnEstimator } from "../../../src/models/knn/mod.ts";
import type { SparseVector } from "../../../src/data/types.ts";
import { mulberry32 } from "../../mulberry32.ts";
import { assert, assertBadInput } from "../../helpers.ts";

function randomRow(rand: () => number, numFeatures: number, signed: boolean): SparseVector {
  const idx: number[] = [];
  for (let j = 0; j < numFeatures; j++) if (rand() < 0.3) idx.push(j);
  return {
    indices: Int32Array.from(idx),
    values: Float32Array.from(idx.map(() => (signed ? rand() * 2 - 1 : Math.ceil(rand() * 3)))),
  };
}

function cosine(a: SparseVector, b: SparseVector): number {
  const dense = new Map<number, number>();
  a.indices.forEach((j, i) => dense.set(j, a.values[i]));
  let dot = 0;
  b.indices.forEach((j, i) => (dot += (dense.get(j) ?? 0) * b.values[i]));
  const na = Math.hypot(...a.values), nb = Math.hypot(...b.values);
  return na > 0 && nb > 0 ? dot / (na * nb) : 0;
}

Deno.test("CosineIndex finds the same neighbours as a brute-force cosine search", () => {
  const rand = mulberry32(5);
  for (const signed of [false, true]) {
    const rows = Array.from({ length: 80 }, () => randomRow(rand, 12, signed));
    const idx = new CosineIndex();
    rows.forEach((r, i) => idx.add(r, Int32Array.of(i % 3)));
    for (let q = 0; q < 20; q++) {
      const x = randomRow(rand, 12, signed);
      const got = idx.neighbours(x, 7);
      // brute force over rows sharing a feature with x, sorted by (sim desc, row asc)
      const shares = (r: SparseVector) => r.indices.some((j) => x.indices.includes(j));
      const expected = rows.map((r, i) => ({ i, s: cosine(x, r), ok: shares(r) }))
        .filter((e) => e.ok)
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .slice(0, 7);
      assert(got.rows.length === expected.length, `count ${got.rows.length} vs ${expected.length}`);
      expected.forEach((e, t) => {
        assert(Math.abs(got.sims[t] - e.s) < 1e-5, `sim ${t}: ${got.sims[t]} vs ${e.s}`);
        // rows may swap only within a float tie
        if (got.rows[t] !== e.i) {
          assert(Math.abs(cosine(x, rows[got.rows[t]]) - e.s) < 1e-5, `row ${t} differs`);
        }
      });
    }
  }
});

Deno.test("kNN scores are similarity-weighted vote shares minus the threshold", () => {
  const m = new KnnEstimator({ k: 2, threshold: 0.25 });
  // three stored rows; the query is closest to row 0 (cos 1), then row 1 (cos 0.6), row 2 far
  m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(5) }, [0, 2]);
  m.learnOne({ indices: Int32Array.of(0, 1), values: Float32Array.of(3, 4) }, [2, 1]);
  m.learnOne({ indices: Int32Array.of(1), values: Float32Array.of(1) }, [3]);
  const x = { indices: Int32Array.of(0), values: Float32Array.of(1) };
  const s = m.predictScores(x);
  const total = 1 + 0.6;
  const expected = [1 / total, 0.6 / total, 1.6 / total, 0].map((v) => v - 0.25);
  assert(s.length === 4, `length ${s.length}`);
  expected.forEach((e, l) => assert(Math.abs(s[l] - e) < 1e-6, `label ${l}: ${s[l]} vs ${e}`));
  const top = m.predictTopK(x, 4);
  assert(top.labels.join() === "2,0,1,3", `top ${top.labels}`);
  top.labels.forEach((l, i) => assert(top.scores[i] === s[l], `top score ${i}`));
  // a query sharing no feature: every label scores -threshold, ties by label index
  const none = m.predictTopK({ indices: Int32Array.of(9), values: Float32Array.of(1) }, 2);
  assert(none.labels.join() === "0,1" && none.scores[0] === -0.25, `no match ${none.labels}`);
});

Deno.test("kNN top-k equals the ranking of its scores on random data; state round trip", () => {
  const rand = mulberry32(9);
  const m = factory.create({ k: 5 }) as KnnEstimator;
  for (let i = 0; i < 120; i++) {
    const labels = [...new Set([Math.floor(rand() * 10), Math.floor(rand() * 10)])];
    m.learnOne(randomRow(rand, 20, false), labels);
  }
  const b = factory.restore(structuredClone(m.toState()));
  for (let q = 0; q < 30; q++) {
    const x = randomRow(rand, 20, false);
    const s = m.predictScores(x);
    const order = [...s.keys()].sort((i, j) => s[j] - s[i] || i - j).slice(0, 4);
    const top = m.predictTopK(x, 4);
    assert(top.labels.join() === order.join(), `top ${top.labels} vs ${order}`);
    assert(b.predictTopK(x, 4).labels.join() === order.join(), "restored model differs");
  }
  assert(JSON.stringify(b.toState().scalars) === JSON.stringify(m.toState().scalars), "scalars");
});

Deno.test("kNN restore refuses a state that does not hold together, naming the part", () => {
  const rand = mulberry32(3);
  const m = factory.create({ k: 3 }) as KnnEstimator;
  for (let i = 0; i < 20; i++) m.learnOne(randomRow(rand, 20, false), [i % 7]);
  const s = m.toState();
  const t = s.tensors as Record<string, Int32Array | Float32Array>;
  const n = (t.rowPtr as Int32Array).length - 1;
  const broken: [string, () => unknown, RegExp][] = [
    ["rowIdx cut", () => ({ ...t, rowIdx: t.rowIdx.slice(0, 3) }), /rows\.indptr is not a valid/],
    ["rowVal cut", () => ({ ...t, rowVal: t.rowVal.slice(0, 1) }), /rows has \d+ entries but 1/],
    ["labelPtr short", () => ({ ...t, labelPtr: t.labelPtr.slice(0, n) }), /labelPtr/],
    [
      "label past numLabels",
      () => ({ ...t, labelIdx: Int32Array.from(t.labelIdx, (l) => l + 100) }),
      /need \d+ features and 10\d labels, the state declares \d+ and 7/,
    ],
  ];
  for (const [what, tensors, pattern] of broken) {
    let err: unknown;
    try {
      factory.restore({ ...s, tensors: tensors() as typeof s.tensors });
    } catch (e) {
      err = e;
    }
    assert(err instanceof RangeError && pattern.test(err.message), `${what}: ${err}`);
  }
  let scalar: unknown;
  try {
    factory.restore({ ...s, scalars: { ...s.scalars, numLabels: -1 } });
  } catch (e) {
    scalar = e;
  }
  assert(
    scalar instanceof RangeError &&
      /^knn\.restore: scalar numLabels must be an integer >= 0, got -1$/.test(scalar.message),
    String(scalar),
  );
  assert(factory.restore(s).predictTopK(randomRow(rand, 20, false), 2).labels.length === 2);
});

Deno.test("kNN learnMany grows the spaces, leaves the batch intact; errors are clear", () => {
  const m = new KnnEstimator({ k: 3 });
  const batch = {
    x: {
      numRows: 2,
      numCols: 6,
      indptr: Int32Array.of(0, 2, 3),
      indices: Int32Array.of(1, 4, 0),
      values: Float32Array.of(2, 2, 1),
    },
    y: { numRows: 2, numCols: 4, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(3, 0) },
  };
  const copy = structuredClone(batch);
  m.learnMany(batch);
  assert(JSON.stringify(copy) === JSON.stringify(batch), "batch mutated");
  assert(m.numFeatures === 6 && m.numLabels === 4 && m.numRows === 2, "sizes");
  let msg = "";
  try {
    m.toModelFile();
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("not exportable"), `toModelFile: '${msg}'`);
  let err: unknown;
  try {
    new KnnEstimator({ k: 0 });
  } catch (e) {
    err = e;
  }
  assert(err instanceof RangeError && err.message.includes("k must be"), `k = 0: ${err}`);
});

Deno.test("kNN threshold is a vote share in [0, 1]: another value is refused, naming it", () => {
  for (const threshold of [-0.1, 1.5, "2"]) {
    assertBadInput([[
      () => factory.create({ threshold }),
      /^knn: option threshold must be a finite number in \[0, 1\], got /,
    ]]);
  }
  assert(factory.create({ threshold: 1 }).kind === "knn", "threshold 1");
});
