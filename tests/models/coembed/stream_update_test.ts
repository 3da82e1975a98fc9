/**
 * What one streaming minibatch computes: `streamSteps` times the batch fit's minibatch update on
 * the new rows (and, with replay, a fresh reservoir sample per step), each row entering as the
 * label-free ridge fold-in of its observed features with G_i = 0 (no row steps by default),
 * checked bit for bit against the same updates written out with the core's methods.
 */
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import { CoEmbedCore, GLOBAL_NAMES, type RowBlock } from "../../../src/models/coembed/core.ts";
import { blockFromCsr } from "../../../src/models/coembed/blocks.ts";
import { resolveConfig } from "../../../src/models/coembed/config.ts";
import { withReplay } from "../../../src/data/reservoir.ts";
import type { Batch } from "../../../src/data/types.ts";
import { maskedCsr, rowsBatch, synthetic } from "./helpers.ts";
import { assert } from "../../helpers.ts";

const same = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  a.length === b.length && Array.from(a).every((v, i) => Object.is(v, b[i]));

/** One global step of `core` on `block` with U the ridge fold-in of every row and G = 0. */
function ridgeStep(core: CoEmbedCore, block: RowBlock, rowsRef: number): void {
  const kX = core.config.rankX;
  const U = new Float64Array(block.rows * kX), G = new Float64Array(block.rows * core.config.rankE);
  for (let i = 0; i < block.rows; i++) core.ridgeFoldIn(block, i, U, i * kX);
  core.globalStep(block, U, G, rowsRef);
}

const s = synthetic(120, 10, 4, 41);
const m = maskedCsr(s, 0, 120, 0.5, 0.3, 42);
const options = {
  variant: "NL",
  numRff: 16,
  gamma: 0.3,
  rankX: 3,
  absent: "missing",
  streamSteps: 3,
  seed: 9,
};

Deno.test("a stream minibatch: streamSteps global steps on the rows' ridge fold-in", () => {
  const est = CoEmbedLearner.create({ ...options, replay: 0 }, s.D, s.L);
  const batch: Batch = rowsBatch(m, 0, 40);
  est.learnMany(batch);
  const core = new CoEmbedCore(resolveConfig({ ...options, replay: 0 }), s.D, s.L);
  const block = blockFromCsr(batch.x, batch.y, s.D, s.L, "missing");
  for (let t = 0; t < 3; t++) ridgeStep(core, block, 40);
  for (const name of GLOBAL_NAMES) {
    assert(same(est.core[name], core[name]), `${name} differs from the reference updates`);
  }
  // row steps (streamRowSteps > 0) change what the globals learn from
  const withRows = CoEmbedLearner.create({ ...options, replay: 0, streamRowSteps: 1 }, s.D, s.L);
  withRows.learnMany(batch);
  assert(!same(withRows.core.P, est.core.P), "streamRowSteps 1 gave the same P as 0");
});

Deno.test("replayPerStep: every stream step draws its own replay sample", () => {
  const cfg = { ...options, replay: 50, replayRatio: 1 };
  const est = CoEmbedLearner.create(cfg, s.D, s.L);
  est.learnMany(rowsBatch(m, 0, 40));
  est.learnMany(rowsBatch(m, 40, 40));
  const copy = CoEmbedLearner.restore(est.toState());
  const batch = rowsBatch(m, 80, 40);
  est.learnMany(batch);
  // the reference: the same steps on the restored copy, one reservoir sample per step
  for (let t = 0; t < 3; t++) {
    const rows = withReplay(batch, copy.reservoir.sample(40));
    ridgeStep(copy.core, blockFromCsr(rows.x, rows.y, s.D, s.L, "missing"), 120);
  }
  for (const name of GLOBAL_NAMES) {
    assert(same(est.core[name], copy.core[name]), `${name} differs from the reference updates`);
  }
  const once = CoEmbedLearner.create({ ...cfg, replayPerStep: false }, s.D, s.L);
  for (const from of [0, 40, 80]) once.learnMany(rowsBatch(m, from, 40));
  assert(!same(once.core.V, est.core.V), "one sample per minibatch gave the same V");
});

Deno.test("consolidation takes the stream's update over the reservoir's rows", () => {
  const est = CoEmbedLearner.create({ ...options, replay: 30 }, s.D, s.L);
  for (const from of [0, 40]) est.learnMany(rowsBatch(m, from, 40));
  const copy = CoEmbedLearner.restore(est.toState());
  est.consolidate(1, 64); // one minibatch holding all 30 stored rows
  const rows = copy.reservoir.rows();
  ridgeStep(copy.core, blockFromCsr(rows.x, rows.y, s.D, s.L, "missing"), 30);
  for (const name of GLOBAL_NAMES) {
    const a = est.core[name], b = copy.core[name];
    // the same step; only the order of the rows in the gradient sums differs
    const err = a.reduce((e, v, i) => Math.max(e, Math.abs(v - b[i])), 0);
    assert(err < 1e-9, `${name} differs from one step on the stored rows' fold-in by ${err}`);
  }
});
