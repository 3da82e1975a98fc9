/**
 * Review s28 (CoEmbed): `CoEmbedFit.runEpoch` (public: the batch fit's epoch, and
 * `consolidate`'s) took any batch size: 0 or -1 looped forever on a fit with rows, NaN took no
 * step and 2.5 visited a row twice in one epoch; its `rowSteps` option was not bounded either.
 */
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { assert, assertBadInput } from "../../helpers.ts";

function fitOf(N: number) {
  const x = {
    numRows: N,
    numCols: 2,
    indptr: Int32Array.from({ length: N + 1 }, (_, i) => i),
    indices: Int32Array.from({ length: N }, (_, i) => i % 2),
    values: new Float32Array(N).fill(1),
  };
  const y = {
    numRows: N,
    numCols: 2,
    indptr: Int32Array.from({ length: N + 1 }, (_, i) => i),
    indices: Int32Array.from({ length: N }, (_, i) => i % 2),
  };
  return fitCoEmbed({ x, y }, { variant: "L", seed: 1 }, { epochs: 0 });
}

Deno.test("s28 coembed: runEpoch refuses a batch size that is not an integer >= 1", () => {
  // (0 and -1 on a fit without rows: on one with rows they looped forever)
  const empty = fitOf(0), four = fitOf(4);
  assertBadInput([
    [() => empty.runEpoch(0), /CoEmbedFit\.runEpoch: batchSize 0 must be an integer >= 1/],
    [() => empty.runEpoch(-1), /batchSize -1 must be an integer >= 1/],
    [() => four.runEpoch(NaN), /batchSize NaN must be an integer >= 1/],
    [() => four.runEpoch(2.5), /batchSize 2\.5 must be an integer >= 1/],
    [() => four.runEpoch(2, { rowSteps: -1 }), /rowSteps -1 must be an integer in \[0, 1000\]/],
    [() => four.runEpoch(2, { rowSteps: 1e9 }), /rowSteps 1000000000 must be an integer/],
  ]);
  const epochs: number = four.epochs;
  assert(epochs === 0, `a refused epoch counted: ${epochs}`);
  // a good one still runs: two minibatches of two rows
  const step = four.core.step;
  four.runEpoch(2);
  assert(four.core.step - step === 2 && four.epochs === 1, `${four.core.step - step} steps`);
});
