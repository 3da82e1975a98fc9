import { BrEstimator } from "../../../src/models/br/estimator.ts";
import { RAW_VALUE_LIMIT } from "../../../src/models/raw_value_limit.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert, messageOf } from "../../helpers.ts";
import {
  nonFiniteTensors,
  TOY_FEATURES,
  TOY_LABELS,
  toyBatch,
  toyMisses,
} from "../extreme_rows.ts";

const sizes = { numFeatures: TOY_FEATURES, numLabels: TOY_LABELS };

Deno.test("br: Adam on raw values up to 1e38 keeps the float32 moments finite and the true label first", () => {
  const cases = [[1e20, false], [1e30, false], [1e30, true], [1e38, false]] as const;
  for (const loss of ["logistic", "squared-hinge"] as const) {
    for (const [magnitude, mixed] of cases) {
      const what = `${loss} at ${mixed ? "±" : ""}${magnitude}`;
      const m = new BrEstimator({ loss, ...sizes });
      for (let b = 0; b < 20; b++) m.learnMany(toyBatch(b, magnitude, mixed));
      const bad = nonFiniteTensors(m.toState()); // vw was Infinity from the first batch on
      assert(bad.length === 0, `${what}: non-finite ${bad}`);
      const misses = toyMisses(m, magnitude, mixed);
      assert(misses.length === 0, `${what}: ${misses}`);
      assert(toyMisses(loadModel(m.toModelFile()), magnitude, mixed).length === 0, `${what}: SDK`);
    }
  }
});

Deno.test("br: SGD on raw values refuses a value past the limit, naming row, feature and limit, and changes nothing", () => {
  for (const loss of ["logistic", "squared-hinge"] as const) {
    const m = new BrEstimator({ loss, optimizer: "sgd", ...sizes });
    for (let b = 0; b < 5; b++) m.learnMany(toyBatch(b, RAW_VALUE_LIMIT / 2));
    assert(toyMisses(m, RAW_VALUE_LIMIT / 2).length === 0, `${loss}: under the limit`);
    const before = m.toState();
    const batch = toyBatch(9, 1e30); // its scores overflowed float32: ±Infinity, ties
    const msg = messageOf(() => m.learnMany(batch));
    const want = `br.learnMany: cannot learn row 0 of the batch: feature ${
      batch.x.indices[0]
    } has value 1e+30, above the limit 1e+15 for raw feature values of SGD`;
    assert(msg.startsWith(want), msg);
    const after = m.toState();
    for (const [k, t] of Object.entries(before.tensors)) {
      const u = after.tensors[k];
      assert(u.length === t.length && u.every((v, i) => Object.is(v, t[i])), `tensor ${k} changed`);
    }
    // normalised rows have no limit
    const n = new BrEstimator({ loss, optimizer: "sgd", l2Normalize: true, ...sizes });
    for (let b = 0; b < 20; b++) n.learnMany(toyBatch(b, 1e38, true));
    assert(nonFiniteTensors(n.toState()).length === 0, `${loss}: l2Normalize`);
    assert(
      toyMisses(n, 1e38, true).length === 0,
      `${loss}: l2Normalize ${toyMisses(n, 1e38, true)}`,
    );
  }
});
