import {
  applyPop,
  impactOrder,
  keepTopDelta,
  labelImpact,
  labelOptimization,
  pop,
  thresholdWeights,
} from "../../src/prune/pop.ts";
import { validationPsp } from "../../src/prune/validation.ts";
import { trainDcd } from "../../src/models/br/dcd.ts";
import type { LabelWeights } from "../../src/models/label_weights.ts";
import { randomLabelWeights } from "../models/br/helpers.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { assert } from "../helpers.ts";

function labelEntries(w: LabelWeights, l: number): Map<number, number> {
  const m = new Map<number, number>();
  for (let p = w.labelPtr[l]; p < w.labelPtr[l + 1]; p++) m.set(w.featIdx[p], w.values[p]);
  return m;
}

Deno.test("keepTopDelta keeps exactly the δ largest |w| of masked labels, others untouched", () => {
  const w = randomLabelWeights(30, 6, 1, { density: 0.6, scale: 0.2, bias: false });
  const mask = Uint8Array.of(1, 0, 1, 0, 1, 0);
  const p = keepTopDelta(w, mask, 4);
  for (let l = 0; l < 6; l++) {
    const before = labelEntries(w, l), after = labelEntries(p, l);
    if (!mask[l]) {
      assert(after.size === before.size, `label ${l} changed`);
      continue;
    }
    assert(after.size === Math.min(4, before.size), `label ${l} kept ${after.size}`);
    const minKept = Math.min(...[...after.values()].map(Math.abs));
    for (const [j, v] of before) {
      if (after.has(j)) assert(after.get(j) === v, `label ${l} feature ${j} value changed`);
      else assert(Math.abs(v) <= minKept, `label ${l}: dropped ${v} larger than kept ${minKept}`);
    }
  }
});

Deno.test("thresholdWeights zeroes [−√λ, √λ] but keeps at least δ per label", () => {
  const w = randomLabelWeights(40, 8, 2, { density: 0.6, scale: 0.2, bias: false });
  const lambda = 0.04, t = Math.sqrt(lambda), delta = 3;
  const p = thresholdWeights(w, lambda, delta);
  for (let l = 0; l < 8; l++) {
    const before = labelEntries(w, l), after = labelEntries(p, l);
    const big = [...before.values()].filter((v) => Math.abs(v) > t).length;
    assert(after.size === Math.max(big, Math.min(delta, before.size)), `label ${l}: ${after.size}`);
    for (const [j, v] of after) assert(before.get(j) === v, `label ${l} feature ${j}`);
  }
  assert(p.labelPtr[8] < w.labelPtr[8], "nothing was pruned");
});

Deno.test("impact order ranks labels by count / propensity, ascending", () => {
  const counts = [50, 2, 10, 2];
  const p = propensities(counts, 100);
  const order = impactOrder(labelImpact(counts, p));
  const impact = labelImpact(counts, p);
  for (let i = 1; i < order.length; i++) assert(impact[order[i - 1]] <= impact[order[i]], "order");
  assert(order[order.length - 1] === 0, "most frequent label is last");
});

/** BR on the planted data, with a held-out validation part. */
function plantedSetup() {
  const data = plantedData(400, 12, 3);
  const tr = makeBatch(data.rows.slice(0, 300), data.numFeatures, data.numLabels);
  const va = makeBatch(data.rows.slice(300), data.numFeatures, data.numLabels);
  const w = trainDcd(tr.x, tr.y, { C: 1 });
  const counts = new Int32Array(data.numLabels);
  for (const l of tr.y.indices) counts[l]++;
  const p = propensities(counts, 300);
  return { w, va, counts, p };
}

Deno.test("labelOptimization returns the binary-search boundary of the PSP constraint", () => {
  const { w, va, counts, p } = plantedSetup();
  const order = impactOrder(labelImpact(counts, p));
  const eps = 0.02, delta = 2;
  const r = labelOptimization(w, va, p, order, { epsilon: eps, delta });
  const base = validationPsp(w, va, p);
  assert(r.baseline.join() === base.join(), "baseline");
  const ok = (m: number) => {
    const mask = new Uint8Array(w.numLabels);
    for (let i = 0; i < m; i++) mask[order[i]] = 1;
    const psp = validationPsp(keepTopDelta(w, mask, delta), va, p);
    return psp.every((v, i) => v >= (1 - eps) * base[i] - 1e-9);
  };
  assert(ok(r.numPrunedLabels), `m=${r.numPrunedLabels} violates the constraint`);
  if (r.numPrunedLabels < w.numLabels) {
    assert(!ok(r.numPrunedLabels + 1), `m+1=${r.numPrunedLabels + 1} also satisfies it`);
  }
  // the binary search, and m = L once every probe below it passed
  assert(r.evaluations <= Math.ceil(Math.log2(w.numLabels)) + 2, `${r.evaluations} evaluations`);
  // a loose tolerance prunes at least as many labels
  const loose = labelOptimization(w, va, p, order, { epsilon: 0.5, delta });
  assert(loose.numPrunedLabels >= r.numPrunedLabels, "monotone in epsilon");
});

Deno.test("pop shrinks the planted BR model and applyPop reproduces it", () => {
  const { w, va, counts, p } = plantedSetup();
  const opts = { epsilon: 0.05, lambda: 0.01, delta: 3 };
  const r = pop(w, va, counts, p, opts);
  assert(r.nnzAfter < r.nnzBefore / 2, `nnz ${r.nnzBefore} -> ${r.nnzAfter}`);
  for (let l = 0; l < w.numLabels; l++) {
    const n = r.model.labelPtr[l + 1] - r.model.labelPtr[l];
    assert(n >= Math.min(3, w.labelPtr[l + 1] - w.labelPtr[l]), `label ${l} kept ${n}`);
  }
  assert(r.final[0] >= 0.8 * r.baseline[0], `PSP@1 ${r.final[0]} vs ${r.baseline[0]}`);
  const order = impactOrder(labelImpact(counts, p));
  const again = applyPop(w, order, r.numPrunedLabels, opts);
  assert(again.values.join() === r.model.values.join(), "applyPop differs from pop");
  let threw = false;
  try {
    pop(w, va, counts, p, { epsilon: 1.5 });
  } catch (e) {
    threw = e instanceof RangeError;
  }
  assert(threw, "epsilon out of range accepted");
});
