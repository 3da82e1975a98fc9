/**
 * The streaming learner's warm start (spectral V from the rows available once `warmStart` rows
 * have come, bounded by the reservoir) and its consolidation (epochs of alternating updates over
 * the reservoir's stored rows): what they compute, that they stay within the reservoir, and that
 * consolidation recovers what one pass over a label-sorted stream forgot.
 */
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import { CoEmbedCore } from "../../../src/models/coembed/core.ts";
import { blockFromCsr } from "../../../src/models/coembed/blocks.ts";
import { resolveConfig } from "../../../src/models/coembed/config.ts";
import { spectralInit } from "../../../src/models/coembed/spectral.ts";
import { withReplay } from "../../../src/data/reservoir.ts";
import { heldOutMacroAuc, labelSortedProblem, maskedCsr, rowsBatch, synthetic } from "./helpers.ts";
import { assert } from "../../helpers.ts";

const same = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  a.length === b.length && Array.from(a).every((v, i) => Object.is(v, b[i]));

Deno.test("consolidation over the reservoir recovers what one sorted pass forgot", () => {
  const { s, m } = labelSortedProblem();
  // a forgetful stream: no replay during the pass, one global step per minibatch
  const make = () =>
    CoEmbedLearner.create(
      { variant: "L", rankX: 4, absent: "missing", replayRatio: 0, streamSteps: 1, seed: 4 },
      s.D,
      s.L,
    );
  const a = make(), b = make();
  for (let r = 0; r < 500; r += 25) {
    a.learnMany(rowsBatch(m, r, 25));
    b.learnMany(rowsBatch(m, r, 25));
  }
  const onePass = heldOutMacroAuc(a, s);
  const res = JSON.stringify(a.reservoir.toState().scalars), rows = a.rowsSeen;
  const V = a.core.V.slice();
  a.consolidate(0);
  assert(same(a.core.V, V), "consolidate(0) changed the model");
  a.consolidate(20);
  b.consolidate(20);
  const after = heldOutMacroAuc(a, s);
  assert(after > 0.8 && after > onePass + 0.05, `macro-AUC ${onePass} → ${after}`);
  assert(a.rowsSeen === rows, "consolidation counted rows");
  assert(JSON.stringify(a.reservoir.toState().scalars) === res, "consolidation drew rows");
  assert(same(a.core.V, b.core.V) && same(a.core.P, b.core.P), "not deterministic");
  for (const [e, n] of [[-1, 64], [1.5, 64], [1, 0]]) {
    let msg = "";
    try {
      a.consolidate(e, n);
    } catch (err) {
      msg = (err as Error).message;
    }
    assert(msg.startsWith("CoEmbed consolidate:"), `consolidate(${e}, ${n}): "${msg}"`);
  }
});

Deno.test("warm start: V becomes the spectral initialisation of the rows available", () => {
  const s = synthetic(80, 10, 3, 41);
  const m = maskedCsr(s, 0, 80, 0.5, 0.3, 42);
  // no optimiser step after the warm start, so V is exactly the initialisation
  const opts = {
    variant: "L" as const,
    rankX: 3,
    absent: "missing" as const,
    warmStart: 40,
    streamSteps: 0,
    seed: 6,
  };
  const est = CoEmbedLearner.create(opts, s.D, s.L);
  const random = est.core.V.slice();
  est.learnMany(rowsBatch(m, 0, 20));
  assert(!est.warmStarted && same(est.core.V, random), "warm start before 40 rows");
  const half = est.toState();
  est.learnMany(rowsBatch(m, 20, 20));
  assert(est.warmStarted, "no warm start at 40 rows");
  // expected: the spectral initialisation of the minibatch followed by the reservoir's rows
  const core = new CoEmbedCore(resolveConfig(opts), s.D, s.L);
  const rows = withReplay(rowsBatch(m, 20, 20), rowsBatch(m, 0, 20));
  spectralInit(core, blockFromCsr(rows.x, rows.y, s.D, s.L, "missing"));
  assert(same(est.core.V, core.V), "V is not the spectral initialisation of the 40 rows");
  assert(!same(core.V, random), "the initialisation did not change V");
  // the flag is part of the state: a restored learner warms up at the same point
  const restored = CoEmbedLearner.restore(half);
  assert(!restored.warmStarted, "restored as warm-started");
  restored.learnMany(rowsBatch(m, 20, 20));
  assert(restored.warmStarted && same(restored.core.V, est.core.V), "restored run differs");
  const again = CoEmbedLearner.restore(est.toState());
  again.learnMany(rowsBatch(m, 40, 20));
  est.learnMany(rowsBatch(m, 40, 20));
  assert(same(again.core.V, est.core.V), "a warm-started learner warmed up twice");
  // a reservoir smaller than warmStart: the warm start comes once the reservoir is full
  const small = CoEmbedLearner.create({ ...opts, replay: 10 }, s.D, s.L);
  small.learnMany(rowsBatch(m, 0, 5));
  assert(!small.warmStarted, "warm start with 5 of 10 rows");
  small.learnMany(rowsBatch(m, 5, 5));
  small.learnMany(rowsBatch(m, 10, 5));
  assert(small.warmStarted, "no warm start with a full reservoir");
});
