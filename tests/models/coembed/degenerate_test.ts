/**
 * CoEmbed settings that make the fit overflow: the error names the setting and its limit (not
 * a failed factorisation deep inside, nor NaN scores).
 */
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import type { BinaryCsr, CsrMatrix } from "../../../src/data/types.ts";
import { assertBadInput } from "../../helpers.ts";

const x: CsrMatrix = {
  numRows: 4,
  numCols: 3,
  indptr: Int32Array.of(0, 1, 2, 3, 5),
  indices: Int32Array.of(0, 1, 2, 0, 2),
  values: Float32Array.of(1, 1, 1, 0.5, 0.5),
};
const y: BinaryCsr = {
  numRows: 4,
  numCols: 2,
  indptr: Int32Array.of(0, 1, 2, 3, 4),
  indices: Int32Array.of(0, 1, 0, 1),
};
/** The same rows with no features at all (only the label factors learn). */
const noFeatures: CsrMatrix = {
  numRows: 4,
  numCols: 0,
  indptr: new Int32Array(5),
  indices: new Int32Array(0),
  values: new Float32Array(0),
};

Deno.test("coembed fit: an RBF gamma whose directions overflow is named with its limit", () => {
  // the settings' limit (float32 directions in the model file), before any work
  assertBadInput([[
    () => fitCoEmbed({ x, y }, { variant: "NL", numRff: 8, gamma: 1e308 }, { epochs: 1 }),
    /option gamma must be a finite number in \(0, 1e\+74\], got 1e\+308/,
  ]]);
});

Deno.test("coembed fit: a diverging fit names learningRate and initScale", () => {
  assertBadInput([
    [
      () => fitCoEmbed({ x, y }, { numRff: 8, learningRate: 1e300 }, { epochs: 3 }),
      /diverged.*learningRate \(1e\+300\).*initScale \(0\.1\)/,
    ],
    [
      // an initial scale that would overflow is refused by the settings, naming the range
      () => fitCoEmbed({ x, y }, { numRff: 8, initScale: 1e300 }, { epochs: 3 }),
      /option initScale must be a finite number in \(0, 1000\], got 1e\+300/,
    ],
    [
      () => fitCoEmbed({ x: noFeatures, y }, { numRff: 8, learningRate: 1e300 }, { epochs: 3 }),
      // caught at the first value the float32 model cannot hold (here about 1e300, before NaN)
      /fit diverged in epoch \d+: factor [PQHb] holds (NaN|-?\d[\d.]*e\+\d+);/,
    ],
  ]);
});
