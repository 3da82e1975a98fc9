/**
 * `popularity.restore` refuses a state without its tensors or scalars (or no state at all) with
 * an error naming the place and the part, not a bare "Cannot read properties of undefined".
 */
import { PopularityEstimator } from "../../../src/models/popularity/mod.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assert } from "../../helpers.ts";

Deno.test("popularity.restore: a state missing its tensors or scalars is refused, naming them", () => {
  const m = new PopularityEstimator();
  m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
  const st = m.toState();
  const cases: [unknown, RegExp][] = [
    [
      { ...st, tensors: undefined },
      /^popularity\.restore: tensor counts must be a Float64Array of length 2, got none$/,
    ],
    [
      { ...st, scalars: undefined },
      /^popularity\.restore: scalar numLabels must be a number, got undefined$/,
    ],
    [null, /^popularity\.restore: state kind is undefined, not "popularity"$/],
  ];
  for (const [bad, message] of cases) {
    let err: unknown;
    try {
      PopularityEstimator.fromState(bad as ModelState);
    } catch (e) {
      err = e;
    }
    assert(err instanceof Error && message.test(err.message), String(err));
  }
});
