/**
 * Review s28 (CoEmbed): the spectral start and the sizes `create` takes.
 *
 * - The spectral start (`warmStart` of the stream, `init: "spectral"` of the batch fit) set a
 *   column of V to 0 when its eigenvalue was not positive (fewer rows than rankX, empty rows).
 *   Such a column never moves again: its fold-in coordinate and every gradient of it are 0. A
 *   warm start on an empty first row left V = 0 for good, so that every row got the same scores.
 * - `CoEmbedLearner.create(options, numFeatures, numLabels)` took 2.5 or NaN features as given
 *   and -1 labels as 0.
 */
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import { CoEmbedEstimator } from "../../../src/models/coembed/estimator.ts";
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { assert, assertBadInput } from "../../helpers.ts";
import { rand } from "./helpers.ts";

/** The columns of V `[D, kX]` that are exactly 0. */
function zeroColumns(V: Float64Array, D: number, kX: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < kX; k++) {
    let s = 0;
    for (let d = 0; d < D; d++) s += Math.abs(V[d * kX + k]);
    if (s === 0) out.push(k);
  }
  return out;
}

const row = (values: number[]) => ({
  indices: Int32Array.from(values, (_, i) => i),
  values: Float32Array.from(values),
});

for (const variant of ["L", "NL"] as const) {
  for (const absent of ["zero", "missing"] as const) {
    Deno.test(`s28 coembed: a warm start on an empty row leaves V learning (${variant}, ${absent})`, () => {
      const D = 8, kX = 4, g = rand(11);
      const m = CoEmbedLearner.create(
        { variant, absent, numRff: 16, rankX: kX, warmStart: 1, seed: 3 },
        D,
        3,
      );
      m.learnOne({ indices: new Int32Array(0), values: new Float32Array(0) }, [0]);
      assert(m.warmStarted, "the warm start did not happen");
      for (let r = 0; r < 30; r++) {
        m.learnOne(row(Array.from({ length: D }, () => 2 * g() - 1)), [r % 3]);
      }
      const zero = zeroColumns(m.core.V, D, kX);
      assert(zero.length === 0, `V columns ${zero} are 0 after 30 rows`);
      const up = row(Array.from({ length: D }, (_, d) => d / D));
      const down = row(Array.from({ length: D }, (_, d) => -d / D));
      const a = m.predictScores(up), b = m.predictScores(down);
      assert(a.some((v, j) => v !== b[j]), `the scores do not depend on the row: ${a} / ${b}`);
    });
  }
}

Deno.test("s28 coembed: a batch fit with fewer rows than rankX keeps every column of V", () => {
  const N = 3, D = 6, kX = 5, g = rand(5);
  const x = {
    numRows: N,
    numCols: D,
    indptr: Int32Array.from({ length: N + 1 }, (_, i) => i * D),
    indices: Int32Array.from({ length: N * D }, (_, i) => i % D),
    values: Float32Array.from({ length: N * D }, () => g()),
  };
  const y = {
    numRows: N,
    numCols: 2,
    indptr: Int32Array.from({ length: N + 1 }, (_, i) => i),
    indices: Int32Array.from({ length: N }, (_, i) => i % 2),
  };
  for (const seed of [0, 1, 2, 3]) {
    const fit = fitCoEmbed({ x, y }, { variant: "L", rankX: kX, seed }, { epochs: 5 });
    const zero = zeroColumns(fit.core.V, D, kX);
    assert(zero.length === 0, `seed ${seed}: V columns ${zero} are 0`);
  }
});

Deno.test("s28 coembed: create refuses sizes that are not integers in range, naming them", () => {
  for (const create of [CoEmbedLearner.create, CoEmbedEstimator.create]) {
    assertBadInput([
      [() => create({ variant: "L" }, 2.5, 1), /coembed: option numFeatures must be .* got 2\.5/],
      [() => create({ variant: "L" }, NaN, 1), /option numFeatures .* got NaN/],
      [() => create({ variant: "L" }, 1, -1), /option numLabels .* got -1/],
      [() => create({ variant: "L" }, 1, 1.5), /option numLabels .* got 1\.5/],
    ]);
    const m = create({ variant: "L", seed: 1 }, 3, 2);
    assert(m.numFeatures === 3 && m.numLabels === 2);
  }
});
