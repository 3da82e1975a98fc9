/**
 * `toStateDelta(maxFraction)`: with `stateDeltaMaxFraction` raised before the changes, a delta of
 * up to that fraction applies exactly; fractions that are not numbers >= 0 are refused.
 */
import { OvaEstimator } from "../../../src/models/ova/mod.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { learn, syntheticRows as rows } from "./helpers.ts";
import { assert, assertEquals } from "../../helpers.ts";

const bytesOf = (st: ModelState) => Object.values(st.tensors).reduce((n, x) => n + x.byteLength, 0);

Deno.test("ova.toStateDelta(1) with stateDeltaMaxFraction 1 gives a delta that applies exactly", () => {
  const data = rows(1200, 3000, 400, 1);
  const m = new OvaEstimator({ seed: 1 });
  learn(m, data.slice(0, 1000));
  m.stateDeltaMaxFraction = 1;
  m.beginStateDeltas();
  const copy = OvaEstimator.restore(m.toState());
  learn(m, data.slice(1000, 1200));
  const full = m.toState();
  const d = m.toStateDelta(1);
  assert(d !== undefined, "no delta for toStateDelta(1)");
  assert(bytesOf(d) < bytesOf(full), `a delta of ${bytesOf(d)} bytes, the state ${bytesOf(full)}`);
  copy.applyStateDelta(d);
  const a = copy.toState(), b = m.toState();
  assertEquals(Object.keys(a.tensors).sort(), Object.keys(b.tensors).sort());
  for (const k of Object.keys(b.tensors)) {
    assert(
      a.tensors[k].length === b.tensors[k].length &&
        a.tensors[k].every((v, i) => Object.is(v, b.tensors[k][i])),
      `tensor ${k} differs`,
    );
  }
});

Deno.test("ova delta fractions that are not numbers >= 0 are refused, naming them", () => {
  const x = { indices: Int32Array.of(0, 3), values: Float32Array.of(1, 1) };
  const m = new OvaEstimator({ seed: 1 });
  m.learnOne(x, [2]);
  m.beginStateDeltas();
  m.beginReplicaDeltas();
  m.learnOne(x, [5]);
  for (const bad of [NaN, -1, -Infinity]) {
    let err: unknown;
    try {
      m.toStateDelta(bad);
    } catch (e) {
      err = e;
    }
    assert(err instanceof RangeError, `toStateDelta(${bad}) was taken`);
    assert(err.message.includes(`ova.toStateDelta: maxFraction must be a number >= 0, got ${bad}`));
    m.replicaDeltaMaxFraction = bad;
    err = undefined;
    try {
      m.toReplicaDelta();
    } catch (e) {
      err = e;
    }
    assert(err instanceof RangeError, `replicaDeltaMaxFraction ${bad} was taken`);
    assert(err.message.includes("replicaDeltaMaxFraction must be a number >= 0"), err.message);
  }
  // refused before anything was taken from the logs: good values still give the deltas
  m.replicaDeltaMaxFraction = Infinity;
  assert(m.toReplicaDelta() !== undefined, "no replica delta after the refusals");
  assert(m.toStateDelta(Infinity) !== undefined, "no state delta after the refusals");
});
