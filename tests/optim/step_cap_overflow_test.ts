// The step cap when lr times the curvature overflows.
import { STEP_CAP_TARGET, stepScale } from "../../src/optim/step_cap.ts";
import { assert } from "../helpers.ts";

Deno.test("step cap: a finite curvature whose product with lr overflows still gives a step", () => {
  for (const [lr, beta] of [[10, 1e308], [1e6, 1e305], [0.5, 40]]) {
    const s = stepScale(lr, beta);
    assert(s > 0, `stepScale(${lr}, ${beta}) = ${s}`);
    // the capped step lands at lr·β·scale = STEP_CAP_TARGET (to rounding)
    const landed = lr * s * beta;
    assert(Math.abs(landed - STEP_CAP_TARGET) < 1e-12, `lr·β·scale = ${landed}`);
  }
  assert(stepScale(0.5, Infinity) === 0, "an infinite curvature gives a zero step");
});
