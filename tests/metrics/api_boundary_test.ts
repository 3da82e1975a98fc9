// The metrics API at its boundaries, called as a user would through `mod.ts`: bad cut-offs,
// labels, scores, propensities and states are refused with a message naming the caller and the
// limit (and nothing is counted then); empty inputs give documented values; and the maths of
// PSP@k, PSnDCG@k, nDCG@k, the AUCs and the propensities against hand-computed values.
import {
  type Batch,
  type Estimator,
  evaluateModel,
  Evaluator,
  type LabelledRows,
  metrics,
  PrequentialWindow,
  propensities,
} from "../../mod.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";

const {
  HammingLoss,
  InstanceAuc,
  LabelCoverage,
  MacroAuc,
  NdcgAtK,
  pairAuc,
  PrecisionAtK,
  prequential,
  PrequentialP1,
  PsNdcgAtK,
  PspAtK,
} = metrics;

const close = (a: number, b: number, what: string, tol = 1e-9) =>
  assert(Math.abs(a - b) <= tol, `${what}: expected ${b}, got ${a}`);
const flat = (n: number) => new Float64Array(n).fill(0.5);
const L3 = Math.log2(3);

Deno.test("cut-offs: k = 0, negative, fractional, NaN, Infinity, none or a bare number are refused", async () => {
  for (const k of [0, -1, 1.5, NaN, Infinity]) {
    await assertThrowsMsg(
      () => new PrecisionAtK([k]),
      RangeError,
      `PrecisionAtK: k must be an integer >= 1, got ${k}`,
    );
  }
  await assertThrowsMsg(() => new PspAtK(flat(2), [3, 0]), RangeError, "PspAtK: k must be");
  await assertThrowsMsg(() => new NdcgAtK([]), RangeError, "NdcgAtK: at least one k");
  await assertThrowsMsg(
    () => new LabelCoverage([2.5]),
    RangeError,
    "LabelCoverage: k must be an integer >= 1, got 2.5",
  );
  await assertThrowsMsg(
    () => new PrecisionAtK(5 as unknown as number[]),
    TypeError,
    "PrecisionAtK: ks must be an array of cut-offs such as [1, 3, 5], got 5",
  );
  await assertThrowsMsg(
    () => new Evaluator(3, { propensities: flat(3), k: 0 }),
    RangeError,
    "Evaluator: k must be an integer >= 1, got 0",
  );
});

Deno.test("a k beyond the label space is cheap and counts the missing ranks as misses", () => {
  // the old code allocated and walked O(k) per row: at 1e15 the allocation throws and the walk
  // never ends (speed itself is the benchmarks' business, not a timed assertion's)
  const big = 1e15;
  const p = new PrecisionAtK([1, big]);
  const n = new NdcgAtK([2, big]);
  const s = new PspAtK(Float64Array.of(0.5, 0.25, 0.1), [big]);
  const ev = new Evaluator(3, { propensities: Float64Array.of(0.5, 0.25, 0.1), k: big });
  // true labels {0, 1, 2}; the list ranks 5 (a miss) then 1
  p.add(Int32Array.of(5, 1), Int32Array.of(0, 1, 2));
  n.add(Int32Array.of(5, 1), Int32Array.of(0, 1, 2));
  s.add(Int32Array.of(5, 1), Int32Array.of(0, 1, 2));
  ev.addScores(Float32Array.of(0.1, 0.9, 0.5), Int32Array.of(1));
  assertEquals(Object.keys(p.result()), ["P@1", `P@${big}`]);
  assertEquals(p.result()["P@1"], 0);
  close(p.result()[`P@${big}`], 100 / big, "P@big", 1e-20); // one hit among k
  // nDCG@2: one hit at rank 2 over the ideal DCG of min(2, 3) = 2 labels
  close(n.result()["nDCG@2"], 100 * (1 / L3) / (1 + 1 / L3), "nDCG@2");
  // nDCG@k, k >= 3: the ideal DCG of all 3 labels
  close(n.result()[`nDCG@${big}`], 100 * (1 / L3) / (1 + 1 / L3 + 1 / 2), "nDCG@big");
  // PSP@big: got weight 4 (label 1) of the best 10 + 4 + 2
  close(s.result()[`PSP@${big}`], 100 * 4 / 16, "PSP@big");
  // 3 labels, one true and ranked first: P@1 100, P@5 20, P@big 1 / big
  const r = ev.result();
  assertEquals([r["P@1"], r["P@5"]], [100, 20]);
  close(r[`P@${big}`], 100 / big, "Evaluator P@big", 1e-20);
});

Deno.test("a repeated predicted label is refused (it counted twice: P@2 100, nDCG@2 163%)", async () => {
  await assertThrowsMsg(
    () => new NdcgAtK([2]).add([0, 0], [0]),
    RangeError,
    "NdcgAtK.add: predicted label 0 is repeated at rank 2",
  );
  const p = new PrecisionAtK([2]);
  await assertThrowsMsg(() => p.add([0, 0], [0]), RangeError, "PrecisionAtK.add: predicted");
  for (const bad of [-1, 2.5, NaN]) {
    await assertThrowsMsg(
      () => p.add([bad], [2]),
      RangeError,
      `PrecisionAtK.add: predicted label ${bad} at rank 1 must be an integer >= 0`,
    );
  }
  assertEquals(p.rows, 0, "a refused row is not counted");
});

Deno.test("true labels must be strictly increasing integers >= 0 (unsorted ones silently missed)", async () => {
  const p = new PrecisionAtK([1]);
  // binary search over [5, 3] missed the hit on 3: P@1 read 0
  await assertThrowsMsg(
    () => p.add([3], [5, 3]),
    RangeError,
    "PrecisionAtK.add: true labels must be strictly increasing, got 5 then 3",
  );
  await assertThrowsMsg(
    () => new NdcgAtK([2]).add([3, 4], [3, 3]),
    RangeError,
    "NdcgAtK.add: true labels must be strictly increasing, got 3 then 3",
  );
  await assertThrowsMsg(
    () => p.add([0], [NaN]),
    RangeError,
    "PrecisionAtK.add: true label NaN must be an integer >= 0",
  );
  await assertThrowsMsg(
    () => new PsNdcgAtK(flat(2), [1]).add([0], [2]),
    RangeError,
    "PsNdcgAtK.add: true label 2 has no propensity (propensities cover 2 labels)",
  );
  const c = new LabelCoverage([1]);
  for (
    const [labels, text] of [
      [[-1], "true label -1 must be an integer >= 0"],
      [[2.5], "true label 2.5 must be an integer >= 0"],
      [[3, 0], "true labels must be strictly increasing, got 3 then 0"],
    ] as const
  ) {
    await assertThrowsMsg(() => c.add([0], labels), RangeError, `LabelCoverage.add: ${text}`);
  }
  assertEquals(c.result(), { "coverage@1": 0 });
});

Deno.test("rows with no true label count 0 in P@k and nothing in PSP@k, and are counted", () => {
  const p = new PrecisionAtK([1]);
  const s = new PspAtK(Float64Array.of(0.5, 0.25), [1]);
  for (const m of [p, s]) {
    m.add(Int32Array.of(0), Int32Array.of(0)); // hit
    m.add(Int32Array.of(0), Int32Array.of()); // no true label
  }
  assertEquals([p.result()["P@1"], p.rows, p.unlabelledRows], [50, 2, 1]);
  assertEquals([s.result()["PSP@1"], s.rows, s.unlabelledRows], [100, 2, 1]);
  const ev = new Evaluator(2, { propensities: flat(2), k: 1 });
  ev.addScores(Float32Array.of(1, 0), Int32Array.of(0));
  ev.addScores(Float32Array.of(1, 0), Int32Array.of());
  assertEquals([ev.result()["P@1"], ev.rows, ev.unlabelledRows], [50, 2, 1]);
});

Deno.test("PSP@k and PSnDCG@k: Σ gain / Σ best over rows (pyxclib's normalisation), by hand", () => {
  // weights 1/p = [2, 4, 10]; row A: true {0, 2}, ranked [0, 1, 2]; row B: true {1}, ranked
  // [1, 0, 2]; row C has no true label and changes nothing
  const p = Float64Array.of(0.5, 0.25, 0.1);
  const psp = new PspAtK(p, [1, 2, 3]);
  const psndcg = new PsNdcgAtK(p, [1, 2]);
  for (const m of [psp, psndcg]) {
    m.add(Int32Array.of(0, 1, 2), Int32Array.of(0, 2));
    m.add(Int32Array.of(1, 0, 2), Int32Array.of(1));
    m.add(Int32Array.of(2, 1, 0), Int32Array.of());
  }
  const r = psp.result();
  // @1: gains 2 + 4, best 10 + 4 (a mean of per-row ratios would give 60, Jain's unnormalised
  // PSP@1 = 300)
  close(r["PSP@1"], 100 * 6 / 14, "PSP@1");
  close(r["PSP@2"], 100 * (2 + 4) / ((10 + 2) + 4), "PSP@2"); // rank 2 of A is a miss
  close(r["PSP@3"], 100, "PSP@3");
  const n = psndcg.result();
  // @2, per row divided by the plain ideal DCG of min(2, |y|) labels: A 1 + 1/log2 3, B 1
  const idealA = 1 + 1 / L3;
  close(
    n["PSnDCG@2"],
    100 * (2 / idealA + 4) / ((10 + 2 / L3) / idealA + 4),
    "PSnDCG@2",
  );
  close(n["PSnDCG@1"], 100 * (2 + 4) / (10 + 4), "PSnDCG@1");
  assertEquals(psp.unlabelledRows, 1);
});

Deno.test("propensities: Jain et al.'s formula; N, A, B and counts out of range are refused", async () => {
  const N = 100, A = 0.55, B = 1.5;
  const C = (Math.log(N) - 1) * Math.pow(B + 1, A);
  const got = propensities([0, 9], N, A, B);
  close(got[0], 1 / (1 + C * Math.exp(-A * Math.log(0 + B))), "p_0");
  close(got[1], 1 / (1 + C * Math.exp(-A * Math.log(9 + B))), "p_1");
  for (
    const [args, text] of [
      [[[1], 0], "numTrain must be an integer >= 1 (the number of training rows), got 0"],
      [[[1], 2.5], "numTrain must be an integer >= 1 (the number of training rows), got 2.5"],
      [[[0, 1], 100, 0.55, -0.5], "B must be a finite number > 0, got -0.5"], // gave NaN
      [[[0, 1], 100, 0.55, 0], "B must be a finite number > 0, got 0"], // gave p = 0
      [[[0, 1], 100, -1, 1.5], "A must be a finite number > 0, got -1"], // inverted weighting
      [[[Infinity], 100], "label count 0 is Infinity, expected a finite number >= 0"],
    ] as const
  ) {
    await assertThrowsMsg(
      () => propensities(...(args as unknown as [number[], number, number?, number?])),
      RangeError,
      `propensities: ${text}`,
    );
  }
});

Deno.test("inverse propensities (> 1) are refused where propensities are expected", async () => {
  // pyxclib's compute_inv_propesity returns 1/p; passed here it weighed frequent labels most
  await assertThrowsMsg(
    () => new PspAtK(Float64Array.of(1.5, 12), [1]),
    RangeError,
    "PspAtK: propensity of label 0 must be in (0, 1], got 1.5 (inverse propensities",
  );
  await assertThrowsMsg(
    () => new Evaluator(2, { propensities: Float64Array.of(0.5, NaN) }),
    RangeError,
    "Evaluator: propensity of label 1 must be in (0, 1], got NaN",
  );
  await assertThrowsMsg(
    () => new Evaluator(2, {} as { propensities: Float64Array }),
    TypeError,
    "Evaluator: options.propensities must be one propensity per label",
  );
});

Deno.test("pairAuc: ties count one half; bad counts and unsorted or NaN negatives are refused", async () => {
  // positive 0.5 vs negatives 0.5 (tie), 0.2 (won) and two zeros (won): 3.5 of 4
  assertEquals(pairAuc([0.5], Float64Array.of(0.2, 0.5), 2), 3.5 / 4);
  assertEquals(Number.isNaN(pairAuc([], Float64Array.of(0.1))), true, "no positive: NaN");
  for (
    const [call, text] of [
      [
        () => pairAuc([0.5], Float64Array.of(0.1), -1),
        "zeroNegatives must be an integer >= 0, got -1",
      ],
      [() => pairAuc([0.5], Float64Array.of(0.1), NaN), "zeroNegatives must be an integer >= 0"],
      [() => pairAuc([0.5], Float64Array.of(), 0, 1.5), "unscoredNegatives must be an integer"],
      [
        () => pairAuc([0.5], Float64Array.of(0.9, 0.1)),
        "sortedNegatives must be sorted increasingly",
      ],
      [() => pairAuc([0.5], Float64Array.of(NaN, 0.1)), "negative 0's score is NaN"],
    ] as const
  ) {
    await assertThrowsMsg(call, RangeError, `pairAuc: ${text}`);
  }
});

Deno.test("instance AUC: ties one half, ±Infinity scores; bad rows refused and not counted", async () => {
  const a = new InstanceAuc();
  a.addDense(Float32Array.of(1, 1, 1), Int32Array.of(1)); // all tied: 1/2
  a.addDense(Float64Array.of(Infinity, Infinity, -Infinity), Int32Array.of(1)); // 0.5 + 1 of 2
  close(a.result(), (0.5 + 0.75) / 2, "instanceAUC");
  await assertThrowsMsg(
    () => a.addDense(Float32Array.of(0.1, 0.5, 0.2), Int32Array.of(0, 7)), // read 0 before
    RangeError,
    "InstanceAuc.addDense: true label 7 is out of range [0, 3)",
  );
  await assertThrowsMsg(
    () => a.addDense(Float32Array.of(NaN, 0.5, 0.2), Int32Array.of(0)),
    RangeError,
    "InstanceAuc.addDense: score of label 0 is NaN",
  );
  await assertThrowsMsg(
    () => a.addSparse(Int32Array.of(0, 1, 2), Float64Array.of(1, 2, 3), 2, Int32Array.of(1)),
    RangeError, // read -2 before
    "InstanceAuc.addSparse: listed label 2 is out of range [0, 2)",
  );
  await assertThrowsMsg(
    () => a.addSparse(Int32Array.of(0, 1), Float64Array.of(1), 4, Int32Array.of(1)),
    RangeError,
    "InstanceAuc.addSparse: 2 listed labels but 1 scores",
  );
  await assertThrowsMsg(
    () => a.addSparse([0], [1], 3, [1], "Unscored" as "zero"),
    TypeError,
    'InstanceAuc.addSparse: unlisted must be "zero" or "unscored", got Unscored',
  );
  assertEquals([a.rows, a.validRows], [2, 2], "refused rows are not counted");
});

Deno.test("macro AUC: labels with no positive or no negative are skipped and counted", async () => {
  const m = new MacroAuc();
  assertEquals(Number.isNaN(m.result()), true, "no row: NaN");
  // a NaN half-way through a row used to leave the labels before it counted
  await assertThrowsMsg(
    () => m.addDense(Float32Array.of(0.9, NaN, 0.3), Int32Array.of(0)),
    RangeError,
    "MacroAuc.addDense: score of label 1 is NaN",
  );
  await assertThrowsMsg(
    () => m.addSparse(Int32Array.of(-1), Float64Array.of(1), 3, Int32Array.of(0)),
    RangeError,
    "MacroAuc.addSparse: listed label -1 is out of range [0, 3)",
  );
  await assertThrowsMsg(
    () => m.addSparse(Int32Array.of(), Float64Array.of(), 3, Int32Array.of(5)),
    RangeError,
    "MacroAuc.addSparse: true label 5 is out of range [0, 3)",
  );
  assertEquals(m.rows, 0);
  m.addDense(Float32Array.of(0.9, 0.1, 0.5), Int32Array.of(0, 1));
  m.addDense(Float32Array.of(0.4, 0.3, 0.5), Int32Array.of(1));
  m.addDense(Float32Array.of(0.4, 0.3, 0.2), Int32Array.of(1));
  // label 0: positive 0.9 vs 0.4, 0.4 -> 1; label 1 true in every row, label 2 in none
  assertEquals([m.result(), m.validLabels, m.skippedLabels], [1, 1, 2]);
});

Deno.test("Hamming loss: NaN and out-of-range labels refused; no row is NaN, not a perfect 0", async () => {
  const h = new HammingLoss();
  assertEquals(Number.isNaN(h.result()), true);
  await assertThrowsMsg(
    () => h.addDense([NaN, 1], [0]),
    RangeError,
    "HammingLoss.addDense: score of label 0 is NaN",
  );
  await assertThrowsMsg(
    () => h.addDense([1, 1], [0, 7]), // read 0.5: label 7 never compared
    RangeError,
    "HammingLoss.addDense: true label 7 is out of range [0, 2)",
  );
  await assertThrowsMsg(
    () => h.addSparse([0], [1], NaN, [0]),
    RangeError,
    "HammingLoss.addSparse: numLabels must be an integer >= 1, got NaN",
  );
  await assertThrowsMsg(
    () => h.addSparse([1, 1], [1, 1], 4, []),
    RangeError,
    "HammingLoss.addSparse: label 1 is listed twice",
  );
  h.addDense([1, -1, 0], [0, 2]); // wrong on label 2
  assertEquals(h.result(), 1 / 3);
});

Deno.test("Evaluator: a NaN score is refused naming the row, and the row is not counted", async () => {
  const ev = new Evaluator(3, { propensities: flat(3), k: 1 });
  await assertThrowsMsg(
    () => ev.addScores(Float32Array.of(NaN, 1, 0), Int32Array.of(1)),
    RangeError,
    "Evaluator.addScores: row 0: score of label 0 is NaN",
  );
  await assertThrowsMsg(
    () => ev.addSparseScores(Int32Array.of(0, 1), Float64Array.of(1, NaN), Int32Array.of(1)),
    RangeError,
    "Evaluator.addSparseScores: row 0: score of label 1 is NaN",
  );
  ev.addScores(Float32Array.of(0, 1, 0), Int32Array.of(0)); // a miss
  const fresh = new Evaluator(3, { propensities: flat(3), k: 1 });
  fresh.addScores(Float32Array.of(0, 1, 0), Int32Array.of(0));
  assertEquals(ev.result(), fresh.result());
  assertEquals([ev.rows, ev.result()["P@1"]], [1, 0]);
  // scores past `scored` are not read, a NaN there included
  const top = ev.addScores(Float32Array.of(0.2, 0.9, NaN), Int32Array.of(1), 2);
  assertEquals([...top.labels], [1]);
  assertEquals([ev.rows, ev.result()["P@1"]], [2, 50]);
});

const oneRow = (indptrX: number[], indptrY: number[], rows = 1): LabelledRows => ({
  numLabels: 1,
  x: {
    numRows: rows,
    numCols: 1,
    indptr: Int32Array.from(indptrX),
    indices: new Int32Array(0),
    values: new Float32Array(0),
  },
  y: { numRows: rows, numCols: 1, indptr: Int32Array.from(indptrY), indices: Int32Array.of(0) },
});

Deno.test("evaluateModel: no row, malformed indptr and bad timingRows are refused", async () => {
  const model = { predictScores: () => Float32Array.of(1) };
  const opts = { propensities: Float64Array.of(0.5) };
  // 0 rows reported P@k 0 and a perfect Hamming loss of 0
  await assertThrowsMsg(
    () => evaluateModel(model, oneRow([0], [0], 0), opts),
    RangeError,
    "evaluateModel: the test set must have at least one row (nothing to evaluate), got 0",
  );
  // a one-entry indptr for one row read every label as the row's: P@1 100
  await assertThrowsMsg(
    () => evaluateModel(model, oneRow([0, 0], [0]), opts),
    RangeError,
    "evaluateModel: test.y.indptr has 1 entries for 1 rows (expected 2)",
  );
  await assertThrowsMsg(
    () => evaluateModel(model, oneRow([0, 0], [0, 1]), { ...opts, timingRows: -1 }),
    RangeError,
    "evaluateModel: timingRows must be an integer >= 0, got -1",
  );
  const r = evaluateModel(model, oneRow([0, 0], [0, 1]), { ...opts, timingRows: 0 });
  assertEquals([r.metrics["P@1"], r.metrics.hamming], [100, 0]);
});

Deno.test("prequential: corrupt window states, fractional labels and bad curveEvery are refused", async () => {
  const w = new PrequentialWindow(2);
  w.record(Int32Array.of(0), Int32Array.of(0));
  for (
    const [patch, text] of [
      [{ filled: 5 }, "filled must be an integer in [0, 2], got 5"], // read NaN
      [{ next: 7 }, "next must be an integer in [0, 1], got 7"],
      [{ next: 0 }, "next (0) must equal filled (1) until the window is full"],
      [{ totalScored: 0 }, "totalScored must be an integer >= filled (1), got 0"],
      [{ totalP1: 3 }, "totalP1 must be in [0, totalScored = 1], got 3"],
      [{ p1: Float32Array.of(0.5, 0) }, "p1[0] must be 0 or 1, got 0.5"],
    ] as const
  ) {
    await assertThrowsMsg(
      () => PrequentialWindow.fromState({ ...w.toState(), ...patch }),
      RangeError,
      `PrequentialWindow.fromState: ${text}`,
    );
  }
  await assertThrowsMsg(
    () => w.record([NaN], [0]),
    RangeError,
    "PrequentialWindow.record: predicted label NaN at rank 1 must be an integer >= 0",
  );
  await assertThrowsMsg(
    () => w.record([0], [1, 0]),
    RangeError,
    "PrequentialWindow.record: true labels must be strictly increasing, got 1 then 0",
  );
  assertEquals(w.totalScored, 1, "refused events are not recorded");
  const p = new PrequentialP1(2);
  // 2.5 was stored as label 2: a hit
  await assertThrowsMsg(
    () => p.add(2.5, [2]),
    RangeError,
    "PrequentialP1.add: top1 must be a label index (an integer >= 0) or -1 for none, got 2.5",
  );
  p.add(-1, [2]); // none: a miss
  assertEquals([p.rows, p.p1], [1, 0]);
  const batch: Batch = {
    x: {
      numRows: 3,
      numCols: 1,
      indptr: Int32Array.of(0, 0, 0, 0),
      indices: new Int32Array(0),
      values: new Float32Array(0),
    },
    y: {
      numRows: 3,
      numCols: 1,
      indptr: Int32Array.of(0, 1, 2, 3),
      indices: Int32Array.of(0, 0, 0),
    },
  };
  const model = {
    predictTopK: () => ({ labels: Int32Array.of(0), scores: Float32Array.of(1) }),
    learnMany() {},
  } as unknown as Estimator;
  // -1 recorded a curve point at every row
  await assertThrowsMsg(
    () => prequential(model, [batch], { curveEvery: -1 }),
    RangeError,
    "prequential: curveEvery must be an integer >= 1, got -1",
  );
  assertEquals(prequential(model, [batch], { curveEvery: 2 }).curve.map((c) => c.rows), [2]);
});
