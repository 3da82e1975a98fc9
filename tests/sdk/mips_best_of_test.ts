// The label index picks its p best candidate leaves with `bestOf` (a bounded heap): the set must
// be what sorting by (score descending, position ascending) gives, with ties, -Infinity and
// every p.
import { bestOf } from "../../sdk/kinds/mips_index.ts";
import { assertEquals } from "../helpers.ts";
import { mulberry32 } from "./helpers.ts";

Deno.test("mips bestOf: the p best positions equal the sorted order's first p, ties to the earlier", () => {
  const rand = mulberry32(17);
  for (let t = 0; t < 3000; t++) {
    const n = 1 + Math.floor(rand() * 80);
    const s = Float64Array.from({ length: n + 3 }, (_, i) => {
      if (i >= n) return 1e9; // values past n are not read
      const u = rand();
      return u < 0.3 ? Math.floor(rand() * 4) : u < 0.35 ? -Infinity : rand() - 0.5;
    });
    const sorted = Array.from({ length: n }, (_, i) => i).sort((a, b) => s[b] - s[a] || a - b);
    for (const p of [1, n, 1 + Math.floor(rand() * n)]) {
      const heap = new Int32Array(p + 2).fill(-7);
      const got = [...bestOf(s, n, p, heap).subarray(0, p)].sort((a, b) => a - b);
      const want = sorted.slice(0, p).sort((a, b) => a - b);
      assertEquals(got, want, `n ${n} p ${p}: ${[...s.subarray(0, n)]}`);
      assertEquals([...heap.subarray(p)], [-7, -7], "writes past p");
    }
  }
});
