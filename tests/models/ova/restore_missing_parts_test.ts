/**
 * `ova.restore` refuses a state without its scalars or tensors (or no state at all) with an
 * error naming the place and the part, not a bare "Cannot read properties of undefined".
 */
import { OvaEstimator } from "../../../src/models/ova/mod.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assert } from "../../helpers.ts";

Deno.test("ova.restore: a state missing its scalars or tensors is refused, naming them", () => {
  const m = new OvaEstimator({ seed: 1 });
  m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
  for (const replica of [false, true]) {
    const st = replica ? m.toReplicaState() : m.toState();
    const cases: [unknown, string][] = [
      [
        { ...st, tensors: undefined },
        "ova.restore: tensor featPtr must be a Int32Array of length 2, got none",
      ],
      [
        { ...st, scalars: undefined },
        "ova.restore: scalar numFeatures must be a non-negative integer, got undefined",
      ],
      [null, 'ova.restore: state kind is undefined, not "ova"'],
      [undefined, 'ova.restore: state kind is undefined, not "ova"'],
    ];
    for (const [bad, message] of cases) {
      let err: unknown;
      try {
        OvaEstimator.restore(bad as ModelState);
      } catch (e) {
        err = e;
      }
      assert(err instanceof Error && err.message === message, `${replica}: ${err}`);
    }
  }
});
