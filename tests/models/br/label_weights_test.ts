import {
  fromFeatureMajor,
  linearSparseContent,
  scoreFeatureMajor,
  toFeatureMajor,
  validateLabelWeights,
} from "../../../src/models/label_weights.ts";
import { BrEstimator } from "../../../src/models/br/estimator.ts";
import { randomLabelWeights } from "./helpers.ts";
import { assert } from "../../helpers.ts";

Deno.test("feature-major conversion round-trips and scores like the dense model", () => {
  const w = randomLabelWeights(17, 9, 1, { density: 0.3 });
  validateLabelWeights(w);
  const f = toFeatureMajor(w);
  const back = fromFeatureMajor(f, 9, w.bias);
  assert(back.labelPtr.join() === w.labelPtr.join(), "labelPtr");
  assert(back.featIdx.join() === w.featIdx.join(), "featIdx");
  assert(back.values.join() === w.values.join(), "values");
  const m = BrEstimator.fromLabelWeights(w);
  const x = { indices: Int32Array.of(0, 4, 16, 40), values: Float32Array.of(1, -2, 0.5, 3) };
  const s = scoreFeatureMajor(f, w.bias, x, new Float64Array(9));
  const t = m.predictScores(x);
  for (let l = 0; l < 9; l++) {
    assert(Math.abs(s[l] - t[l]) < 1e-5, `label ${l}: ${s[l]} vs ${t[l]}`);
  }
  const back2 = m.toLabelWeights();
  assert(back2.values.join() === w.values.join(), "estimator round trip");
  const names = Array.from({ length: 9 }, (_, l) => `label-${l}`);
  const c = linearSparseContent(w, { labelNames: names, preprocess: { l2Normalize: true } });
  assert(c.kind === "linear-sparse" && c.tensors.featPtr.data.length === 18, "content tensors");
  assert(c.preprocess?.l2Normalize === true && c.tensors.bias.data.length === 9, "content extras");
  assert(c.labelNames?.join() === names.join(), "label names");
  let msg = "";
  try {
    linearSparseContent(w, { labelNames: ["a"] });
  } catch (e) {
    msg = e instanceof RangeError ? e.message : "";
  }
  assert(msg.includes("1 label names for 9 labels"), `label-name count error: ${msg}`);
});

Deno.test("malformed weights and tensors are rejected with a RangeError naming the place", () => {
  const w = randomLabelWeights(5, 3, 2, { density: 0.3 });
  const bad = { ...w, featIdx: w.featIdx.map((j, p) => (p === 0 ? 7 : j)) };
  let msg = "";
  try {
    validateLabelWeights(bad);
  } catch (e) {
    msg = e instanceof RangeError ? e.message : "";
  }
  assert(/out of order or out of range/.test(msg), `got "${msg}"`);
  const f = toFeatureMajor(w);
  msg = "";
  try {
    fromFeatureMajor(f, 2);
  } catch (e) {
    msg = e instanceof RangeError ? e.message : "";
  }
  assert(/labelIdx\[\d+\] = 2 is out of range/.test(msg), `got "${msg}"`);
});
