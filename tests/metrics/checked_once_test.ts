// The Evaluator checks a row once for all its accumulators (passing them ROW_CHECKED), and counts
// exactly what their checking calls count when fed the same rows; called without ROW_CHECKED,
// the accumulators still check (api_boundary_test; anything else in its place checks too).
import { Evaluator } from "../../src/metrics/evaluate.ts";
import { HammingLoss } from "../../src/metrics/hamming.ts";
import { InstanceAuc } from "../../src/metrics/instance_auc.ts";
import { MacroAuc } from "../../src/metrics/macro_auc.ts";
import { checkDenseScores, ROW_CHECKED } from "../../src/metrics/relevance.ts";
import { topKDense } from "../../sdk/internal.ts";
import { assert, assertEquals } from "../helpers.ts";
import { mulberry32 } from "../mulberry32.ts";

/** A view of `a` that counts the reads of its entries. */
function counted(a: number[]): { scores: number[]; reads: () => number } {
  let n = 0;
  const scores = new Proxy(a, {
    get(t, key, r) {
      if (typeof key === "string" && /^\d+$/.test(key)) n++;
      return Reflect.get(t, key, r);
    },
  });
  return { scores, reads: () => n };
}

/** How many entries of `scores` `f` reads. */
function readsOf(scores: number[], f: (s: number[]) => void): number {
  const c = counted(scores);
  f(c.scores);
  return c.reads();
}

Deno.test("Evaluator.addScores scans a dense row for NaN once, not once per accumulator", () => {
  const rnd = mulberry32(3);
  const L = 50, scores = Array.from({ length: L }, () => rnd() - 0.5), labels = Int32Array.of(4, 9);
  const propensities = new Float64Array(L).fill(0.5);
  const evaluator = readsOf(scores, (s) => {
    new Evaluator(L, { propensities, k: 5 }).addScores(s, labels);
  });
  const nanScan = readsOf(scores, (s) => checkDenseScores(s, "row"));
  const publicOnes = readsOf(scores, (s) => {
    topKDense(s, 5);
    new HammingLoss().addDense(s, labels);
    new InstanceAuc().addDense(s, labels);
    new MacroAuc().addDense(s, labels);
  });
  assert(nanScan >= L, `${nanScan} reads`);
  // one scan by the Evaluator instead of one in each of the three accumulators
  assertEquals(evaluator, publicOnes - 2 * nanScan);
});

Deno.test("Evaluator: the checked path counts what the public methods count", () => {
  const rnd = mulberry32(11);
  const L = 12;
  const ev = new Evaluator(L, { propensities: new Float64Array(L).fill(0.5), k: 3 });
  const h = new HammingLoss(), ia = new InstanceAuc(), ma = new MacroAuc();
  const labelsOf = () => Int32Array.from({ length: L }, (_, l) => l).filter(() => rnd() < 0.3);
  for (let i = 0; i < 40; i++) {
    const labels = labelsOf();
    const scores = Float32Array.from({ length: L }, () => (rnd() < 0.2 ? 0 : rnd() - 0.4));
    if (i % 3 === 0) { // dense
      ev.addScores(scores, labels);
      h.addDense(scores, labels);
      ia.addDense(scores, labels);
      ma.addDense(scores, labels);
    } else if (i % 3 === 1) { // the first `scored` labels scored: listed pairs
      const scored = 1 + Math.floor(rnd() * (L - 1));
      ev.addScores(scores, labels, scored);
      const iota = Int32Array.from({ length: scored }, (_, l) => l);
      const read = scores.subarray(0, scored);
      h.addSparse(iota, read, L, labels);
      ia.addSparse(iota, read, L, labels, "unscored");
      ma.addSparse(iota, read, L, labels, "unscored");
    } else { // listed pairs, any order
      const indices = Int32Array.from({ length: L }, (_, l) => L - 1 - l).filter(() => rnd() < 0.5);
      const listed = Float64Array.from(indices, () => rnd() - 0.5);
      ev.addSparseScores(indices, listed, labels);
      h.addSparse(indices, listed, L, labels);
      ia.addSparse(indices, listed, L, labels, "unscored");
      ma.addSparse(indices, listed, L, labels, "unscored");
    }
  }
  const r = ev.result();
  assertEquals([r.hamming, r.instanceAUC, r.macroAUC], [h.result(), ia.result(), ma.result()]);
  assert(r.instanceAUC > 0 && r.macroAUC > 0 && r.hamming > 0, JSON.stringify(r));
});

Deno.test("accumulators: only ROW_CHECKED skips their checks", () => {
  const nan = Float32Array.of(0.5, NaN), labels = Int32Array.of(0);
  for (const other of [undefined, true, Symbol("row checked")]) {
    for (
      const [name, add] of [
        ["HammingLoss", (c: unknown) => new HammingLoss().addDense(nan, labels, c as never)],
        ["InstanceAuc", (c: unknown) => new InstanceAuc().addDense(nan, labels, c as never)],
        ["MacroAuc", (c: unknown) => new MacroAuc().addDense(nan, labels, c as never)],
        [
          "HammingLoss",
          (c: unknown) => new HammingLoss().addSparse([1], [NaN], 2, labels, c as never),
        ],
        [
          "InstanceAuc",
          (c: unknown) => new InstanceAuc().addSparse([1], [NaN], 2, labels, "zero", c as never),
        ],
        [
          "MacroAuc",
          (c: unknown) => new MacroAuc().addSparse([1], [NaN], 2, labels, "zero", c as never),
        ],
      ] as const
    ) {
      let message = "";
      try {
        add(other);
      } catch (e) {
        message = (e as Error).message;
      }
      assert(
        new RegExp(`^${name}\\.add(Dense|Sparse): score of label 1 is NaN$`).test(message),
        `${name} with ${String(other)}: ${message}`,
      );
    }
  }
  const h = new HammingLoss();
  h.addDense(Float32Array.of(1, -1), labels, ROW_CHECKED);
  assertEquals(h.result(), 0);
});
