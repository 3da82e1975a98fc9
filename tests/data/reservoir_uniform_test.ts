// The replay reservoir's sample is uniform: over many seeds every k-subset of the n rows offered
// is kept equally often (Algorithm R), whatever the batch sizes the rows came in, and sample(1)
// draws each kept row equally often. Chi-square tests on seeded runs (deterministic).
import { RowReservoir } from "../../src/data/reservoir.ts";
import type { Batch } from "../../src/data/types.ts";
import { assert } from "../helpers.ts";

/** Rows first..first+n-1, row r holding the single value r. */
function rows(first: number, n: number): Batch {
  const ptr = Int32Array.from({ length: n + 1 }, (_, i) => i);
  return {
    x: {
      numRows: n,
      numCols: 1,
      indptr: ptr,
      indices: new Int32Array(n),
      values: Float32Array.from({ length: n }, (_, i) => first + i),
    },
    y: { numRows: n, numCols: 0, indptr: new Int32Array(n + 1), indices: new Int32Array(0) },
  };
}

/** Chi-square statistic of `counts` against a uniform expectation. */
function chiSquare(counts: number[], total: number): number {
  const e = total / counts.length;
  return counts.reduce((s, c) => s + (c - e) ** 2 / e, 0);
}

Deno.test("reservoir: every subset of the rows seen is kept equally often", () => {
  const k = 3, n = 8, runs = 11_200; // C(8, 3) = 56 subsets, 200 runs each on average
  for (const batchSize of [1, 3, 8]) {
    const subsets = new Map<string, number>();
    const slotDraws = [0, 0, 0];
    for (let seed = 0; seed < runs; seed++) {
      const r = new RowReservoir(k, seed);
      for (let b = 0; b < n; b += batchSize) r.addRows(rows(b, Math.min(batchSize, n - b)));
      const kept = [...r.rows().x.values];
      const key = [...kept].sort((a, b) => a - b).join();
      subsets.set(key, (subsets.get(key) ?? 0) + 1);
      slotDraws[kept.indexOf(r.sample(1).x.values[0])]++;
    }
    assert(subsets.size === 56, `batches of ${batchSize}: ${subsets.size} of 56 subsets kept`);
    const chi = chiSquare([...subsets.values()], runs);
    // 55 degrees of freedom: P(chi2 > 100) < 1e-4
    assert(chi < 100, `batches of ${batchSize}: subsets chi-square ${chi.toFixed(1)} (df 55)`);
    const chiSlots = chiSquare(slotDraws, runs);
    // 2 degrees of freedom: P(chi2 > 18.4) = 1e-4
    assert(chiSlots < 18.4, `sample(1) slots chi-square ${chiSlots.toFixed(1)} (df 2)`);
  }
});
