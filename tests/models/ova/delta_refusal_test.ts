/**
 * A state or replica delta is applied whole or refused with a RangeError naming the part, the
 * model left exactly as it was: deltas that pass the structural check but carry values the
 * learner never sends (non-finite weights, NaN sums, a skipping sequence number, sizes past the
 * limits, generator states out of range); a base holding NaN weights is refused at restore.
 *
 * @module
 */
import { OvaEstimator } from "../../../src/models/ova/mod.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { stateDifference } from "../estimator_checks.ts";
import { learn, syntheticRows as rows } from "./helpers.ts";
import { assert, assertEquals } from "../../helpers.ts";

type Edit = (t: Record<string, Float32Array | Float64Array>, sc: Record<string, number>) => void;

/** A learner's base and next delta (a state delta with `state`, else a replica delta). */
function setUp(state: boolean) {
  const data = rows(340, 800, 100, 12);
  const m = new OvaEstimator({ seed: 7, maxLabelsPerFeature: 5, replay: 16, maxFeatures: 1000 });
  m.replicaDeltaMaxFraction = 1;
  learn(m, data.slice(0, 300));
  if (state) m.beginStateDeltas();
  else m.beginReplicaDeltas();
  const base = structuredClone(state ? m.toState() : m.toReplicaState());
  learn(m, data.slice(300));
  const delta = state ? m.toStateDelta(1)! : m.toReplicaDelta()!;
  assert(delta.tensors.blockFeatures.length > 0, "no whole block in the delta");
  const snapshot = (r: OvaEstimator) => structuredClone(state ? r.toState() : r.toReplicaState());
  const apply = (r: OvaEstimator, d: ModelState) =>
    state ? r.applyStateDelta(d) : r.applyReplicaDelta(d);
  return { m, base, delta, snapshot, apply };
}

for (const state of [true, false]) {
  const what = state ? "state" : "replica";
  Deno.test(`ova ${what} deltas: values the learner never sends are refused, naming the part, and change nothing`, () => {
    const { base, delta, snapshot, apply } = setUp(state);
    const edited = (edit: Edit) => {
      const c = structuredClone(delta);
      edit(c.tensors as Record<string, Float32Array>, c.scalars);
      return c;
    };
    const cases: [Edit, RegExp][] = [
      [(t) => t.entryWeights[0] = NaN, /entryWeights\[0\] = NaN is not finite/],
      [
        (t) => t.blockWeights[t.blockWeights.length - 1] = Infinity,
        /blockWeights\[\d+\] = Infinity is not finite/,
      ],
      [(t) => t.biasValues[0] = -Infinity, /biasValues\[0\] = -Infinity is not finite/],
      [(_t, sc) => sc.deltaSeq += 2, /scalar deltaSeq must be deltaBase \+ 1 = \d+, got \d+/],
      [(_t, sc) => sc.numFeatures = 1001, /numFeatures 1001 is above maxFeatures 1000/],
    ];
    if (state) {
      cases.push(
        [(t) => t.entrySums[0] = NaN, /entrySums\[0\] = NaN is not a sum >= 0/],
        [(t) => t.blockSums[0] = -1, /blockSums\[0\] = -1 is not a sum >= 0/],
        [(t) => t.biasSums[0] = NaN, /biasSums\[0\] = NaN is not a sum >= 0/],
        [(t) => t.counts[0] = 0.5, /counts\[0\] = 0.5 is not a count/],
        [(_t, sc) => sc.rng = -1, /scalar rng -1 is not a generator state/],
        [(_t, sc) => sc.rng = 2 ** 32, /scalar rng \d+ is not a generator state/],
        [(_t, sc) => sc.reservoirRng = NaN, /scalar reservoirRng NaN is not a generator state/],
        [(_t, sc) => sc.reservoirSeen = NaN, /scalar reservoirSeen NaN is not a count/],
        // the window is not full yet: its next slot is its length
        [(_t, sc) => sc.windowPos--, /scalar windowPos \d+ is out of range/],
      );
    }
    const r = OvaEstimator.restore(structuredClone(base));
    const before = snapshot(r);
    for (const [edit, re] of cases) {
      let msg = "applied";
      try {
        apply(r, edited(edit));
      } catch (e) {
        assert(e instanceof RangeError, `${re}: ${e}`);
        msg = e.message;
      }
      assert(re.test(msg), `expected ${re}, got '${msg}'`);
      const diff = stateDifference(before, snapshot(r));
      assert(diff === undefined, `${re}: the refused delta changed the model: ${diff}`);
    }
    apply(r, delta); // the delta itself still applies
  });

  // a model never holds NaN weights: the base a delta applies to refuses them at restore (it
  // used to take them, and the delta's whole blocks had to replace them)
  Deno.test(`ova ${what} deltas: a base with NaN weights in a delta's blocks is refused at restore; a clean one takes the delta`, () => {
    const { m, base, delta, snapshot, apply } = setUp(state);
    const bf = delta.tensors.blockFeatures;
    const nan = structuredClone(base), p = nan.tensors.featPtr;
    for (const j of [bf[0], bf[bf.length - 1]]) {
      assert(p[j + 1] > p[j], `feature ${j} has no weights in the base`);
      nan.tensors.weights.fill(NaN, p[j], p[j + 1]);
    }
    let msg = "restored";
    try {
      OvaEstimator.restore(nan);
    } catch (e) {
      assert(e instanceof RangeError, String(e));
      msg = e.message;
    }
    assert(/^ova\.restore: weights\[\d+\] = NaN is not finite$/.test(msg), msg);
    const clean = OvaEstimator.restore(structuredClone(base));
    apply(clean, delta);
    const again = OvaEstimator.restore(snapshot(clean));
    assertEquals(stateDifference(snapshot(again), snapshot(clean)), undefined);
    if (state) {
      assertEquals(stateDifference(clean.toState(), m.toState()), undefined, "the learner's");
    }
  });
}

Deno.test("ova state deltas: AdaGrad sums that overflowed to +Infinity in learning are taken", () => {
  const m = new OvaEstimator({ seed: 1, l2Normalize: false });
  m.stateDeltaMaxFraction = 100; // a tiny model
  m.beginStateDeltas();
  const copy = OvaEstimator.restore(structuredClone(m.toState()));
  const older = OvaEstimator.restore(structuredClone(m.toState()));
  const x = { indices: Int32Array.of(0, 1), values: Float32Array.of(3e38, -3e38) };
  for (let i = 0; i < 6; i++) m.learnOne(x, [i % 3]);
  const d = m.toStateDelta()!;
  // the sums saturate at the largest float32 now (tests/models/ova/extreme_values_test.ts) ...
  assert([...d.tensors.entrySums].every(Number.isFinite), "a sum overflowed");
  copy.applyStateDelta(d);
  assertEquals(stateDifference(copy.toState(), m.toState()), undefined);
  // ... but a learner before that overflowed them to +Infinity: its deltas are still taken
  const sums = Float32Array.from(d.tensors.entrySums);
  sums[0] = Infinity;
  older.applyStateDelta({ ...d, tensors: { ...d.tensors, entrySums: sums } });
  assert([...older.toState().tensors.sums].includes(Infinity), "the Infinity sums were not taken");
});
