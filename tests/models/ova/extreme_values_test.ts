import { OvaEstimator } from "../../../src/models/ova/estimator.ts";
import { factory } from "../../../src/models/ova/mod.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert } from "../../helpers.ts";
import { nonFiniteTensors, TOY_LABELS, toyBatch, toyMisses } from "../extreme_rows.ts";

Deno.test("ova: raw values up to 1e38 keep the float32 AdaGrad sums finite, the weights learning and the true label first", () => {
  for (const loss of ["logistic", "squared-hinge"]) {
    for (
      const [magnitude, mixed] of [[1e20, false], [1e30, false], [1e30, true], [
        1e38,
        true,
      ]] as const
    ) {
      const what = `${loss} at ${mixed ? "±" : ""}${magnitude}`;
      const m = new OvaEstimator({ seed: 1, loss, l2Normalize: false });
      for (let b = 0; b < 20; b++) m.learnMany(toyBatch(b, magnitude, mixed));
      const state = m.toState();
      assert(
        nonFiniteTensors(state).length === 0,
        `${what}: non-finite ${nonFiniteTensors(state)}`,
      );
      assert(
        toyMisses(m, magnitude, mixed).length === 0,
        `${what}: ${toyMisses(m, magnitude, mixed)}`,
      );
      assert(toyMisses(loadModel(m.toModelFile()), magnitude, mixed).length === 0, `${what}: SDK`);
      // the restored model keeps learning (no sum stuck at Infinity): rows that now carry the
      // next label move weights
      const r = factory.restore(state);
      const w0 = r.toState().tensors.weights.slice();
      const moved = toyBatch(3, magnitude, mixed);
      moved.y.indices.forEach((l, i) => moved.y.indices[i] = (l + 1) % TOY_LABELS);
      r.learnMany(moved);
      const w1 = r.toState().tensors.weights;
      assert(
        w1.length !== w0.length || w1.some((v, i) => v !== w0[i]),
        `${what}: the weights stopped learning`,
      );
      assert(nonFiniteTensors(r.toState()).length === 0, `${what}: restored, non-finite`);
    }
  }
});

Deno.test("ova: tiny and denormal raw values learn nothing wrong (finite state); normalised, they rank right", () => {
  for (const magnitude of [1e-30, 1e-44]) {
    for (const l2Normalize of [false, true]) {
      const m = new OvaEstimator({ seed: 1, l2Normalize });
      for (let b = 0; b < 20; b++) m.learnMany(toyBatch(b, magnitude, true));
      assert(nonFiniteTensors(m.toState()).length === 0, `${magnitude} ${l2Normalize}`);
      if (l2Normalize) assert(toyMisses(m, magnitude, true).length === 0, `${magnitude}`);
    }
  }
});
