/**
 * What the replay reservoir (src/data/reservoir.ts, tested in tests/data/reservoir_test.ts) is
 * for in CoEmbed: one pass over a stream sorted by label (scene's file order) forgets the early
 * labels without replay and keeps them with it.
 */
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import { heldOutMacroAuc, labelSortedProblem, rowsBatch } from "./helpers.ts";

Deno.test("replay keeps one pass over a label-sorted stream from forgetting", () => {
  const { s, m } = labelSortedProblem();
  const auc = (replay: number) => {
    const est = CoEmbedLearner.create(
      { variant: "L", rankX: 4, absent: "missing", replay, seed: 4 },
      s.D,
      s.L,
    );
    for (let b = 0; b < 500; b += 25) {
      est.learnMany(rowsBatch(m, b, 25));
    }
    return heldOutMacroAuc(est, s);
  };
  const without = auc(0), withReplay = auc(500);
  if (!(withReplay > 0.8 && withReplay > without + 0.05)) {
    throw new Error(`macro-AUC with replay ${withReplay}, without ${without}`);
  }
});
