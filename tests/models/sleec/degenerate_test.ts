/**
 * Batch SLEEC with settings and data at the edges: an SVP step size that overflows the
 * embedding (a RangeError naming it), identical rows and more clusters than rows (a model with
 * finite scores).
 */
import { trainSleec } from "../../../src/models/sleec/batch.ts";
import type { BinaryCsr, CsrMatrix } from "../../../src/data/types.ts";
import { assert, assertBadInput } from "../../helpers.ts";
import { csrBatch } from "../leml/helpers.ts";

/** n rows over D features (row i: features i mod D and (i + 1) mod D), label i mod L. */
function rows(n: number, D: number, L: number, same = false): { x: CsrMatrix; y: BinaryCsr } {
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = same ? 0 : i % D, b = same ? 1 : (i + 1) % D;
    if (a === b) xi.push(a), xv.push(1);
    else xi.push(Math.min(a, b), Math.max(a, b)), xv.push(1, 0.5);
    xp.push(xi.length);
    yi.push(same ? 1 : i % L);
    yp.push(yi.length);
  }
  return csrBatch(D, L, xp, xi, xv, yp, yi);
}

const queries = [
  { indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
  { indices: new Int32Array(0), values: new Float32Array(0) },
  { indices: Int32Array.of(2), values: Float32Array.of(1e30) },
];

Deno.test("sleec batch: an SVP step size that overflows the embedding is named", () => {
  for (const [n, D, L] of [[12, 6, 3], [8, 5, 4], [20, 3, 5]]) {
    const { x, y } = rows(n, D, L);
    // η = 1e200: the first SVP step's M has entries near 1e200, whose squares overflow
    assertBadInput([[
      () => trainSleec(x, y, { rank: 2, k: 3, eta: 1e200 }),
      /eta = 1e\+200 made M overflow/,
    ]]);
    // a large step that stays finite trains a model with finite scores
    const m = trainSleec(x, y, { rank: 2, k: 3, eta: 1e10 });
    for (const q of queries) {
      const top = m.predictTopK(q, 3);
      assert(top.scores.every(Number.isFinite), `${n}x${D}: scores ${top.scores}`);
    }
  }
});

Deno.test("sleec batch: identical rows and more clusters than rows predict the rows' label", () => {
  const { x, y } = rows(4, 5, 3, true);
  const m = trainSleec(x, y, { rank: 3, k: 2, numClusters: 6, numLearners: 2 });
  const top = m.predictTopK({ indices: Int32Array.of(0, 1), values: Float32Array.of(1, 0.5) }, 1);
  assert(top.labels[0] === 1 && Number.isFinite(top.scores[0]), `top ${top.labels} ${top.scores}`);
});
