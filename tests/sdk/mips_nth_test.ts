// The label index picks its p best candidate leaves by the p-th best score: `nth` (a selection)
// must give what sorting gives, for ties, -Infinity and every k.
import { nth } from "../../sdk/kinds/mips_index.ts";
import { assertEquals } from "../helpers.ts";
import { mulberry32 } from "./helpers.ts";

Deno.test("mips nth: the k-th smallest equals the sorted array's k-th, with ties and -Infinity", () => {
  const rand = mulberry32(17);
  for (let t = 0; t < 3000; t++) {
    const n = 1 + Math.floor(rand() * 80);
    const a = Float64Array.from({ length: n }, () => {
      const u = rand();
      return u < 0.3 ? Math.floor(rand() * 4) : u < 0.35 ? -Infinity : rand() - 0.5;
    });
    const sorted = a.slice().sort();
    for (const k of [0, n - 1, Math.floor(rand() * n)]) {
      const scratch = new Float64Array(n + 3).fill(7); // values past n are not read
      scratch.set(a);
      assertEquals(nth(scratch, n, k), sorted[k], `n ${n} k ${k}: ${[...a]}`);
    }
  }
});
