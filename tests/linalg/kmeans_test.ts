import { nearestCentroid, sphericalKMeans } from "../../src/linalg/kmeans.ts";
import type { CsrMatrix } from "../../src/data/types.ts";
import { Rng } from "../../src/random/mod.ts";
import { assert } from "../helpers.ts";

/**
 * `groups` groups of rows; a row of group g has its group's core feature 10g (value 1) and one
 * or two random features in (10g, 10g + 10) (value 0.3), normalised: cosine ≥ 0.8 inside a
 * group, 0 across groups.
 */
function blocks(groups: number, perGroup: number, seed: number): { x: CsrMatrix; truth: number[] } {
  const rng = new Rng(seed);
  const indptr = [0], idx: number[] = [], val: number[] = [], truth: number[] = [];
  for (let i = 0; i < groups * perGroup; i++) {
    const g = i % groups; // interleaved, so the order of rows carries no signal
    const extra = [...new Set(Array.from({ length: 2 }, () => 10 * g + 1 + rng.nextInt(9)))];
    const feats = [10 * g, ...extra.sort((a, b) => a - b)];
    const norm = Math.sqrt(1 + 0.09 * extra.length);
    for (const j of feats) {
      idx.push(j);
      val.push((j === 10 * g ? 1 : 0.3) / norm);
    }
    indptr.push(idx.length);
    truth.push(g);
  }
  return {
    x: {
      numRows: truth.length,
      numCols: 10 * groups,
      indptr: Int32Array.from(indptr),
      indices: Int32Array.from(idx),
      values: Float32Array.from(val),
    },
    truth,
  };
}

Deno.test("kmeans: recovers well separated groups, for every seed", () => {
  const { x, truth } = blocks(4, 30, 1);
  for (const seed of [0, 1, 2, 3, 4]) {
    const r = sphericalKMeans(x, 4, { seed, iterations: 20 });
    assert(r.clusters === 4, `clusters ${r.clusters}`);
    const map = new Map<number, number>();
    for (let i = 0; i < truth.length; i++) {
      const seen = map.get(truth[i]);
      if (seen === undefined) map.set(truth[i], r.assignment[i]);
      else assert(seen === r.assignment[i], `seed ${seed}: group ${truth[i]} is split`);
    }
    assert(new Set(map.values()).size === 4, `seed ${seed}: groups merged`);
    for (let c = 0; c < 4; c++) {
      let s = 0;
      for (let j = 0; j < x.numCols; j++) s += r.centroids[c * x.numCols + j] ** 2;
      assert(Math.abs(s - 1) < 1e-12, `centroid ${c} has norm² ${s}`);
    }
  }
});

Deno.test("kmeans: the same seed gives the same clustering; rows go to their nearest centroid", () => {
  const { x } = blocks(3, 20, 2);
  const a = sphericalKMeans(x, 5, { seed: 7 }), b = sphericalKMeans(x, 5, { seed: 7 });
  assert(a.assignment.every((c, i) => c === b.assignment[i]), "assignments differ");
  assert(a.centroids.every((c, i) => c === b.centroids[i]), "centroids differ");
  if (a.iterations < 10) {
    // converged: each row is assigned to its most similar centroid
    for (let i = 0; i < x.numRows; i++) {
      const best = nearestCentroid(
        a.centroids,
        a.clusters,
        x.numCols,
        x.indices,
        x.values,
        x.indptr[i],
        x.indptr[i + 1],
      );
      assert(best === a.assignment[i], `row ${i}: ${a.assignment[i]} vs nearest ${best}`);
    }
  }
});

Deno.test("kmeans: more clusters than distinct rows still leaves no cluster empty", () => {
  // 6 rows, only 2 distinct directions, 4 clusters
  const x: CsrMatrix = {
    numRows: 6,
    numCols: 2,
    indptr: Int32Array.of(0, 1, 2, 3, 4, 5, 6),
    indices: Int32Array.of(0, 0, 0, 1, 1, 1),
    values: new Float32Array(6).fill(1),
  };
  const r = sphericalKMeans(x, 4, { seed: 1 });
  const sizes = new Array(r.clusters).fill(0);
  for (const c of r.assignment) sizes[c]++;
  assert(sizes.every((s) => s > 0), `sizes ${sizes}`);
  assert(sphericalKMeans(x, 50, { seed: 1 }).clusters === 6, "at most one cluster per row");
});

Deno.test("kmeans: a bad cluster count is a RangeError", () => {
  let msg = "";
  try {
    sphericalKMeans(blocks(1, 2, 1).x, 0);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("clusters must be >= 1"), msg);
});
