/**
 * A label's first positive sets its bias from the "unseen" value to `biasInit`. When that step
 * has a zero gradient (squared hinge with `biasInit` ≥ 1 meets the margin; a large `biasInit`
 * saturates the sigmoid), nothing else logs the label: the replica and state deltas must still
 * carry its new bias, and a model restored from a replica must learn on with a fresh window.
 */
import { OvaEstimator } from "../../../src/models/ova/mod.ts";
import { assert, assertEquals } from "../../helpers.ts";

const x = (j: number) => ({ indices: Int32Array.of(j), values: Float32Array.of(1) });

for (
  const opts of [
    { loss: "squared-hinge", biasInit: 1 },
    { loss: "squared-hinge", biasInit: 3 },
    { biasInit: 50 },
  ]
) {
  const what = JSON.stringify(opts);
  Deno.test(`ova replica deltas carry a new label's bias when its first step is zero (${what})`, () => {
    const m = new OvaEstimator({ seed: 1, ...opts });
    m.replicaDeltaMaxFraction = 100; // a tiny model: any delta is bigger than it
    m.learnOne(x(0), [0]);
    m.beginReplicaDeltas();
    const r = OvaEstimator.restore(m.toReplicaState());
    m.learnOne(x(1), [1]);
    r.applyReplicaDelta(m.toReplicaDelta()!);
    for (const q of [x(0), x(1), x(2)]) {
      assertEquals([...r.predictScores(q)], [...m.predictScores(q)], `${what}: scores`);
      assertEquals([...r.predictTopK(q, 2).labels], [...m.predictTopK(q, 2).labels]);
    }
  });

  Deno.test(`ova state deltas carry a new label's bias when its first step is zero (${what})`, () => {
    const m = new OvaEstimator({ seed: 1, ...opts });
    m.learnOne(x(0), [0]);
    m.beginStateDeltas();
    const c = OvaEstimator.restore(m.toState());
    m.learnOne(x(1), [1]);
    c.applyStateDelta(m.toStateDelta(100)!);
    for (const q of [x(0), x(1), x(2)]) {
      assertEquals([...c.predictScores(q)], [...m.predictScores(q)], `${what}: scores`);
    }
  });
}

Deno.test("ova: a model restored from a replica state learns on with a fresh frequency window", () => {
  // no hard negatives: a label is a negative only when drawn from the window of recent
  // positives, which after the restore holds only the new rows' label 2
  const m = new OvaEstimator({ seed: 1, hardNegatives: 0 });
  for (let i = 0; i < 50; i++) {
    m.learnOne(x(0), [0]);
    m.learnOne(x(1), [1]);
  }
  const st = m.toReplicaState();
  assert(st.scalars.windowPos > 0, "the learner's window has moved on");
  const r = OvaEstimator.restore(st);
  const before = [...r.predictScores(x(0))];
  for (let i = 0; i < 20; i++) r.learnOne(x(2), [2]);
  const after = r.predictScores(x(0));
  // labels 0 and 1 were neither positives nor drawn as negatives: their scores stay
  assertEquals([after[0], after[1]], [before[0], before[1]]);
  assertEquals(r.predictTopK(x(2), 1).labels[0], 2);
});
