// A batch's `observed` mask without `fullyObserved` declares no row fully observed (data/types.ts
// `Batch`; LEML, its batch trainer and the replay reservoir read it so): a row whose mask is empty
// then observes nothing. BR read such a row as fully observed and learned every label it does not
// carry as a negative, e.g. on the rows of `revealEntries` (the missing-labels protocol) where no
// entry was revealed.
import { BrEstimator } from "../../../src/models/br/mod.ts";
import { revealEntries } from "../../../src/models/leml/missing.ts";
import type { Batch } from "../../../src/data/types.ts";
import { assert, assertEquals } from "../../helpers.ts";

/** Row 0 (feature 0) observes nothing; row 1 (feature 1) observes label 0 (+) and label 1 (−). */
const MASKED: Batch = {
  x: {
    numRows: 2,
    numCols: 2,
    indptr: Int32Array.of(0, 1, 2),
    indices: Int32Array.of(0, 1),
    values: Float32Array.of(1, 1),
  },
  y: { numRows: 2, numCols: 3, indptr: Int32Array.of(0, 0, 1), indices: Int32Array.of(0) },
  observed: {
    numRows: 2,
    numCols: 3,
    indptr: Int32Array.of(0, 0, 2),
    indices: Int32Array.of(0, 1),
  },
};

const CONFIGS = [
  { loss: "squared-hinge", optimizer: "adam" },
  { loss: "logistic", optimizer: "adam" },
  { loss: "squared-hinge", optimizer: "sgd" },
  { loss: "logistic", optimizer: "sgd" },
] as const;

Deno.test("br: with an observed mask and no fullyObserved, a row with an empty mask observes nothing", () => {
  for (const cfg of CONFIGS) {
    const a = new BrEstimator(cfg), b = new BrEstimator(cfg);
    a.learnMany(MASKED);
    b.learnMany({ ...MASKED, fullyObserved: Uint8Array.of(0, 0) });
    const wa = a.toState().tensors.w, wb = b.toState().tensors.w;
    // feature 0 occurs in row 0 only: none of its weights may move
    assertEquals([...wa.subarray(0, 3)], [0, 0, 0], `${cfg.loss}/${cfg.optimizer}: feature 0`);
    assertEquals([...wa], [...wb], `${cfg.loss}/${cfg.optimizer}: weights`);
    assertEquals([...a.toState().tensors.b], [...b.toState().tensors.b], `${cfg.loss}: biases`);
    // label 2 is observed in no row: its bias and weights stay at 0
    assertEquals(
      a.predictScores({ indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) })[2],
      0,
    );
  }
});

Deno.test("br: the rows of revealEntries learn what the same rows with fullyObserved all 0 learn", () => {
  // 3 labels revealed at 20%: about half the rows have no revealed entry at all
  const n = 40, L = 3;
  const yp = [0], yi: number[] = [], xp = [0], xi: number[] = [], xv: number[] = [];
  for (let i = 0; i < n; i++) {
    xi.push(i % 5);
    xv.push(1);
    xp.push(xi.length);
    yi.push(i % L);
    yp.push(yi.length);
  }
  const y = { numRows: n, numCols: L, indptr: Int32Array.from(yp), indices: Int32Array.from(yi) };
  const { observed, y: seen } = revealEntries(y, 0.2, 3);
  let empty = 0;
  for (let i = 0; i < n; i++) if (observed.indptr[i + 1] === observed.indptr[i]) empty++;
  assert(empty > 5, `only ${empty} rows without a revealed entry`);
  const x = {
    numRows: n,
    numCols: 5,
    indptr: Int32Array.from(xp),
    indices: Int32Array.from(xi),
    values: Float32Array.from(xv),
  };
  for (const cfg of CONFIGS) {
    const a = new BrEstimator(cfg), b = new BrEstimator(cfg);
    a.learnMany({ x, y: seen, observed });
    b.learnMany({ x, y: seen, observed, fullyObserved: new Uint8Array(n) });
    assertEquals(
      [...a.toState().tensors.w],
      [...b.toState().tensors.w],
      `${cfg.loss}/${cfg.optimizer}`,
    );
    assertEquals(
      [...a.toState().tensors.b],
      [...b.toState().tensors.b],
      `${cfg.loss}/${cfg.optimizer}`,
    );
  }
});
