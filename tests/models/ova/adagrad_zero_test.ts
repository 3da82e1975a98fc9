// adagradInit 0 (allowed: plain AdaGrad) with a feature value of exactly 0, which a row may hold:
// its gradient is 0 and its AdaGrad sum stays 0, and the step lr·0/√0 wrote NaN into the weight
// (NaN scores, and a checkpoint that restore refuses). A sum still 0 now takes no step.
import { OvaEstimator } from "../../../src/models/ova/mod.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert } from "../../helpers.ts";

function allFinite(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}

Deno.test("ova: adagradInit 0 and a stored zero feature value give no NaN", () => {
  for (const l2Normalize of [true, false]) {
    const m = new OvaEstimator({ seed: 1, adagradInit: 0, l2Normalize });
    m.learnOne({ indices: Int32Array.of(0, 1), values: Float32Array.of(1, 0) }, [0]);
    m.learnOne({ indices: Int32Array.of(1, 2), values: Float32Array.of(0, 2) }, [1]);
    const q = { indices: Int32Array.of(0, 1, 2), values: Float32Array.of(1, 1, 1) };
    const s = m.predictScores(q);
    assert(allFinite(s), `l2Normalize ${l2Normalize}: scores ${[...s]}`);
    const st = m.toState();
    assert(allFinite(st.tensors.weights), `weights ${[...st.tensors.weights]}`);
    // feature 1's weights never had a non-zero gradient: still 0
    const top = m.predictTopK({ indices: Int32Array.of(1), values: Float32Array.of(1) }, 2);
    const bias = st.tensors.bias as Float32Array;
    for (let i = 0; i < top.labels.length; i++) {
      assert(top.scores[i] === bias[top.labels[i]], `feature 1 moved label ${top.labels[i]}`);
    }
    // the checkpoint restores, and the model file serves the same top label
    const r = OvaEstimator.restore(st);
    assert(r.predictTopK(q, 1).labels[0] === m.predictTopK(q, 1).labels[0], "restore");
    assert(
      loadModel(m.toModelFile()).predictTopK(q, 1).labels[0] === m.predictTopK(q, 1).labels[0],
    );
  }
});
