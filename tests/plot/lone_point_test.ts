import { linePlot } from "../../src/plot/line_plot.ts";
import { assert } from "../helpers.ts";

/** The drawn marks (circles, polygons, polylines with two points or more) of the SVG. */
function marks(svg: string): string[] {
  return svg.split("\n").filter((l) =>
    l.startsWith("<circle") || l.startsWith("<polygon") ||
    (l.startsWith("<polyline") && /points="[^" ]+ [^"]+"/.test(l))
  );
}

Deno.test("linePlot: a one-point series without markers is still drawn (a prequential curve of one batch)", () => {
  const svg = linePlot([
    { name: "running P@1", x: [256], y: [41], markers: false },
    { name: "P@1, last 1000", x: [256], y: [40], markers: false },
  ], { yMin: 0 });
  assert(marks(svg).length === 2, `marks: ${marks(svg).join(" | ")}`);
});

Deno.test("linePlot: a lone point between NaNs of a long series is drawn", () => {
  const n = 60;
  const x = Array.from({ length: n }, (_, i) => i);
  const y = x.map((i) => (i === 30 ? 5 : i === 29 || i === 31 ? NaN : i % 7));
  const svg = linePlot([{ name: "s", x, y }]);
  const circles = svg.split("\n").filter((l) => l.startsWith("<circle"));
  assert(circles.length === 1, `${circles.length} markers`);
  const lines = svg.split("\n").filter((l) => l.startsWith("<polyline"));
  assert(lines.length === 2, `${lines.length} polylines`);
});
