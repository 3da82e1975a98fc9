import { assert, assertEquals } from "../../helpers.ts";
import { labelNeighbourhood } from "../../../src/models/sleec/neighbours.ts";
import type { SymSparse } from "../../../src/linalg/svp.ts";

const row = (g: SymSparse, i: number) => {
  const m = new Map<number, number>();
  for (let e = g.indptr[i]; e < g.indptr[i + 1]; e++) m.set(g.indices[e], g.values[e]);
  return m;
};

// rows 0-1 share label 0, rows 2-9 share label 1, row 10 has no label
const labels = [
  Int32Array.of(0),
  Int32Array.of(0),
  ...Array.from({ length: 8 }, () => Int32Array.of(1)),
  new Int32Array(0),
];

Deno.test("SLEEC Ω padding: a row with fewer than n̄ sharers is filled with labelled non-sharers at 0, symmetrically", () => {
  const plain = labelNeighbourhood(labels, 2, 5, { seed: 3 });
  const padded = labelNeighbourhood(labels, 2, 5, { seed: 3, pad: true });
  // without padding row 0 sees only the rows sharing its label
  assertEquals([...row(plain, 0).keys()].sort(), [0, 1]);
  const r0 = row(padded, 0);
  assertEquals(r0.size, 5, "row 0 is filled up to n̄ = 5");
  assertEquals(r0.get(0), 1);
  assertEquals(r0.get(1), 1);
  for (const [j, v] of r0) {
    if (j > 1) {
      assert(j >= 2 && j <= 9, `padded row ${j} has labels and shares none`);
      assertEquals(v, 0);
      assertEquals(row(padded, j).get(0), 0, `entry (${j}, 0) mirrors (0, ${j})`);
    }
  }
  // the row without labels gets no entry either way
  assertEquals(padded.indptr[11] - padded.indptr[10], 0);
  // rows 2-9 have 8 sharers >= n̄: their own choice is not padded (entries they hold beyond their
  // sharers mirror other rows' padding only)
  for (let j = 2; j <= 9; j++) {
    for (const [c, v] of row(padded, j)) if (c < 2) assertEquals(v, 0);
  }
  // symmetric overall
  for (let i = 0; i < 11; i++) {
    for (const [j, v] of row(padded, i)) assertEquals(row(padded, j).get(i), v);
  }
});

Deno.test("SLEEC Ω padding: seeded (same seed, same draws), and a no-op where every row has n̄ sharers", () => {
  const a = labelNeighbourhood(labels, 2, 5, { seed: 3, pad: true });
  const b = labelNeighbourhood(labels, 2, 5, { seed: 3, pad: true });
  assertEquals([...a.indices], [...b.indices]);
  // n̄ = 2: rows 0 and 1 each have 2 sharers (themselves included), rows 2-9 have 8
  const plain = labelNeighbourhood(labels, 2, 2, { seed: 3 });
  const padded = labelNeighbourhood(labels, 2, 2, { seed: 3, pad: true });
  assertEquals([...padded.indptr], [...plain.indptr]);
  assertEquals([...padded.indices], [...plain.indices]);
  assertEquals([...padded.values], [...plain.values]);
});

Deno.test("SLEEC Ω padding: never more rows than exist without a shared label", () => {
  // rows 0-1 share label 0; only row 2 (label 1) can pad them
  const few = [Int32Array.of(0), Int32Array.of(0), Int32Array.of(1)];
  const g = labelNeighbourhood(few, 2, 50, { pad: true });
  assertEquals([...row(g, 0).keys()].sort(), [0, 1, 2]);
  assertEquals([...row(g, 2).keys()].sort(), [0, 1, 2]);
  assertEquals(row(g, 2).get(2), 1);
});
