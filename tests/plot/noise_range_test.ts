import { linePlot } from "../../src/plot/line_plot.ts";
import { niceTicks } from "../../src/plot/ticks.ts";
import { assert } from "../helpers.ts";

Deno.test("niceTicks: a range of rounding noise gives a few distinct ticks around the value", () => {
  const v = 0.1 + 0.2; // 0.30000000000000004
  const ticks = niceTicks(0.3, v);
  assert(ticks.length <= 12, `${ticks.length} ticks`);
  assert(new Set(ticks).size === ticks.length, `repeated ticks: ${ticks.slice(0, 5)}`);
  assert(ticks[0] <= 0.3 && ticks[ticks.length - 1] >= v, `ticks do not cover: ${ticks}`);
  const big = niceTicks(1e16, 1e16 + 2);
  assert(big.length <= 12 && new Set(big).size === big.length, `${big.length} ticks`);
});

Deno.test("linePlot: a flat series whose values differ by rounding noise has a few y labels", () => {
  const svg = linePlot([{ name: "P@1", x: [1, 2, 3], y: [0.3, 0.1 + 0.2, 0.3] }]);
  const labels = svg.split("\n").filter((l) => l.includes('text-anchor="end"'));
  assert(labels.length > 0 && labels.length <= 12, `${labels.length} y labels`);
  assert(svg.length < 10_000, `${svg.length} characters`);
});
