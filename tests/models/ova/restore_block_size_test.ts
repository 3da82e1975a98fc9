/**
 * `ova.restore` bounds the weight blocks a state asks for: a block grows only while its feature
 * holds fewer than `maxLabelsPerFeature` labels, so a `tableLogs` entry past that size is no
 * learner's and is refused (one byte of 29 allocated 2^29 slots, about 10 GB), while every state
 * the learner and its replicas write still restores.
 */
import { OvaEstimator } from "../../../src/models/ova/mod.ts";
import { learn, syntheticRows as rows } from "./helpers.ts";
import { assert } from "../../helpers.ts";

Deno.test("ova.restore refuses a block size past maxLabelsPerFeature, naming the feature", () => {
  const m = new OvaEstimator({ seed: 1, maxLabelsPerFeature: 8 });
  learn(m, rows(40, 30, 20, 1));
  for (const replica of [false, true]) {
    const st = replica ? m.toReplicaState() : m.toState();
    const logs = st.tensors.tableLogs as Uint8Array;
    const j = logs.findIndex((v) => v > 0);
    assert(j >= 0, "no block");
    logs[j] = 22; // 4M slots for a feature that holds at most 8 labels
    let err: unknown;
    try {
      OvaEstimator.restore(st);
    } catch (e) {
      err = e;
    }
    assert(err instanceof RangeError, `replica ${replica}: taken`);
    assert(err.message.includes(`tableLogs[${j}] = 22`), err.message);
  }
});

Deno.test("ova.restore takes every block size its learners and replicas write", () => {
  for (const cap of [4, 5, 9, 17]) {
    const m = new OvaEstimator({ seed: cap, maxLabelsPerFeature: cap });
    m.replicaDeltaMaxFraction = 1e9;
    const data = rows(600, 40, 200, cap);
    learn(m, data.slice(0, 100), 10);
    m.beginReplicaDeltas();
    const r = OvaEstimator.restore(m.toReplicaState());
    for (let s = 100; s < 600; s += 100) {
      learn(m, data.slice(s, s + 100), 7);
      r.applyReplicaDelta(m.toReplicaDelta()!);
      OvaEstimator.restore(m.toState());
      OvaEstimator.restore(r.toReplicaState());
    }
    assert(m.stats.evictions > 0, `cap ${cap}: no eviction`);
  }
});
