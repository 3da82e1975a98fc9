/**
 * A tiny dependency-free SVG line plot (several series, axes with round ticks, legend), e.g. for
 * prequential P@1 curves or accuracy-versus-size trade-offs. Returns SVG text.
 *
 * @module
 */
import { formatTick, niceTicks } from "./ticks.ts";

/**
 * One series of a line plot.
 *
 * @example
 * ```ts
 * import type { Series } from "./line_plot.ts";
 * const s: Series = { name: "LEML", x: [1, 2, 3], y: [10, 20, 25] };
 * console.log(s.x.length); // 3
 * ```
 */
export interface Series {
  name: string;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  /** CSS colour (default: from a fixed palette). */
  color?: string;
  /**
   * Draw a marker at each point (default: when the series has at most 40 points). A point
   * without a finite neighbour always gets its marker (a line needs two points).
   */
  markers?: boolean;
  /** Marker shape (default "circle"; "diamond" is larger, for points to stand out). */
  marker?: "circle" | "diamond";
  /** Draw the line dashed (e.g. a reference level), in the plot and the legend. */
  dashed?: boolean;
}

/**
 * Options of {@linkcode linePlot}.
 *
 * @example
 * ```ts
 * import type { LinePlotOptions } from "./line_plot.ts";
 * const o: LinePlotOptions = { title: "P@1", xLabel: "rows", yLabel: "%" };
 * console.log(o.title); // "P@1"
 * ```
 */
export interface LinePlotOptions {
  title?: string;
  xLabel?: string;
  yLabel?: string;
  /** Size in pixels (default 640 × 400). */
  width?: number;
  height?: number;
  /** Fixed y range (default: from the data). */
  yMin?: number;
  yMax?: number;
  /** Logarithmic x axis (all x must be > 0). */
  logX?: boolean;
}

/**
 * A generous estimate of the width in pixels of `text` in a sans-serif font of `fontSize` px
 * (wide letters count more), used to size the legend so that no name is cut off.
 *
 * @example
 * ```ts
 * import { textWidth } from "./line_plot.ts";
 * console.log(textWidth("iii", 12) < textWidth("MMM", 12)); // true
 * ```
 */
export function textWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const ch of text) {
    if (/[MWmw@%]/.test(ch)) em += 0.95;
    else if (/[A-Z]/.test(ch)) em += 0.72;
    else if (/[ijlI.,:;'|!· ]/.test(ch)) em += 0.33;
    else if (ch.codePointAt(0)! > 0x2000) em += 1; // symbols such as → ≤
    else em += 0.6;
  }
  return em * fontSize;
}

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"];

/**
 * Escapes text for SVG/XML content and attribute values. Characters XML 1.0 does not allow at
 * all, even escaped (control characters other than tab, newline and carriage return, U+FFFE,
 * U+FFFF), become U+FFFD: left in, they make the whole SVG unreadable to an XML parser.
 *
 * @example
 * ```ts
 * import { escapeXml } from "./line_plot.ts";
 * console.log(escapeXml(`a<b & "c"`)); // a&lt;b &amp; &quot;c&quot;
 * ```
 */
export function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&apos;")
    // deno-lint-ignore no-control-regex
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g, "\ufffd");
}

function fmt(v: number): string {
  return Number(v.toFixed(2)).toString();
}

/**
 * Renders the series as an SVG line plot. Points with a non-finite coordinate are skipped
 * (they break the line).
 *
 * @throws {RangeError} when a series' x and y lengths differ, `logX` meets x ≤ 0, or a size
 *   or y bound is not a finite number (a width below 1, a height leaving no plot area, `yMin`
 *   not below `yMax`)
 *
 * @example
 * ```ts
 * import { linePlot } from "./line_plot.ts";
 * const svg = linePlot([{ name: "P@1", x: [100, 200, 300], y: [20, 35, 41] }], { title: "demo" });
 * console.log(svg.startsWith("<svg"), svg.includes("<polyline")); // true true
 * ```
 */
export function linePlot(series: readonly Series[], options: LinePlotOptions = {}): string {
  const width = options.width ?? 640;
  const height = options.height ?? 400;
  const left = 64, right = 16, top = options.title ? 36 : 16, bottom = 48;
  // the legend (when there are several series) is as wide as its longest name and sits right
  // of the plot; the plot area keeps at least 60% of the asked width, the SVG grows otherwise
  const legendWidth = series.length > 1
    ? Math.ceil(36 + Math.max(...series.map((s) => textWidth(s.name, 12))))
    : 0;
  const plotW = Math.max(width - left - right - legendWidth, Math.round(0.6 * width));
  const legendBottom = top + 10 + 18 * (series.length - 1) + 10;
  const plotH = height - top - bottom;
  if (!(width >= 1 && width < Infinity)) {
    throw new RangeError(`linePlot: width must be a finite number >= 1 (pixels), got ${width}`);
  }
  if (!(plotH >= 1 && height < Infinity)) {
    throw new RangeError(
      `linePlot: height must be a finite number >= ${top + bottom + 1} (the axes ` +
        `${options.title ? "and the title " : ""}take ${top + bottom} pixels), got ${height}`,
    );
  }
  for (const [name, v] of [["yMin", options.yMin], ["yMax", options.yMax]] as const) {
    if (v !== undefined && !Number.isFinite(v)) {
      throw new RangeError(`linePlot: ${name} must be a finite number, got ${v}`);
    }
  }
  if (options.yMin !== undefined && options.yMax !== undefined && options.yMin >= options.yMax) {
    throw new RangeError(
      `linePlot: yMin (${options.yMin}) must be below yMax (${options.yMax})`,
    );
  }
  const svgWidth = left + plotW + legendWidth + right;
  const svgHeight = legendWidth > 0 ? Math.max(height, legendBottom) : height;
  let xMin = Infinity, xMax = -Infinity, yMin = Infinity, yMax = -Infinity;
  const tx = (v: number) => (options.logX ? Math.log10(v) : v);
  for (const s of series) {
    if (s.x.length !== s.y.length) {
      throw new RangeError(
        `linePlot: series '${s.name}' has ${s.x.length} x values but ${s.y.length} y values`,
      );
    }
    for (let i = 0; i < s.x.length; i++) {
      const x = s.x[i], y = s.y[i];
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      if (options.logX && x <= 0) {
        throw new RangeError(`linePlot: logX needs x > 0, series '${s.name}' has x = ${x}`);
      }
      xMin = Math.min(xMin, tx(x));
      xMax = Math.max(xMax, tx(x));
      yMin = Math.min(yMin, y);
      yMax = Math.max(yMax, y);
    }
  }
  if (xMin === Infinity) {
    xMin = 0;
    xMax = 1;
    yMin = 0;
    yMax = 1;
  }
  // one fixed bound beyond all the data: the range starts (or ends) there, it does not collapse
  if (options.yMin !== undefined) {
    yMin = options.yMin;
    yMax = Math.max(yMax, yMin);
  }
  if (options.yMax !== undefined) {
    yMax = options.yMax;
    yMin = Math.min(yMin, yMax);
  }
  const xt = niceTicks(xMin, xMax, 6);
  const yt = niceTicks(yMin, yMax, 5);
  // a log axis spans the data, unless that is one value: then the ticks' widened range centres it
  const logSpan = options.logX && xMax - xMin > 1e-9 * Math.max(Math.abs(xMin), Math.abs(xMax));
  const x0 = logSpan ? xMin : xt[0], x1 = logSpan ? xMax : xt[xt.length - 1];
  const y0 = options.yMin ?? yt[0], y1 = options.yMax ?? yt[yt.length - 1];
  const sx = (v: number) => left + ((tx(v) - x0) / (x1 - x0 || 1)) * plotW;
  const sy = (v: number) => top + plotH - ((v - y0) / (y1 - y0 || 1)) * plotH;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${svgWidth}" height="${svgHeight}" ` +
      `viewBox="0 0 ${svgWidth} ${svgHeight}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${svgWidth}" height="${svgHeight}" fill="white"/>`);
  if (options.title) {
    out.push(
      `<text x="${fmt(left + plotW / 2)}" y="22" text-anchor="middle" font-size="15">` +
        `${escapeXml(options.title)}</text>`,
    );
  }
  // grid and ticks
  for (const v of yt) {
    if (v < y0 - 1e-12 || v > y1 + 1e-12) continue;
    const y = fmt(sy(v));
    out.push(`<line x1="${left}" x2="${left + plotW}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(
      `<text x="${left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">` +
        `${escapeXml(formatTick(v, yt[1] - yt[0]))}</text>`,
    );
  }
  const inX = (v: number) => tx(v) >= x0 - 1e-12 && tx(v) <= x1 + 1e-12;
  let xTicks = xt, xStep = xt[1] - xt[0];
  if (options.logX) {
    // powers of ten; on a range too narrow for two of them, 1, 2 and 5 times them, else round
    // linear steps (a log axis of 150 to 900 had no label at all)
    xTicks = xt.filter((e) => Number.isInteger(e)).map((e) => Math.pow(10, e)).filter(inX);
    if (xTicks.length < 2) {
      xTicks = [];
      for (let e = Math.floor(x0); e <= Math.ceil(x1); e++) {
        for (const m of [1, 2, 5]) if (inX(m * Math.pow(10, e))) xTicks.push(m * Math.pow(10, e));
      }
    }
    xStep = NaN;
    if (xTicks.length < 2) {
      const lin = niceTicks(Math.pow(10, x0), Math.pow(10, x1), 6);
      xTicks = lin.filter((v) => v > 0);
      xStep = lin[1] - lin[0];
    }
  }
  for (const v of xTicks) {
    if (!inX(v)) continue;
    const x = fmt(sx(v));
    out.push(`<line x1="${x}" x2="${x}" y1="${top}" y2="${top + plotH}" stroke="#e5e5e5"/>`);
    out.push(
      `<text x="${x}" y="${top + plotH + 16}" text-anchor="middle">` +
        `${escapeXml(formatTick(v, xStep))}</text>`,
    );
  }
  out.push(
    `<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`,
  );
  if (options.xLabel) {
    out.push(
      `<text x="${fmt(left + plotW / 2)}" y="${height - 10}" text-anchor="middle">` +
        `${escapeXml(options.xLabel)}</text>`,
    );
  }
  if (options.yLabel) {
    const cy = fmt(top + plotH / 2);
    out.push(
      `<text x="16" y="${cy}" text-anchor="middle" transform="rotate(-90 16 ${cy})">` +
        `${escapeXml(options.yLabel)}</text>`,
    );
  }
  // series
  series.forEach((s, k) => {
    const color = s.color ?? PALETTE[k % PALETTE.length];
    const dash = s.dashed ? ` stroke-dasharray="6 4"` : "";
    const segments: string[][] = [[]];
    for (let i = 0; i < s.x.length; i++) {
      const x = s.x[i], y = s.y[i];
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        if (segments[segments.length - 1].length > 0) segments.push([]);
        continue;
      }
      segments[segments.length - 1].push(`${fmt(sx(x))},${fmt(sy(y))}`);
    }
    const marked = s.markers ?? s.x.length <= 40;
    for (const seg of segments) {
      if (seg.length === 0) continue;
      // a lone point is its marker only, also without markers (a one-point polyline draws
      // nothing: a one-point curve was an empty plot)
      if (seg.length > 1) {
        out.push(
          `<polyline fill="none" stroke="${escapeXml(color)}" stroke-width="2"${dash}` +
            ` points="${seg.join(" ")}"><title>${escapeXml(s.name)}</title></polyline>`,
        );
      }
      if (marked || seg.length === 1) {
        for (const p of seg) {
          const [cx, cy] = p.split(",").map(Number);
          if (s.marker === "diamond") {
            const d = 6;
            out.push(
              `<polygon points="${fmt(cx)},${fmt(cy - d)} ${fmt(cx + d)},${fmt(cy)} ` +
                `${fmt(cx)},${fmt(cy + d)} ${fmt(cx - d)},${fmt(cy)}" fill="${
                  escapeXml(color)
                }" stroke="#000" stroke-width="0.5"><title>${escapeXml(s.name)}</title></polygon>`,
            );
          } else {
            out.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${escapeXml(color)}"/>`);
          }
        }
      }
    }
    if (legendWidth > 0) {
      const ly = top + 10 + 18 * k;
      const lx = left + plotW + 12;
      if (s.marker === "diamond") {
        out.push(
          `<polygon points="${lx + 9},${ly - 5} ${lx + 14},${ly} ${lx + 9},${ly + 5} ${
            lx + 4
          },${ly}" ` +
            `fill="${escapeXml(color)}" stroke="#000" stroke-width="0.5"/>`,
        );
      } else {
        out.push(
          `<line x1="${lx}" x2="${lx + 18}" y1="${ly}" y2="${ly}" stroke="${
            escapeXml(color)
          }" stroke-width="2"${dash}/>`,
        );
      }
      out.push(
        `<text x="${lx + 24}" y="${ly}" dominant-baseline="middle">${escapeXml(s.name)}</text>`,
      );
    }
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}
