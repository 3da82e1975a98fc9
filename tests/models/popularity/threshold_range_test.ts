/**
 * The popularity threshold is a frequency: past [0, 1] the float32 scores lose the frequencies
 * (every label ties, or is ±Infinity, in the answers and in the model file), so it is refused,
 * naming the setting and its range.
 */
import { PopularityEstimator } from "../../../src/models/popularity/mod.ts";
import { factory } from "../../../src/models/popularity/mod.ts";
import { assert, assertEquals } from "../../helpers.ts";

const EMPTY = { indices: new Int32Array(0), values: new Float32Array(0) };

Deno.test("popularity: a threshold outside [0, 1] is refused, naming it", () => {
  for (const threshold of [1e39, -1e39, 1e9, -0.5, 1.5]) {
    let err: unknown;
    try {
      new PopularityEstimator({ threshold });
    } catch (e) {
      err = e;
    }
    assert(err instanceof RangeError, `threshold ${threshold} was taken`);
    assert(
      (err as Error).message.includes("threshold") && (err as Error).message.includes("1]"),
      (err as Error).message,
    );
    let viaFactory: unknown;
    try {
      factory.create({ threshold: String(threshold) });
    } catch (e) {
      viaFactory = e;
    }
    assert(viaFactory instanceof RangeError, `factory: threshold ${threshold} was taken`);
  }
});

Deno.test("popularity: thresholds in [0, 1] keep the frequencies' order in finite scores", () => {
  for (const threshold of [0, 0.5, 1]) {
    const m = new PopularityEstimator({ threshold });
    m.learnOne(EMPTY, [0, 2]);
    m.learnOne(EMPTY, [2]);
    const s = m.predictScores(EMPTY);
    assert(s.every(Number.isFinite), `${threshold}: ${s}`);
    assert(s[2] > s[0] && s[0] > s[1], `${threshold}: ${s}`);
    assertEquals([...m.predictTopK(EMPTY, 3).labels], [2, 0, 1]);
  }
});

Deno.test("popularity.restore refuses a stored threshold outside [0, 1]", () => {
  const m = new PopularityEstimator();
  m.learnOne(EMPTY, [1]);
  const st = m.toState();
  let err: unknown;
  try {
    PopularityEstimator.fromState({ ...st, config: { ...st.config, threshold: 1e39 } });
  } catch (e) {
    err = e;
  }
  assert(err instanceof RangeError && err.message.includes("threshold"), String(err));
});
