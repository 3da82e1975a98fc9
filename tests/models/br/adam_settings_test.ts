// Adam's settings at the edges of their declared ranges never give NaN weights: β = 1 (a bias
// correction 1 − β^t of 0, NaN from the first step) is refused, and ε = 0 leaves a weight whose
// gradients were all 0 where it is (0/0 was NaN).
import { BR_SETTINGS, BrEstimator } from "../../../src/models/br/mod.ts";
import { factory } from "../../../src/models/br/mod.ts";
import type { Batch } from "../../../src/data/types.ts";
import { assert, messageOf } from "../../helpers.ts";

const x = { indices: Int32Array.of(0, 2), values: Float32Array.of(1, 0.5) };

/** One row with features 3, 4: label 1 positive, nothing else observed (label 0 unobserved). */
const PARTIAL: Batch = {
  x: {
    numRows: 1,
    numCols: 5,
    indptr: Int32Array.of(0, 2),
    indices: Int32Array.of(3, 4),
    values: Float32Array.of(1, 2),
  },
  y: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) },
  observed: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) },
  fullyObserved: Uint8Array.of(0),
};

function allFinite(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}

Deno.test("br settings: beta1 and beta2 of 1 are refused, the largest value below 1 learns", () => {
  for (const name of ["beta1", "beta2"]) {
    const msg = messageOf(() => BR_SETTINGS.resolve({ [name]: 1 }));
    assert(msg.includes(`option ${name}`), `${name} = 1 accepted: ${msg}`);
    assert(messageOf(() => factory.create({ [name]: 1 })).includes(name), `${name}: create`);
    const m = new BrEstimator({ [name]: 1 - 2 ** -53 });
    m.learnOne(x, [1]);
    m.learnOne({ indices: Int32Array.of(3), values: Float32Array.of(1) }, [0]);
    const s = m.predictScores(x);
    assert(allFinite(s), `${name} below 1: scores ${[...s]}`);
  }
});

Deno.test("br: epsilon 0 keeps a weight with only zero gradients at 0 (no NaN)", () => {
  for (const loss of ["squared-hinge", "logistic"] as const) {
    const m = new BrEstimator({ epsilon: 0, loss });
    m.learnOne(x, [1]);
    m.learnMany(PARTIAL); // label 0 unobserved: its weights on features 3, 4 get gradient 0
    const st = m.toState();
    assert(allFinite(st.tensors.w), `${loss}: weights ${[...st.tensors.w]}`);
    const q = { indices: Int32Array.of(3, 4), values: Float32Array.of(1, 1) };
    const s = m.predictScores(q);
    assert(allFinite(s), `${loss}: scores ${[...s]}`);
    // the unobserved label's new weights did not move; the observed one's did
    assert(st.tensors.w[3 * 2 + 0] === 0 && st.tensors.w[4 * 2 + 0] === 0, `${loss}: moved`);
    assert(st.tensors.w[3 * 2 + 1] !== 0, `${loss}: label 1 did not learn`);
    // and the checkpoint restores (a NaN weight is refused by restore)
    BrEstimator.restore(st);
  }
});
