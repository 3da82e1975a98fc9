// The plot's axes and text on awkward inputs: control characters, nearly flat or one-value
// series, narrow log ranges, fixed bounds and sizes that leave no plot.
import { linePlot } from "../../src/plot/line_plot.ts";
import { formatTick, niceTicks } from "../../src/plot/ticks.ts";
import { assert, assertBadInput } from "../helpers.ts";

/** The frame of the plot area: `<rect x= y= width= height=` with a stroke. */
function frame(svg: string): { x: number; y: number; w: number; h: number } {
  const m = svg.match(/<rect x="([^"]+)" y="([^"]+)" width="([^"]+)" height="([^"]+)"/);
  assert(m !== null, "no plot frame");
  return { x: Number(m[1]), y: Number(m[2]), w: Number(m[3]), h: Number(m[4]) };
}

/** The text of the tick labels left of the y axis (text-anchor end). */
function yLabels(svg: string): string[] {
  return svg.split("\n").filter((l) => l.includes('text-anchor="end"'))
    .map((l) => l.replace(/<[^>]*>/g, ""));
}

/** The text of the tick labels below the x axis: those at the frame's bottom + 16. */
function xLabels(svg: string): string[] {
  const f = frame(svg);
  return svg.split("\n").filter((l) => l.includes(`y="${f.y + f.h + 16}"`))
    .map((l) => l.replace(/<[^>]*>/g, ""));
}

Deno.test("linePlot: control characters in a title, label or series name leave valid XML", () => {
  const svg = linePlot([
    { name: "run\u0001A", x: [1, 2], y: [1, 2] },
    { name: "run\u001bB\uffff", x: [1, 2], y: [2, 3] },
  ], { title: "data\u0000.txt", xLabel: "rows\u0008", yLabel: "P@1\u000c" });
  // XML 1.0 allows no other character below U+0020 (not even as &#1;), nor U+FFFE / U+FFFF
  // deno-lint-ignore no-control-regex
  const bad = svg.match(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/);
  assert(bad === null, `character U+${bad?.[0].charCodeAt(0).toString(16)} in the SVG`);
  for (const text of ["run", "A", "B", "data", ".txt", "rows", "P@1"]) {
    assert(svg.includes(text), `${text} is lost`);
  }
});

Deno.test("linePlot: the y labels of a nearly flat series all read differently", () => {
  const svg = linePlot([{ name: "P@1", x: [1, 2, 3], y: [41.2345, 41.23451, 41.23452] }]);
  const labels = yLabels(svg);
  assert(labels.length >= 2, `${labels.length} y labels`);
  assert(new Set(labels).size === labels.length, `repeated y labels: ${labels.join(" ")}`);
  // each label is its tick's value
  for (const l of labels) assert(Math.abs(Number(l) - 41.2345) < 1e-4, `label ${l}`);
  assert(formatTick(1500, 500) === "1.5k" && formatTick(0.25, 0.05) === "0.25", "usual ticks");
});

Deno.test("linePlot: a log x axis of one value puts the points in the middle, labelled", () => {
  const svg = linePlot([{ name: "s", x: [100, 100], y: [1, 2] }], { logX: true });
  const f = frame(svg);
  const points = svg.match(/points="([^"]+)"/)![1].split(" ").map((p) => Number(p.split(",")[0]));
  for (const x of points) assert(Math.abs(x - (f.x + f.w / 2)) < 1, `point at x = ${x}`);
  assert(xLabels(svg).includes("100"), `x labels: ${xLabels(svg).join(" ")}`);
});

Deno.test("linePlot: a log x axis narrower than two powers of ten still has labels", () => {
  for (const x of [[150, 900], [210, 480], [0.3, 0.7]]) {
    const svg = linePlot([{ name: "s", x, y: [1, 2] }], { logX: true });
    const labels = xLabels(svg);
    assert(labels.length >= 2, `x ${x}: labels ${labels.join(" ")}`);
    // labels lie within the data's range
    for (const l of labels) {
      const v = Number(l);
      assert(v >= x[0] - 1e-9 && v <= x[1] + 1e-9, `x ${x}: label ${l}`);
    }
  }
});

Deno.test("linePlot: sizes and y bounds that leave no plot are refused", () => {
  const s = [{ name: "s", x: [1, 2], y: [1, 2] }];
  assertBadInput([
    [() => linePlot(s, { yMin: 5, yMax: 1 }), /linePlot: yMin \(5\) must be below yMax \(1\)/],
    [() => linePlot(s, { yMin: 1, yMax: 1 }), /yMin \(1\) must be below yMax/],
    [() => linePlot(s, { yMax: NaN }), /linePlot: yMax must be a finite number, got NaN/],
    [() => linePlot(s, { yMin: -Infinity }), /yMin must be a finite number/],
    [() => linePlot(s, { height: 50 }), /linePlot: height must be a finite number >= 65/],
    [() => linePlot(s, { height: NaN }), /height must be a finite number/],
    [() => linePlot(s, { width: 0 }), /linePlot: width must be a finite number >= 1/],
    [() => linePlot(s, { width: Infinity }), /width must be a finite number/],
  ]);
  assert(linePlot(s, { height: 65, width: 1 }).startsWith("<svg"), "smallest plot");
});

Deno.test("linePlot: a fixed yMin above every value starts a y range there", () => {
  const svg = linePlot([{ name: "s", x: [1, 2], y: [1, 10] }], { yMin: 50 });
  const labels = yLabels(svg).map(Number);
  assert(labels.length >= 2, `y labels: ${labels}`);
  assert(Math.min(...labels) === 50 && Math.max(...labels) > 50, `y labels: ${labels}`);
  const below = linePlot([{ name: "s", x: [1, 2], y: [60, 70] }], { yMax: 10 });
  const b = yLabels(below).map(Number);
  assert(b.length >= 2 && Math.max(...b) === 10 && Math.min(...b) < 10, `y labels: ${b}`);
});

Deno.test("niceTicks and linePlot: the tick at zero reads 0, not binary noise", () => {
  for (const [min, max] of [[-0.06, 0.04], [-0.13, 0.09], [-0.7, 0.5]]) {
    const ticks = niceTicks(min, max, 5);
    assert(ticks.includes(0), `[${min}, ${max}]: ticks ${ticks}`);
  }
  const svg = linePlot([{ name: "change", x: [1, 2, 3], y: [-0.06, 0.01, 0.04] }]);
  const labels = yLabels(svg);
  assert(labels.includes("0"), `y labels: ${labels.join(" ")}`);
  assert(!labels.some((l) => l.includes("e-")), `y labels: ${labels.join(" ")}`);
});
