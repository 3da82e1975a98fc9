// Metric values worked out by hand on small cases (ties, rows with no labels, short top-k lists).
import {
  Evaluator,
  HammingLoss,
  InstanceAuc,
  LabelCoverage,
  MacroAuc,
  NdcgAtK,
  PrecisionAtK,
  propensities,
  PsNdcgAtK,
  PspAtK,
  topKDense,
  topKSparse,
} from "../../src/metrics/mod.ts";

function assertClose(actual: number, expected: number, tol = 1e-9, what = ""): void {
  if (!(Math.abs(actual - expected) <= tol)) {
    throw new Error(`${what}: expected ${expected}, got ${actual}`);
  }
}

function assertEquals<T>(actual: T, expected: T, what = ""): void {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

function assertThrows(fn: () => unknown, cls: ErrorConstructor, includes: string): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof cls)) throw new Error(`expected ${cls.name}, got ${e}`);
    if (!(e as Error).message.includes(includes)) {
      throw new Error(`message '${(e as Error).message}' lacks '${includes}'`);
    }
    return;
  }
  throw new Error("expected an error");
}

Deno.test("propensities follow Jain et al.'s formula (values computed by hand)", () => {
  // N = 100: C = (ln 100 - 1) * 2.5^0.55 = 5.9675...
  const p = propensities([4, 0, 100], 100);
  assertClose(p[0], 0.29970197509920, 1e-12, "N_l = 4");
  assertClose(p[1], 0.17317032497263, 1e-12, "N_l = 0");
  assertClose(p[2], 0.68020269440839, 1e-12, "N_l = 100");
  assertThrows(() => propensities([1], 0), RangeError, "numTrain");
  assertThrows(() => propensities([1, -2], 10), RangeError, "label count 1");
});

Deno.test("top-k: decreasing score, ties by smaller index, NaN last, k beyond L", () => {
  const t = topKDense(Float32Array.of(1, 3, 3, NaN, -2, 3), 4);
  assertEquals([...t.labels], [1, 2, 5, 0], "dense");
  assertEquals([...t.scores], [3, 3, 3, 1], "dense scores");
  assertEquals([...topKDense([NaN, -1], 5).labels], [1, 0], "NaN below -1");
  assertEquals(topKDense([1, 2], 0).labels.length, 0, "k = 0");
  // sparse: unlisted labels score 0 and compete (smallest indices first)
  const s = topKSparse([5, 2, 0], [-1, 0.5, 0], 7, 4);
  assertEquals([...s.labels], [2, 0, 1, 3], "sparse");
  assertEquals([...topKSparse([], [], 3, 5).labels], [0, 1, 2], "empty line");
  assertEquals([...topKSparse([1, 0], [-1, -2], 2, 2).labels], [1, 0], "all listed negative");
  assertThrows(() => topKSparse([1, 1], [1, 2], 3, 2), RangeError, "listed twice");
  assertThrows(() => topKSparse([3], [1], 3, 2), RangeError, "out of range [0, 3)");
  assertThrows(() => topKDense([1], -1), RangeError, "k must be");
});

Deno.test("P@k and nDCG@k: hand values, empty rows count 0, short lists count misses", () => {
  const p = new PrecisionAtK([1, 3, 5]);
  const n = new NdcgAtK([1, 3, 5]);
  const rows: [number[], number[]][] = [
    [[2, 0, 5, 7, 8], [0, 2, 9]], // hits at ranks 1, 2
    [[4, 1, 3, 6, 0], [3]], // hit at rank 3
    [[1, 2, 3, 4, 5], []], // no true label
    [[6], [6, 7]], // only one prediction: hit at 1
  ];
  for (const [top, y] of rows) {
    p.add(Int32Array.from(top), Int32Array.from(y));
    n.add(Int32Array.from(top), Int32Array.from(y));
  }
  const pr = p.result();
  assertClose(pr["P@1"], (100 * (1 + 0 + 0 + 1)) / 4, 1e-12, "P@1");
  assertClose(pr["P@3"], (100 * (2 / 3 + 1 / 3 + 0 + 1 / 3)) / 4, 1e-12, "P@3");
  assertClose(pr["P@5"], (100 * (2 / 5 + 1 / 5 + 0 + 1 / 5)) / 4, 1e-12, "P@5");
  const l3 = 1 / Math.log2(3), l4 = 0.5;
  const nr = n.result();
  // row 1: DCG@3 = 1 + l3; ideal over min(3, 3) = 1 + l3 + 0.5
  // row 2: DCG@3 = 0.5, ideal over min(3, 1) = 1; row 4: DCG = 1, ideal@3 over 2 labels
  assertClose(nr["nDCG@1"], (100 * (1 + 0 + 0 + 1)) / 4, 1e-12, "nDCG@1");
  assertClose(
    nr["nDCG@3"],
    (100 * ((1 + l3) / (1 + l3 + l4) + l4 / 1 + 0 + 1 / (1 + l3))) / 4,
    1e-12,
    "nDCG@3",
  );
  assertClose(
    nr["nDCG@5"],
    (100 * ((1 + l3) / (1 + l3 + l4) + l4 + 0 + 1 / (1 + l3))) / 4,
    1e-12,
    "nDCG@5",
  );
  // worked example from the XC definition: |y| = 3, hits at ranks 1 and 3
  const m = new NdcgAtK([3]);
  m.add(Int32Array.of(0, 9, 1), Int32Array.of(0, 1, 2));
  assertClose(m.result()["nDCG@3"], 70.39180890341347, 1e-9, "nDCG@3 worked");
});

Deno.test("PSP@k and PSnDCG@k: ratio of sums against the best ranking by 1/p", () => {
  const prop = Float64Array.of(0.5, 0.25, 0.1, 1); // weights 2, 4, 10, 1
  const psp = new PspAtK(prop, [1, 2]);
  const psn = new PsNdcgAtK(prop, [1, 2]);
  const rows: [number[], number[]][] = [
    [[0, 2], [0, 1, 2]], // got w 2 then 10; best 10, 4
    [[3, 1], [1]], // got 0 then 4; best 4
    [[0, 1], []], // nothing
  ];
  for (const [top, y] of rows) {
    psp.add(Int32Array.from(top), Int32Array.from(y));
    psn.add(Int32Array.from(top), Int32Array.from(y));
  }
  const r = psp.result();
  assertClose(r["PSP@1"], (100 * (2 + 0)) / (10 + 4), 1e-12, "PSP@1");
  assertClose(r["PSP@2"], (100 * (12 + 4)) / (14 + 4), 1e-12, "PSP@2");
  const d = 1 / Math.log2(3);
  const q = psn.result();
  assertClose(q["PSnDCG@1"], (100 * (2 + 0)) / (10 + 4), 1e-12, "PSnDCG@1");
  // normalisers: row 1 ideal DCG of 2 labels (1 + d), row 2 of 1 label (1)
  const num = (2 + 10 * d) / (1 + d) + (4 * d) / 1;
  const den = (10 + 4 * d) / (1 + d) + 4 / 1;
  assertClose(q["PSnDCG@2"], (100 * num) / den, 1e-12, "PSnDCG@2");
  // a perfect ranking scores 100
  const perfect = new PspAtK(prop, [2]);
  perfect.add(Int32Array.of(2, 1), Int32Array.of(0, 1, 2));
  assertEquals(perfect.result()["PSP@2"], 100, "perfect");
  assertThrows(() => psp.add(Int32Array.of(0), Int32Array.of(7)), RangeError, "propensit");
});

Deno.test("standard errors: of the mean over rows, and the delta method for a weighted ratio", () => {
  // per-row values by hand; empty rows count 0 without weights and are left out with them
  const se = (x: number[]) => {
    const n = x.length, m = x.reduce((a, b) => a + b, 0) / n;
    return 100 * Math.sqrt(x.reduce((a, v) => a + (v - m) ** 2, 0) / (n * (n - 1)));
  };
  const p = new PrecisionAtK([1, 3]);
  const rows: [number[], number[]][] = [
    [[2, 0, 5], [0, 2, 9]], // P@1 1, P@3 2/3
    [[4, 1, 3], [3]], // 0, 1/3
    [[1, 2, 3], []], // 0, 0
    [[6, 7, 8], [6, 7]], // 1, 2/3
    [[9, 8, 7], [1]], // 0, 0
  ];
  for (const [top, y] of rows) p.add(Int32Array.from(top), Int32Array.from(y));
  const e = p.standardErrors();
  assertClose(e["P@1"], se([1, 0, 0, 1, 0]), 1e-9, "P@1");
  assertClose(e["P@3"], se([2 / 3, 1 / 3, 0, 2 / 3, 0]), 1e-9, "P@3");
  // PSP@1 with weights 2, 4, 10, 1: rows (gain, best) = (2, 10), (0, 4), (10, 10); an empty row
  const prop = Float64Array.of(0.5, 0.25, 0.1, 1);
  const psp = new PspAtK(prop, [1]);
  for (const [top, y] of [[[0], [0, 2]], [[3], [1]], [[2], [2, 3]], [[0], []]] as const) {
    psp.add(Int32Array.from(top), Int32Array.from(y));
  }
  const g = [2, 0, 10], b = [10, 4, 10], n = 3;
  const r = (2 + 0 + 10) / (10 + 4 + 10);
  assertClose(psp.result()["PSP@1"], 100 * r, 1e-12, "PSP@1");
  const ss = g.reduce((a, gi, i) => a + (gi - r * b[i]) ** 2, 0);
  const want = (100 * Math.sqrt(ss / (n * (n - 1)))) / ((10 + 4 + 10) / n);
  assertClose(psp.standardErrors()["PSP@1"], want, 1e-9, "PSP@1 delta method");
  // fewer than two rows: no spread to measure
  const one = new PrecisionAtK([1]);
  one.add(Int32Array.of(0), Int32Array.of(0));
  assertEquals(one.standardErrors()["P@1"], 0, "one row");
});

Deno.test("instance AUC: ties count one half; rows without positive or negative left out", () => {
  const a = new InstanceAuc();
  // positives 0.5 (labels 1) and 0.2 (label 3); negatives 0.5, 0.2, 0.1
  // 0.5 beats 0.2, 0.1 and ties 0.5: 2.5; 0.2 beats 0.1 and ties 0.2: 1.5 -> 4 / 6
  a.addDense(Float32Array.of(0.5, 0.5, 0.2, 0.2, 0.1), Int32Array.of(1, 3));
  a.addDense(Float32Array.of(1, 2), Int32Array.of()); // no positive
  a.addDense(Float32Array.of(1, 2), Int32Array.of(0, 1)); // no negative
  assertEquals(a.validRows, 1, "valid rows");
  assertClose(a.result(), 4 / 6, 1e-12, "AUC");
  // sparse row, 5 labels: listed 2 -> 0.3, 4 -> -1; true {1, 2}; label 1 scores 0 (unlisted)
  // pos 0.3 beats 0, 0, -1 -> 3; pos 0 ties 0, 0 and beats -1 -> 2 -> 5 / 6
  a.addSparse(Int32Array.of(4, 2), Float64Array.of(-1, 0.3), 5, Int32Array.of(1, 2));
  assertClose(a.result(), (4 / 6 + 5 / 6) / 2, 1e-12, "AUC with sparse row");
  // (assertEquals compares JSON, where NaN, ±Infinity and null are all "null")
  assertEquals(Number.isNaN(new InstanceAuc().result()), true, "no valid row gives NaN");
  // -0 and 0 are the same score
  const z = new InstanceAuc();
  z.addDense(Float32Array.of(-0, 0), Int32Array.of(1));
  assertEquals(z.result(), 0.5, "-0 ties 0");
});

Deno.test("macro AUC: per label over rows; ties one half; constant labels left out", () => {
  const m = new MacroAuc();
  // 3 labels, 4 rows
  m.addDense(Float32Array.of(0.9, 0.0, 0.3), Int32Array.of(0));
  m.addDense(Float32Array.of(0.4, 0.5, 0.3), Int32Array.of(0, 1));
  m.addDense(Float32Array.of(0.4, 0.5, 0.1), Int32Array.of(1));
  m.addSparse(Int32Array.of(0), Float64Array.of(0.2), 3, Int32Array.of());
  // label 0: pos {0.9, 0.4}, neg {0.4, 0.2}: 2 + 1.5 = 3.5 / 4
  // label 1: pos {0.5, 0.5}, neg {0, 0}: 4 / 4
  // label 2: no positive -> left out
  assertClose(m.result(), (3.5 / 4 + 1) / 2, 1e-12, "macro AUC");
  assertEquals(m.validLabels, 2, "valid labels");
});

Deno.test("Hamming loss: a label is predicted when its score is > 0 (0 is not)", () => {
  const h = new HammingLoss();
  h.addDense(Float32Array.of(0, 0.1, -0.1, 2), Int32Array.of(0, 3)); // label 0 missed, 1 extra
  h.addSparse(Int32Array.of(2, 0), Float64Array.of(0, 3), 4, Int32Array.of()); // 0 extra
  assertClose(h.result(), (2 / 4 + 1 / 4) / 2, 1e-12, "hamming");
});

Deno.test("coverage@k counts labels recovered at least once", () => {
  const c = new LabelCoverage([1, 3]);
  c.add(Int32Array.of(5, 1, 2), Int32Array.of(1, 2, 4)); // 1 at rank 2, 2 at rank 3
  c.add(Int32Array.of(4, 0, 0), Int32Array.of(4)); // 4 at rank 1
  const r = c.result();
  assertClose(r["coverage@1"], 100 / 3, 1e-12, "coverage@1");
  assertClose(r["coverage@3"], 100, 1e-12, "coverage@3");
});

Deno.test("Evaluator: dense and sparse rows agree; labels are validated", () => {
  const prop = Float64Array.of(0.3, 0.6, 0.9, 0.5);
  const a = new Evaluator(4, { propensities: prop, k: 3 });
  const b = new Evaluator(4, { propensities: prop, k: 3 });
  a.addScores(Float32Array.of(0, 0.7, 0, -0.2), Int32Array.of(0, 3));
  // every label listed (zeros too), in any order
  b.addSparseScores(
    Int32Array.of(3, 1, 2, 0),
    Float64Array.of(-0.2, 0.7, 0, 0),
    Int32Array.of(0, 3),
  );
  a.addScores(Float32Array.of(0, 0, 0, 0), Int32Array.of());
  b.addSparseScores(Int32Array.of(0, 1, 2, 3), new Float64Array(4), Int32Array.of());
  assertEquals(a.result(), b.result(), "dense vs sparse");
  const r = a.result();
  // row 1: ranking 1 (0.7), 0 (0, smaller index), 2 (0): P@1 0, P@3 1/3; row 2 counts 0
  assertClose(r["P@1"], 0, 0, "P@1");
  assertClose(r["P@3"], 100 / 6, 1e-12, "P@3");
  assertThrows(
    () => a.addScores(Float32Array.of(1, 2, 3, 4), Int32Array.of(2, 1)),
    RangeError,
    "row 2: true labels must be strictly increasing",
  );
  assertThrows(
    () => a.addScores(Float32Array.of(1, 2, 3), Int32Array.of(1)),
    RangeError,
    "3 scores for a label space of 4",
  );
  assertThrows(() => new Evaluator(5, { propensities: prop }), RangeError, "4 propensities");
});
