// Label indices up to the int32 limit and label spaces of many sizes: refused or counted, never
// a half-counted row or a blown call stack.
import { LabelCoverage } from "../../src/metrics/coverage.ts";
import { MacroAuc } from "../../src/metrics/macro_auc.ts";
import { assertEquals, messageOf } from "../helpers.ts";

Deno.test("LabelCoverage: a row refused for a too large label counts none of its labels", () => {
  const c = new LabelCoverage([1]);
  const message = messageOf(() => c.add(Int32Array.of(0), [0, 2 ** 40]));
  c.add(Int32Array.of(5), Int32Array.of(5)); // found
  // label 0 of the refused row is not a seen, never found label
  assertEquals(c.result(), { "coverage@1": 100 });
  assertEquals(
    message,
    "LabelCoverage.add: true label 1099511627776 is out of range [0, 2147483647) (an int32 index)",
  );
});

Deno.test("MacroAuc: rows of 200,000 distinct label-space sizes (a growing label space)", () => {
  const m = new MacroAuc();
  const n = 200_000;
  // row i has i + 1 labels, its new label i true (scored 1), the older ones unlisted (0)
  for (let i = 0; i < n; i++) m.addSparse([i], [1], i + 1, [i]);
  // label l: positive in row l, negative (0) in every later row; the last has no negative
  assertEquals([m.result(), m.validLabels, m.skippedLabels], [1, n - 1, 1]);
});
