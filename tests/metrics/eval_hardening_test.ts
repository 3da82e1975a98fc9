// Labels a row does not score (unknown to the model, not listed in a predictions line) are never
// ranked: they cannot be hits, and they rank below every scored label in the AUCs.
import { assertEquals, assertThrowsMsg } from "../helpers.ts";
import { evaluateModel, Evaluator } from "../../src/metrics/evaluate.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { mulberry32 } from "../mulberry32.ts";

const flat = (n: number) => new Float64Array(n).fill(0.5);

Deno.test("Evaluator: an unlisted true label is never a hit, whatever the listed scores", () => {
  const ev = new Evaluator(4, { propensities: flat(4), k: 3 });
  // label 0 is true but unlisted; the only listed label scores below 0
  const top = ev.addSparseScores(Int32Array.of(3), Float64Array.of(-2), Int32Array.of(0));
  assertEquals([...top.labels], [3]);
  const m = ev.result();
  for (const key of ["P@1", "P@3", "PSP@1", "PSP@3", "nDCG@3", "PSnDCG@3", "coverage@3"]) {
    assertEquals(m[key], 0, key);
  }
  // the true label has no score: it ranks below the listed negative (label 3) and ties with
  // the unlisted ones (1 and 2)
  assertEquals(m.instanceAUC, 1 / 3);
});

Deno.test("Evaluator: an empty predictions row ranks nothing and carries no information", () => {
  const ev = new Evaluator(5, { propensities: flat(5), k: 5 });
  for (const y of [[0], [0, 1], [2]]) {
    const top = ev.addSparseScores(new Int32Array(0), new Float64Array(0), Int32Array.from(y));
    assertEquals(top.labels.length, 0);
  }
  const m = ev.result();
  for (const k of [1, 3, 5]) {
    assertEquals(m[`P@${k}`], 0);
    assertEquals(m[`PSP@${k}`], 0);
  }
  // every label ties with every other one
  assertEquals(m.instanceAUC, 0.5);
  assertEquals(m.macroAUC, 0.5);
  assertEquals(m.hamming, 4 / 15);
});

Deno.test("Evaluator: fewer listed labels than k leave the remaining positions as misses", () => {
  const ev = new Evaluator(6, { propensities: flat(6), k: 5 });
  ev.addSparseScores(Int32Array.of(4, 2), Float64Array.of(-1, -3), Int32Array.of(2, 4));
  const m = ev.result();
  assertEquals(m["P@1"], 100);
  assertEquals(m["P@5"], 100 * 2 / 5);
});

Deno.test("Evaluator.addScores: labels from `scored` on are unknown to the model", async () => {
  const rand = mulberry32(7);
  const L = 9, S = 6;
  const dense = new Evaluator(L, { propensities: flat(L), k: 5 });
  const sparse = new Evaluator(L, { propensities: flat(L), k: 5 });
  for (let i = 0; i < 80; i++) {
    // coarse negative-leaning scores: unknown labels at 0 would outrank most of them
    const scores = Float32Array.from({ length: S }, () => Math.round(rand() * 6) / 2 - 2.5);
    const y = [...new Set([Math.floor(rand() * L), Math.floor(rand() * L)])].sort((a, b) => a - b);
    const top = dense.addScores(scores, Int32Array.from(y), S);
    assertEquals([...top.labels].every((l) => l < S), true, "only known labels are ranked");
    sparse.addSparseScores(
      Int32Array.from({ length: S }, (_, l) => l),
      Float64Array.from(scores),
      Int32Array.from(y),
    );
  }
  assertEquals(dense.result(), sparse.result());
  await assertThrowsMsg(
    () => dense.addScores(Float32Array.of(1), Int32Array.of(0), 2),
    RangeError,
    "1 scores for scored labels 2",
  );
  await assertThrowsMsg(
    () => dense.addScores(new Float32Array(L), Int32Array.of(0), L + 1),
    RangeError,
    "scored must be an integer in [0, 9]",
  );
});

Deno.test("evaluateModel: labels beyond the model's scores are misses, not hits at score 0", () => {
  // the model knows label 0 only and scores it below 0; rows carry label 1, unknown to it
  const model = { predictScores: () => Float32Array.of(-1) };
  const test = {
    numLabels: 3,
    x: {
      numRows: 2,
      numCols: 1,
      indptr: Int32Array.of(0, 1, 2),
      indices: Int32Array.of(0, 0),
      values: Float32Array.of(1, 1),
    },
    y: { numRows: 2, numCols: 3, indptr: Int32Array.of(0, 1, 3), indices: Int32Array.of(1, 1, 2) },
  };
  const { metrics } = evaluateModel(model, test, { propensities: flat(3), timingRows: 0 });
  for (const key of ["P@1", "P@3", "PSP@3", "coverage@3"]) assertEquals(metrics[key], 0, key);
  // a model with no label at all ranks nothing
  const none = { predictScores: () => new Float32Array(0) };
  const r = evaluateModel(none, test, { propensities: flat(3), timingRows: 0 });
  assertEquals(r.metrics["P@1"], 0);
  assertEquals(r.metrics["PSP@3"], 0);
  assertEquals(r.metrics.instanceAUC, 0.5);
});

Deno.test("Evaluator.addSparseScores: listed labels are validated and name the row", async () => {
  const ev = new Evaluator(3, { propensities: flat(3) });
  await assertThrowsMsg(
    () => ev.addSparseScores(Int32Array.of(3), Float64Array.of(1), Int32Array.of(0)),
    RangeError,
    "row 0: listed label 3 is out of range [0, 3)",
  );
  await assertThrowsMsg(
    () => ev.addSparseScores(Int32Array.of(1, 1), Float64Array.of(1, 2), Int32Array.of(0)),
    RangeError,
    "row 0: label 1 is listed twice",
  );
  await assertThrowsMsg(
    () => ev.addSparseScores(Int32Array.of(1), Float64Array.of(1, 2), Int32Array.of(0)),
    RangeError,
    "row 0: 1 listed labels but 2 scores",
  );
});

Deno.test("propensities: fewer than 3 training rows give valid propensities (all 1)", () => {
  for (const n of [1, 2]) {
    const p = propensities([1, 0, 2], n);
    assertEquals([...p].every((v) => v > 0 && v <= 1), true, `N = ${n}: ${p}`);
  }
  // from 3 rows on the formula weighs rare labels more
  const p3 = propensities([2, 0], 3);
  assertEquals(p3[0] > p3[1] && p3[0] <= 1 && p3[1] > 0, true);
});
