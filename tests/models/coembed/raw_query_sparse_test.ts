/**
 * RandomFeaturesPredictor.query on a "raw" row with absent entries 0 sums over the row's own
 * entries (not all D features): the same query, bit for bit, as the completed dense row gives.
 * A row that repeats its last column (the first value counts) takes the dense path, so the two
 * are compared on the same x̃.
 */
import { assertEquals } from "../../helpers.ts";
import {
  type PredictorTensors,
  RandomFeaturesPredictor,
} from "../../../src/models/coembed/predictor.ts";

function tensors(variant: "L" | "NL", seed: number): PredictorTensors {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5;
  const D = 9, K = 4, kS = 3, kX = 2, L = 5, F = variant === "NL" ? 2 * K : D;
  const f32 = (n: number) => Float32Array.from({ length: n }, rnd);
  return {
    variant,
    numFeatures: D,
    numLabels: L,
    rankS: kS,
    rankX: kX,
    numRff: variant === "NL" ? K : 0,
    lambdaX: 0.1,
    absent: "zero",
    input: "raw",
    ...(variant === "NL" ? { W: f32(D * K) } : {}),
    Q: f32(F * kS),
    P: f32(L * kS),
    bias: f32(L),
    V: f32(D * kX),
  };
}

Deno.test("CoEmbed raw-row query equals the dense path's, bit for bit", () => {
  const rows: [number[], number[]][] = [
    [[], []],
    [[3], [2.5]],
    [[0, 4, 8], [1, -0.75, 3]],
    [[1, 2, 5], [0, -0, 1e-3]], // zero values add nothing
    [[2, 7, 9, 12], [1.5, -2, 4, 8]], // columns past D are ignored
    [[0, 1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8, 9]],
    [[6], [1e30]], // scaled down to the query limit
  ];
  for (const variant of ["L", "NL"] as const) {
    for (const seed of [1, 2]) {
      const p = new RandomFeaturesPredictor(tensors(variant, seed));
      for (const [i, v] of rows) {
        const got = [...p.query(Int32Array.from(i), Float32Array.from(v))];
        const gotScores = [...p.scores(Int32Array.from(i), Float32Array.from(v))];
        // the last column again (its first value counts): not increasing, the dense path
        const di = Int32Array.from([...i, i.at(-1) ?? 0]), dv = Float32Array.from([...v, 7]);
        if (i.length === 0) dv[0] = 0; // (an empty row: a 0 at column 0 adds nothing)
        const want = [...p.query(di, dv)], wantScores = [...p.scores(di, dv)];
        assertEquals(got, want, `${variant} seed ${seed} row ${i}`);
        assertEquals(gotScores, wantScores, `${variant} seed ${seed} row ${i}`);
      }
    }
  }
});
