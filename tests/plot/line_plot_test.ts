import { linePlot } from "../../src/plot/line_plot.ts";
import { assert } from "../helpers.ts";

Deno.test("linePlot: a dashed series is dashed in the plot and in the legend, the others are not", () => {
  const svg = linePlot([
    { name: "curve", x: [1, 2, 3], y: [1, 4, 9] },
    { name: "level", x: [1, 3], y: [5, 5], dashed: true, markers: false },
  ]);
  const lines = svg.split("\n");
  const dashed = lines.filter((l) => l.includes('stroke-dasharray="6 4"'));
  assert(dashed.length === 2, `dashed elements: ${dashed.length}`);
  assert(
    dashed.some((l) => l.startsWith("<polyline") && l.includes("<title>level</title>")),
    "plot",
  );
  assert(dashed.some((l) => l.startsWith("<line")), "legend");
  const curve = lines.find((l) => l.startsWith("<polyline") && l.includes("<title>curve</title>"));
  assert(curve !== undefined && !curve.includes("dasharray"), "the plain series is solid");
});
