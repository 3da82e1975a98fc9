/**
 * The ridge fold-in of several rows at once (CoEmbedCore.ridgeFoldInRows, which sums the normal
 * equations' matrix once for the rows that observe every feature) against folding the rows in
 * one by one: bit for bit, for full and partial masks, zero and negative-zero entries, and a
 * block narrower or wider than the model.
 */
import { CoEmbedCore, type RowBlock } from "../../../src/models/coembed/core.ts";
import { resolveConfig } from "../../../src/models/coembed/config.ts";
import { SmallRng } from "../../../src/random/mod.ts";
import { assert } from "../../helpers.ts";

function block(rng: SmallRng, rows: number, D: number, fullRows: Set<number>): RowBlock {
  const b: RowBlock = {
    rows,
    numFeatures: D,
    numLabels: 1,
    x: new Float64Array(rows * D),
    mask: new Uint8Array(rows * D),
    y: new Uint8Array(rows),
  };
  for (let i = 0; i < rows; i++) {
    for (let d = 0; d < D; d++) {
      const u = rng.next();
      // mostly zeros (as sparse rows are), some -0, some values
      b.x[i * D + d] = u < 0.6 ? 0 : u < 0.7 ? -0 : (rng.next() - 0.5) * 4;
      b.mask[i * D + d] = fullRows.has(i) || rng.next() < 0.5 ? 1 : 0;
    }
  }
  return b;
}

Deno.test("CoEmbed ridgeFoldInRows equals one-by-one ridgeFoldIn bit for bit", () => {
  const rng = new SmallRng(3);
  for (const [D, BD] of [[12, 12], [12, 9], [9, 12]]) {
    const core = new CoEmbedCore(resolveConfig({ variant: "L", rankX: 4, seed: 2 }), D, 2);
    for (let j = 0; j < core.V.length; j++) core.V[j] = (rng.next() - 0.5) * 2;
    const b = block(rng, 9, BD, new Set([0, 2, 3, 7]));
    const kX = 4;
    const one = new Float64Array(b.rows * kX).fill(NaN);
    for (let i = 0; i < b.rows; i++) core.ridgeFoldIn(b, i, one, i * kX);
    const all = new Float64Array(b.rows * kX).fill(NaN);
    core.ridgeFoldInRows(b, all);
    const some = new Float64Array(b.rows * kX).fill(NaN);
    core.ridgeFoldInRows(b, some, [7, 1, 3]);
    for (let j = 0; j < one.length; j++) {
      assert(Object.is(all[j], one[j]), `D ${D}, block ${BD}: U[${j}] ${all[j]} vs ${one[j]}`);
      const row = Math.floor(j / kX);
      const want = [7, 1, 3].includes(row) ? one[j] : NaN;
      assert(Object.is(some[j], want), `rows subset: U[${j}] ${some[j]} vs ${want}`);
    }
  }
});
