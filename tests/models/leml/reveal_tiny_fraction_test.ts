// revealEntries (the paper's missing-labels protocol) accepts any fraction in (0, 1]. Below
// about 1e-16, 1 − fraction rounds to 1, log(1 − fraction) was 0, every geometric skip −Infinity,
// and the loop revealed entries without end until the process ran out of memory. The calls run in
// a child process with a small heap, so that the old code fails the test instead of the runner.
import { assert, assertEquals } from "../../helpers.ts";

const MISSING = new URL("../../../src/models/leml/missing.ts", import.meta.url).href;

Deno.test("revealEntries: a fraction below 1e-16 reveals next to nothing, and returns", async () => {
  const code = `
import { revealEntries } from ${JSON.stringify(MISSING)};
const n = 50, L = 40;
const y = { numRows: n, numCols: L, indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
  indices: Int32Array.from({ length: n }, (_, i) => i % L) };
const out = [];
for (const f of [1e-17, 1e-300, Number.MIN_VALUE]) {
  for (const seed of [0, 1, 2]) {
    const r = revealEntries(y, f, seed);
    out.push([r.observed.indptr[n], r.y.indptr[n], r.observed.indptr.length, r.y.indptr.length]);
  }
}
console.log(JSON.stringify(out));`;
  const res = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--max-old-space-size=128", code],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(res.stderr);
  assert(res.success, `the child failed: ${err.slice(0, 300)}`);
  const rows = JSON.parse(new TextDecoder().decode(res.stdout)) as number[][];
  assertEquals(rows.length, 9);
  // 2000 entries at a fraction of at most 1e-17: nothing is revealed (the chance of one is 2e-14)
  for (const r of rows) assertEquals(r, [0, 0, 51, 51]);
});
