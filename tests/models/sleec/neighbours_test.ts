import {
  BoundedHeap,
  labelNeighbourhood,
  nearestByLabels,
} from "../../../src/models/sleec/neighbours.ts";
import { Rng } from "../../../src/random/mod.ts";
import { assert } from "../../helpers.ts";

function randomLabels(n: number, numLabels: number, seed: number): Int32Array[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => {
    const s = new Set<number>();
    const m = rng.nextInt(4); // 0..3 labels, some rows empty
    for (let t = 0; t < m; t++) s.add(rng.nextInt(numLabels));
    return Int32Array.from([...s].sort((a, b) => a - b));
  });
}

function overlap(a: Int32Array, b: Int32Array): number {
  let c = 0;
  for (const l of a) if (b.includes(l)) c++;
  return c;
}

Deno.test("neighbours: Ω holds each row's n̄ most similar rows, symmetrised, with the similarities", () => {
  const n = 60, L = 12, nbar = 5;
  const labels = randomLabels(n, L, 3);
  for (const normalize of [true, false]) {
    const g = labelNeighbourhood(labels, L, nbar, { normalize, seed: 1 });
    const sim = (i: number, j: number) => {
      const c = overlap(labels[i], labels[j]);
      return normalize && c > 0 ? c / Math.sqrt(labels[i].length * labels[j].length) : c;
    };
    const entries = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      for (let e = g.indptr[i]; e < g.indptr[i + 1]; e++) {
        if (e > g.indptr[i]) assert(g.indices[e] > g.indices[e - 1], `row ${i} columns not sorted`);
        entries.set(`${i},${g.indices[e]}`, g.values[e]);
      }
    }
    for (const [key, v] of entries) {
      const [i, j] = key.split(",").map(Number);
      assert(entries.get(`${j},${i}`) === v, `(${i},${j}) not symmetric`);
      assert(Math.abs(v - sim(i, j)) < 1e-12 && v > 0, `(${i},${j}) value ${v} vs ${sim(i, j)}`);
    }
    for (let i = 0; i < n; i++) {
      const mine = [];
      for (let j = 0; j < n; j++) if (sim(i, j) > 0) mine.push(sim(i, j));
      mine.sort((a, b) => b - a);
      if (labels[i].length === 0) {
        assert(g.indptr[i + 1] === g.indptr[i], `empty row ${i} has entries`);
        continue;
      }
      assert(entries.has(`${i},${i}`), `row ${i} lacks itself`);
      // row i's own choice: the top-n̄ similarities are all present in the row
      const kept = [];
      for (let e = g.indptr[i]; e < g.indptr[i + 1]; e++) kept.push(g.values[e]);
      kept.sort((a, b) => b - a);
      for (let t = 0; t < Math.min(nbar, mine.length); t++) {
        assert(kept[t] >= mine[t] - 1e-12, `row ${i}: neighbour ${t} ${kept[t]} < ${mine[t]}`);
      }
    }
  }
});

Deno.test("neighbours: the same seed gives the same Ω; bad label lists are rejected", () => {
  const labels = randomLabels(40, 5, 9); // few labels: many ties
  const a = labelNeighbourhood(labels, 5, 3, { seed: 4 });
  const b = labelNeighbourhood(labels, 5, 3, { seed: 4 });
  assert(a.indices.join() === b.indices.join(), "not deterministic");
  let msg = "";
  try {
    labelNeighbourhood([Int32Array.of(2, 1)], 5, 3);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("row 0 has label 1 at position 1"), msg);
  try {
    labelNeighbourhood([Int32Array.of(7)], 5, 3);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("in [0, 5)"), msg);
});

Deno.test("neighbours: nearestByLabels agrees with a brute-force ranking", () => {
  const L = 10;
  const cands = randomLabels(50, L, 5);
  const query = Int32Array.of(1, 4, 7);
  const heap = new BoundedHeap(6);
  nearestByLabels(query, cands, cands.length, heap, new Int32Array(L), 1, { normalize: true });
  const sims = cands.map((c) => {
    const o = overlap(query, c);
    return o > 0 ? o / Math.sqrt(query.length * c.length) : 0;
  });
  const positive = sims.filter((s) => s > 0).sort((a, b) => b - a);
  const got = Array.from(heap.indices.subarray(0, heap.size), (j) => sims[j]).sort((a, b) => b - a);
  assert(heap.size === Math.min(6, positive.length), `size ${heap.size}`);
  got.forEach((s, t) =>
    assert(Math.abs(s - positive[t]) < 1e-12, `rank ${t}: ${s} vs ${positive[t]}`)
  );
  for (let q = 0; q < heap.size; q++) {
    assert(Math.abs(heap.scores[q] - sims[heap.indices[q]]) < 1e-12, "score is the similarity");
  }
});
