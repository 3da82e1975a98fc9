/**
 * Review s28 (CoEmbed): large seeds, the batch fit's sizes and the warm-start flag of a state.
 *
 * - A seed past 2⁵³ / 7919 (about 1.1e12: a millisecond timestamp is one) made every epoch of
 *   the batch fit visit the rows in the same order (the float product seed · 7919 rounded the
 *   epoch number away), and a seed past 2⁵³ / 31 started V, P, Q and H from the same normals.
 * - `fitCoEmbed` took a fractional or negative `numCols` and failed later with a message
 *   about something else ("the fit diverged ... lower learningRate", "Invalid array length").
 * - `restoreCore` took any `warmStarted` scalar (7, NaN, 0.5) as "not warm-started".
 */
import { CoEmbedCore } from "../../../src/models/coembed/core.ts";
import { resolveConfig } from "../../../src/models/coembed/config.ts";
import { CoEmbedFit, fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { blockFromCsr } from "../../../src/models/coembed/blocks.ts";
import { CoEmbedLearner, restoreCore } from "../../../src/models/coembed/learner.ts";
import { assert, assertBadInput } from "../../helpers.ts";

/** The row orders the batch fit's global steps see, one entry per minibatch. */
function epochOrders(seed: number, epochs: number): string[] {
  const N = 8, D = 3;
  const core = new CoEmbedCore(resolveConfig({ variant: "L", seed, rankX: 2 }), D, 2);
  const x = {
    numRows: N,
    numCols: D,
    indptr: Int32Array.from({ length: N + 1 }, (_, i) => i),
    indices: Int32Array.from({ length: N }, (_, i) => i % D),
    values: new Float32Array(N).fill(1),
  };
  const y = { numRows: N, numCols: 2, indptr: new Int32Array(N + 1), indices: new Int32Array(0) };
  const fit = new CoEmbedFit(core, blockFromCsr(x, y, D, 2, "zero"));
  const orders: string[] = [];
  const step = core.globalStep.bind(core);
  core.globalStep = (block, U, G, n, rows) => {
    orders.push(Array.from(rows ?? []).join());
    step(block, U, G, n, rows);
  };
  for (let e = 0; e < epochs; e++) fit.runEpoch(N);
  return orders;
}

Deno.test("s28 coembed: every epoch draws its own row order, whatever the seed", () => {
  // one minibatch per epoch: a different order per epoch (8! orders, 4 epochs)
  for (const seed of [1, 2 ** 40, 2 ** 50, 1_796_576_409_199, -(2 ** 52)]) {
    const orders = epochOrders(seed, 4);
    assert(orders.length === 4, `seed ${seed}: ${orders.length} minibatches`);
    assert(
      new Set(orders).size === 4,
      `seed ${seed}: ${new Set(orders).size} distinct orders in 4 epochs: ${orders.join(" | ")}`,
    );
  }
});

Deno.test("s28 coembed: V, P, Q and H start from different normals, whatever the seed", () => {
  for (const seed of [3, 2 ** 52, 2 ** 53 - 1, -(2 ** 50)]) {
    const core = new CoEmbedCore(
      resolveConfig({ variant: "L", seed, rankX: 4, rankS: 4, rankE: 4 }),
      4,
      4,
    );
    const rows = [core.V, core.P, core.Q, core.H].map((a) => a.slice(0, 4).join());
    assert(new Set(rows).size === 4, `seed ${seed}: first rows ${rows.join(" | ")}`);
  }
});

Deno.test("s28 coembed: fitCoEmbed refuses sizes that are not integers >= 0, naming them", () => {
  const data = (xCols: number, yCols: number) => ({
    x: {
      numRows: 2,
      numCols: xCols,
      indptr: Int32Array.of(0, 1, 2),
      indices: Int32Array.of(0, 1),
      values: Float32Array.of(1, 1),
    },
    y: { numRows: 2, numCols: yCols, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 1) },
  });
  const fit = (xCols: number, yCols: number) =>
    fitCoEmbed(data(xCols, yCols), { variant: "L" }, { epochs: 1 });
  assertBadInput([
    [() => fit(2.5, 2), /fitCoEmbed: data\.x\.numCols must be an integer >= 0, got 2\.5/],
    [() => fit(2, 2.5), /fitCoEmbed: data\.y\.numCols must be an integer >= 0, got 2\.5/],
    [() => fit(-1, 2), /data\.x\.numCols .* got -1/],
    [() => fit(2, NaN), /data\.y\.numCols .* got NaN/],
  ]);
  // the sizes the repository uses still fit
  assert(fit(2, 2).core.numLabels === 2);
});

Deno.test("s28 coembed: a state's warmStarted must be 0 or 1", () => {
  const m = CoEmbedLearner.create({ variant: "L", seed: 1 }, 2, 2);
  m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
  for (const bad of [7, 0.5, NaN, -1]) {
    const s = m.toState();
    s.scalars.warmStarted = bad;
    assertBadInput([[() => restoreCore(s), /coembed\.restore: scalar warmStarted must be/]]);
  }
  for (const ok of [0, 1]) {
    const s = m.toState();
    s.scalars.warmStarted = ok;
    assert(CoEmbedLearner.restore(s).warmStarted === (ok === 1));
  }
});
