import { OvaEstimator } from "../../../src/models/ova/mod.ts";
import type { Example } from "../../../src/data/types.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { learn, syntheticRows as rows } from "./helpers.ts";
import { assert, assertEquals, assertThrowsMsg } from "../../helpers.ts";

const bytesOf = (st: ModelState) => Object.values(st.tensors).reduce((n, x) => n + x.byteLength, 0);

/** Asserts that two full states are the same, tensor by tensor and scalar by scalar. */
function assertSameState(a: ModelState, b: ModelState, where: string): void {
  assertEquals(Object.keys(a.tensors).sort(), Object.keys(b.tensors).sort(), `${where}: tensors`);
  for (const name of Object.keys(a.tensors)) {
    const x = a.tensors[name], y = b.tensors[name];
    assert(
      x.constructor === y.constructor && x.length === y.length &&
        x.every((v: number, i: number) => Object.is(v, y[i])),
      `${where}: tensor ${name} differs`,
    );
  }
  assertEquals(a.scalars, b.scalars, `${where}: scalars`);
}

/**
 * The checkpoint chain: a base state, then a state delta after each step (or a new base when
 * the model asks for one), each through a structured clone as it would be written; the chain
 * restored must be the learner, state for state, and learn on identically.
 */
function chain(m: OvaEstimator, data: Example[], steps: number[], batch = 8) {
  m.beginStateDeltas();
  let copy = OvaEstimator.restore(structuredClone(m.toState()));
  let deltas = 0, fulls = 0, s = 0, blocks = 0, deltaBytes = 0;
  for (const n of steps) {
    learn(m, data.slice(s, s + n), batch);
    s += n;
    const d = m.toStateDelta();
    if (d === undefined) {
      m.beginStateDeltas();
      copy = OvaEstimator.restore(structuredClone(m.toState()));
      fulls++;
    } else {
      assertEquals(d.scalars.delta, 2);
      blocks += d.tensors.blockFeatures.length;
      deltaBytes += bytesOf(d);
      copy.applyStateDelta(structuredClone(d));
      deltas++;
    }
    assertSameState(copy.toState(), m.toState(), `after ${s} rows`);
  }
  return { copy, deltas, fulls, blocks, deltaBytes };
}

Deno.test("ova state deltas: a base plus deltas restores the exact training state, which learns on bit for bit", () => {
  const D = 3000, L = 600;
  // later rows bring new features and labels
  const data = rows(100, D, L, 21).concat(rows(2500, D + 500, L + 100, 22));
  const m = new OvaEstimator({ seed: 3, maxLabelsPerFeature: 12, replay: 64 });
  learn(m, data.slice(0, 100));
  const [d0, l0] = [m.numFeatures, m.numLabels];
  const steps = [...Array(30).fill(16), 1000, ...Array(20).fill(8)];
  const { copy, deltas, blocks } = chain(m, data.slice(100, 2000), steps);
  assert(m.numLabels > l0 && m.numFeatures > d0, "no new labels or features mid-chain");
  assert(m.stats.evictions > 0 && blocks > 0, `no evicted block in a delta (${m.stats.evictions})`);
  assert(deltas >= steps.length - 2, `${deltas} deltas`);
  // the restored copy and the learner learn the rest alike (AdaGrad sums, window, rng, replay)
  learn(m, data.slice(2000), 8);
  learn(copy, data.slice(2000), 8);
  assertSameState(copy.toState(), m.toState(), "after learning on");
  assertEquals(copy.toModelFile({ quantize: "f32" }), m.toModelFile({ quantize: "f32" }));
});

Deno.test("ova state deltas: independent of the replica's log, and a global prune asks for a new base", () => {
  const D = 2000, L = 300;
  const data = rows(2000, D, L, 23);
  const m = new OvaEstimator({ seed: 4, maxWeights: 9000, loss: "squared-hinge" });
  m.stateDeltaMaxFraction = 1;
  learn(m, data.slice(0, 200));
  m.beginReplicaDeltas();
  const replica = OvaEstimator.restore(m.toReplicaState());
  const prunes0 = m.stats.prunes;
  // the replica takes its deltas at another pace, in between
  const steps = Array(100).fill(16);
  m.beginStateDeltas();
  let copy = OvaEstimator.restore(m.toState());
  let fulls = 0, s = 200;
  for (const [i, n] of steps.entries()) {
    learn(m, data.slice(s, s + n));
    s += n;
    if (i % 3 === 0) {
      const r = m.toReplicaDelta();
      if (r === undefined) m.beginReplicaDeltas();
      else replica.applyReplicaDelta(r);
    }
    const d = m.toStateDelta();
    if (d === undefined) {
      fulls++;
      m.beginStateDeltas();
      copy = OvaEstimator.restore(m.toState());
    } else copy.applyStateDelta(d);
    assertSameState(copy.toState(), m.toState(), `after ${s} rows`);
  }
  const prunes = m.stats.prunes - prunes0;
  assert(prunes >= 2, `${prunes} prunes`);
  assertEquals(fulls, prunes, "one new base per prune");
});

Deno.test("ova state deltas: a delta's size follows the changes, and a big one asks for a base", () => {
  const D = 5000, L = 2000;
  const m = new OvaEstimator({ seed: 5 });
  learn(m, rows(3000, D, L, 27));
  const full = bytesOf(m.toState());
  m.beginStateDeltas();
  learn(m, rows(4, D, L, 28));
  const small = m.toStateDelta()!;
  assert(bytesOf(small) * 50 < full, `4 rows: ${bytesOf(small)} B of a ${full} B state`);
  learn(m, rows(2500, D, L, 29));
  assertEquals(m.toStateDelta(), undefined, "more than half the state: a base instead");
  assertEquals(m.toStateDelta(), undefined, "logging stays off until the next begin");
});

Deno.test("ova state deltas: a delta that does not follow, or does not fit, is refused and changes nothing", async () => {
  const D = 800, L = 100;
  const data = rows(500, D, L, 31);
  const m = new OvaEstimator({ seed: 7, maxLabelsPerFeature: 5 });
  learn(m, data.slice(0, 300));
  assertEquals(m.toStateDelta(), undefined, "not begun");
  m.beginStateDeltas();
  const base = m.toState();
  const copy = OvaEstimator.restore(base);
  learn(m, data.slice(300, 400));
  const d1 = m.toStateDelta(1)!;
  learn(m, data.slice(400));
  const d2 = m.toStateDelta(1)!;
  await assertThrowsMsg(
    () => copy.applyStateDelta(d2),
    RangeError,
    "the delta follows state 2, this model is at 1",
  );
  const replicaDelta = { ...d1, scalars: { ...d1.scalars, delta: 1 } };
  await assertThrowsMsg(() => copy.applyStateDelta(replicaDelta), RangeError, "not a state delta");
  const short = { ...d1, tensors: { ...d1.tensors, entrySums: new Float32Array(1) } };
  await assertThrowsMsg(
    () => copy.applyStateDelta(short),
    RangeError,
    "tensor entrySums must be a Float32Array of length",
  );
  assertSameState(copy.toState(), base, "after the refusals");
  await assertThrowsMsg(
    () => OvaEstimator.restore(m.toReplicaState()).applyStateDelta(d1),
    TypeError,
    "this model is a replica",
  );
  copy.applyStateDelta(d1);
  copy.applyStateDelta(d2);
  assertSameState(copy.toState(), m.toState(), "after both");
});
