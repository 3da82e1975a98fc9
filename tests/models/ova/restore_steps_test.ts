// OvaEstimator.restoreSteps (the serving thread's replica rebuild in slices): the same model as
// restore() in one go, whatever the step, with the same refusals; the steps are counted.
import { OvaEstimator } from "../../../src/models/ova/estimator.ts";
import { BiasHeap } from "../../../src/models/ova/bias_heap.ts";
import { syntheticExamples } from "../../../src/data/synthetic.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assert, assertEquals, assertThrowsMsg } from "../../helpers.ts";

function trained(rows = 400): OvaEstimator {
  const m = new OvaEstimator({ seed: 2, maxLabelsPerFeature: 32 });
  for (
    const e of syntheticExamples({ rows, numFeatures: 300, numLabels: 120, avgNnz: 8, seed: 4 })
  ) m.learnOne(e.x, e.labels);
  return m;
}

function drain(state: ModelState, step: number): { model: OvaEstimator; yields: number } {
  const steps = OvaEstimator.restoreSteps(state, step);
  let r = steps.next(), yields = 0;
  for (; !r.done; r = steps.next()) yields++;
  return { model: r.value, yields };
}

function answers(m: OvaEstimator): string[] {
  return [...syntheticExamples({ rows: 40, numFeatures: 300, numLabels: 120, avgNnz: 8, seed: 9 })]
    .map((e) => {
      const t = m.predictTopK(e.x, 10);
      return `${t.labels.join()}|${t.scores.join()}|${m.predictScores(e.x).join()}`;
    });
}

Deno.test("ova.restoreSteps: in small steps, the same replica and model as restore() in one go", () => {
  const m = trained();
  for (const state of [m.toReplicaState(), m.toState()]) {
    const whole = OvaEstimator.restore(state);
    const { model, yields } = drain(state, 16);
    assert(yields > 100, `only ${yields} steps`);
    assertEquals(answers(model), answers(whole));
    assertEquals(answers(model), answers(m));
    assertEquals(model.toModelFile(), whole.toModelFile());
    assertEquals(model.toState().tensors, whole.toState().tensors);
  }
});

Deno.test("ova.restoreSteps: a replica restored in steps takes deltas as one restored at once", () => {
  const m = trained();
  m.replicaDeltaMaxFraction = 1;
  m.beginReplicaDeltas();
  const base = m.toReplicaState();
  const whole = OvaEstimator.restore(base), { model } = drain(base, 7);
  for (const e of syntheticExamples({ rows: 20, numFeatures: 400, numLabels: 150, seed: 5 })) {
    m.learnOne(e.x, e.labels);
  }
  const d = m.toReplicaDelta();
  assert(d !== undefined, "no delta");
  whole.applyReplicaDelta(d);
  model.applyReplicaDelta(d);
  assertEquals(answers(model), answers(whole));
  assertEquals(answers(model), answers(m));
});

Deno.test("ova.restoreSteps: a damaged state is refused with restore()'s message", async () => {
  const m = trained(50);
  const bad = (tensors: Record<string, unknown>): ModelState => {
    const s = m.toReplicaState();
    return { ...s, tensors: { ...s.tensors, ...tensors } } as ModelState;
  };
  const w = (m.toReplicaState().tensors.weights as Float32Array).slice();
  w[w.length - 1] = NaN;
  const labels = (m.toReplicaState().tensors.labels as Int32Array).slice();
  labels[3] = 10_000;
  for (const state of [bad({ weights: w }), bad({ labels })]) {
    let expected = "";
    try {
      OvaEstimator.restore(state);
    } catch (e) {
      expected = (e as Error).message;
    }
    assert(expected !== "", "restore() took a damaged state");
    await assertThrowsMsg(() => drain(state, 3), RangeError, expected);
  }
});

Deno.test("BiasHeap.buildSteps: the same walk as the constructor's heap", () => {
  const bias = Float32Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 101) / 10);
  const walk = (h: BiasHeap) => {
    const seen: number[] = [];
    h.walk((l) => seen.push(l) < 1000);
    return seen;
  };
  const steps = BiasHeap.buildSteps(bias, 1000, 10);
  let r = steps.next(), yields = 0;
  for (; !r.done; r = steps.next()) yields++;
  assert(yields >= 100, `only ${yields} steps`);
  assertEquals(walk(r.value), walk(new BiasHeap(bias, 1000)));
});
