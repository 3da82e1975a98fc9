// predictScores(x, out) with an `out` longer than the label space: the contract is one score per
// label (length numLabels, written into out). LEML, BR and OVA returned the whole `out`, its
// tail (stale values) read as the scores of labels the model does not have (an Evaluator then
// ranks them, and counts them in the Hamming loss and the AUCs). They now return the first
// numLabels entries of `out`, as KNN, SLEEC and popularity do.
import { factory as leml } from "../../../src/models/leml/mod.ts";
import { batchFactory as lemlBatch } from "../../../src/models/leml/mod.ts";
import { factory as br } from "../../../src/models/br/mod.ts";
import { factory as ova } from "../../../src/models/ova/mod.ts";
import type { EstimatorFactory } from "../../../src/models/estimator.ts";
import { assert } from "../../helpers.ts";

Deno.test("predictScores: a longer out gives numLabels scores, written into out", () => {
  const factories: [string, EstimatorFactory, Record<string, unknown>][] = [
    ["leml", leml, { rank: 2 }],
    ["leml batch", lemlBatch, { rank: 2, iterations: 1 }],
    ["br", br, {}],
    ["ova", ova, {}],
  ];
  const x = { indices: Int32Array.of(0, 2), values: Float32Array.of(1, 0.5) };
  for (const [name, f, options] of factories) {
    const m = f.create({ seed: 1, ...options });
    m.learnOne(x, [0, 2]);
    m.learnOne({ indices: Int32Array.of(1), values: Float32Array.of(1) }, [1]);
    const L = m.numLabels;
    const out = new Float32Array(L + 3).fill(7);
    const s = m.predictScores(x, out);
    assert(s.length === L, `${name}: ${s.length} scores for ${L} labels`);
    assert(s.buffer === out.buffer && s.byteOffset === out.byteOffset, `${name}: not out`);
    assert(s.join() === m.predictScores(x).join(), `${name}: scores differ`);
    // an exact fit is out itself
    const exact = new Float32Array(L);
    assert(m.predictScores(x, exact) === exact, `${name}: exact out`);
  }
});
