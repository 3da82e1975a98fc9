/**
 * Batch LEML on degenerate data with no (or a vanishing) ridge: rank-deficient label-row
 * systems must still be solved, and the model must predict finite scores.
 */
import { trainLemlBatch } from "../../../src/models/leml/batch.ts";
import { LemlBatch } from "../../../src/models/leml/batch_estimator.ts";
import { trainLemlLosses } from "../../../src/models/leml/batch_losses.ts";
import type { BinaryCsr, CsrMatrix } from "../../../src/data/types.ts";
import { assert, assertBadInput } from "../../helpers.ts";
import { csrBatch } from "./helpers.ts";

type Row = { f: [number, number][]; l: number[] };

function data(rows: Row[], D: number, L: number): { x: CsrMatrix; y: BinaryCsr } {
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (const r of rows) {
    for (const [j, v] of r.f) xi.push(j), xv.push(v);
    xp.push(xi.length);
    yi.push(...r.l);
    yp.push(yi.length);
  }
  return csrBatch(D, L, xp, xi, xv, yp, yi);
}

/** Row i: features i mod D and (7i + 3) mod D, label i mod L. */
const spread = (n: number, D: number, L: number): Row[] =>
  Array.from({ length: n }, (_, i) => {
    const a = i % D, b = (7 * i + 3) % D;
    const f: [number, number][] = a === b
      ? [[a, 1]]
      : a < b
      ? [[a, 1], [b, 0.5]]
      : [[b, 0.5], [a, 1]];
    return { f, l: [i % L] };
  });

/** Degenerate training sets and the rank to fit them with. */
const cases: Record<string, { set: { x: CsrMatrix; y: BinaryCsr }; rank: number }> = {
  "rank above the features": { set: data(spread(20, 3, 5), 3, 5), rank: 10 },
  "fewer rows than the rank": { set: data(spread(3, 10, 4), 10, 4), rank: 8 },
  "a single row": { set: data([{ f: [[0, 1], [2, 1]], l: [1] }], 4, 3), rank: 4 },
  "duplicate rows": {
    set: data(Array.from({ length: 8 }, () => ({ f: [[1, 1], [3, 2]], l: [0, 2] })), 5, 4),
    rank: 3,
  },
  "every row with the same labels": {
    set: data(spread(10, 6, 4).map((r) => ({ ...r, l: [1, 3] })), 6, 4),
    rank: 3,
  },
  "all-zero rows": {
    set: data(Array.from({ length: 6 }, (_, i) => ({ f: [], l: [i % 3] })), 5, 3),
    rank: 2,
  },
};

const queries = [
  { indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) },
  { indices: new Int32Array(0), values: new Float32Array(0) },
  { indices: Int32Array.of(2), values: Float32Array.of(1) },
];

Deno.test("leml batch: lambda 0 on rank-deficient data trains and predicts finite scores", () => {
  for (const [name, { set, rank }] of Object.entries(cases)) {
    for (const loss of ["squared", "logistic", "sqhinge"] as const) {
      for (const missing of [false, true]) {
        if (missing && loss !== "squared") continue;
        const what = `${name}, ${loss}${missing ? ", missing labels" : ""}`;
        const f = trainLemlBatch(set.x, set.y, {
          rank,
          lambda: 0,
          loss,
          iterations: 4,
          ...(missing ? { observed: set.y } : {}),
        });
        for (const a of [f.W, f.H, f.bias]) {
          assert(a.every(Number.isFinite), `${what}: a factor is not finite`);
        }
        const m = LemlBatch.fit(set.x, set.y, { rank, lambda: 0, loss, iterations: 4 });
        for (const q of queries) {
          const top = m.predictTopK(q, Math.min(2, set.y.numCols));
          assert(top.scores.every(Number.isFinite), `${what}: scores ${top.scores}`);
        }
      }
    }
  }
});

Deno.test("leml batch: with no ridge, rows that all carry the same labels predict those labels", () => {
  const { set, rank } = cases["every row with the same labels"];
  const { x } = set;
  // the training rows (with no ridge, how the fit splits between the bias and W·H is free,
  // so an unseen row, e.g. the empty one, may score otherwise)
  const rows = Array.from({ length: x.numRows }, (_, i) => ({
    indices: x.indices.subarray(x.indptr[i], x.indptr[i + 1]),
    values: x.values.subarray(x.indptr[i], x.indptr[i + 1]),
  }));
  for (const lambda of [0, 1e-300]) {
    const m = LemlBatch.fit(set.x, set.y, { rank, lambda, iterations: 10 });
    for (const q of rows) {
      const top = m.predictTopK(q, 2);
      assert(top.scores.every(Number.isFinite), `lambda ${lambda}: scores ${top.scores}`);
      assert(
        Array.from(top.labels).sort().join() === "1,3",
        `lambda ${lambda}: top labels ${top.labels}`,
      );
    }
  }
});

Deno.test("leml batch: a vanishing lambda does not amplify rounding noise into overflow", () => {
  for (const [name, { set, rank }] of Object.entries(cases)) {
    for (const lambda of [1e-300, 1e-200]) {
      const f = trainLemlBatch(set.x, set.y, { rank, lambda, iterations: 12 });
      let big = 0;
      for (const a of [f.W, f.H]) for (const v of a) big = Math.max(big, Math.abs(v));
      assert(Number.isFinite(big) && big < 1e12, `${name}, lambda ${lambda}: max |factor| ${big}`);
    }
  }
});

Deno.test("leml losses trainer: a tiny lambda stays finite, a bad lambda is named", () => {
  for (const [name, { set, rank }] of Object.entries(cases)) {
    for (const loss of ["logistic", "sqhinge"] as const) {
      for (const lambda of [0, 1e-300]) {
        const f = trainLemlLosses(set.x, set.y, { rank, loss, lambda, iterations: 4 });
        for (const a of [f.W, f.H, f.bias]) {
          assert(a.every(Number.isFinite), `${name}, ${loss}, lambda ${lambda}: not finite`);
        }
      }
    }
  }
  const { set } = cases["a single row"];
  assertBadInput([
    [
      () => trainLemlLosses(set.x, set.y, { rank: 1, loss: "logistic", lambda: NaN }),
      /lambda must be a finite number >= 0, got NaN/,
    ],
    [
      () => trainLemlLosses(set.x, set.y, { rank: 1, loss: "logistic", iterations: 1.5 }),
      /iterations must be an integer >= 0, got 1.5/,
    ],
  ]);
});
