/**
 * A tiny SVG plot helper: {@linkcode linePlot} (several series, round ticks, legend) and its
 * tick utilities. No dependencies; returns SVG text to write to a `.svg` file.
 *
 * @example
 * ```ts
 * import { linePlot } from "./mod.ts";
 * const svg = linePlot([
 *   { name: "kNN", x: [1, 2, 3], y: [50, 55, 57] },
 *   { name: "popularity", x: [1, 2, 3], y: [20, 20, 21] },
 * ], { title: "P@1", xLabel: "epoch", yLabel: "%" });
 * console.log(svg.includes("popularity")); // true
 * ```
 *
 * @module
 */
export { escapeXml, linePlot, type LinePlotOptions, type Series } from "./line_plot.ts";
export { formatTick, niceTicks } from "./ticks.ts";
