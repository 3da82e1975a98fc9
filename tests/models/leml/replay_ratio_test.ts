// scoreThenLearn with a large replayRatio (any finite ratio >= 0 is allowed): the first step's
// scratch was sized for replayRatio × rows replayed rows, though at most the reservoir's rows can
// be drawn, so a large ratio allocated gigabytes, or refused the batch with a RangeError after
// the model had grown, where learnMany learned it. It now scores and learns exactly like
// predictTopK then learnMany.
import { LemlStream } from "../../../src/models/leml/mod.ts";
import type { Batch } from "../../../src/data/types.ts";
import { stateDifference } from "../estimator_checks.ts";
import { assert } from "../../helpers.ts";

function batchOf(n: number, shift: number): Batch {
  return {
    x: {
      numRows: n,
      numCols: 6,
      indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
      indices: Int32Array.from({ length: n }, (_, i) => (i + shift) % 6),
      values: Float32Array.from({ length: n }, (_, i) => 0.5 + ((i * 7) % 5) / 4),
    },
    y: {
      numRows: n,
      numCols: 3,
      indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
      indices: Int32Array.from({ length: n }, (_, i) => (i + shift) % 3),
    },
  };
}

Deno.test("leml scoreThenLearn: a huge replayRatio scores and learns as predictTopK + learnMany", () => {
  for (const update of ["full", "local"] as const) {
    const options = { rank: 4, seed: 3, replay: 2 ** 31 - 1, replayRatio: 1e12, update };
    const a = new LemlStream(options), b = new LemlStream(options);
    for (let s = 0; s < 3; s++) {
      const batch = batchOf(16, s);
      const expected = Array.from({ length: 16 }, (_, i) => {
        const x = {
          indices: batch.x.indices.subarray(i, i + 1),
          values: batch.x.values.subarray(i, i + 1),
        };
        return b.predictTopK(x, 2, { exact: true });
      });
      b.learnMany(batch);
      const tops = a.scoreThenLearn(batch, 2);
      for (let i = 0; i < 16; i++) {
        assert(
          tops[i].labels.join() === expected[i].labels.join() &&
            tops[i].scores.join() === expected[i].scores.join(),
          `${update} step ${s} row ${i}: ${tops[i].labels} vs ${expected[i].labels}`,
        );
      }
      const d = stateDifference(a.toState(), b.toState());
      assert(d === undefined, `${update} step ${s}: ${d}`);
    }
  }
});
