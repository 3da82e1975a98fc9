/**
 * The fold-in's ridge solve when λ_X is lost to rounding (V near 1e15: λ_X I + V_OᵀV_O is
 * singular in float64 for a row observing fewer features than rankX): the trainer's predictor
 * and the SDK solve it again with a ridge relative to the trace, identically, close to the
 * minimum-norm answer (computed here from the well-conditioned dual system); ordinary systems
 * are solved exactly as before; a V that is not finite is refused, naming it.
 */
import {
  type PredictorTensors,
  QUERY_LIMIT,
  RandomFeaturesPredictor,
  retryRidge,
  solveRidge,
  solveSpd,
} from "../../../src/models/coembed/predictor.ts";
import { predictorFileContent } from "../../../src/models/coembed/learner.ts";
import { encodeModelFile } from "../../../src/format/model_file.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { decodeModel } from "../../../sdk/decode.ts";
import { randomFeatures } from "../../../sdk/kinds/random_features.ts";
import { assert, assertEquals, messageOf } from "../../helpers.ts";
import { rand } from "./helpers.ts";

const D = 8, kX = 5, L = 4;

/** Predictor tensors with V (and Q) of the given scale; L variant, projected, absent missing. */
function tensors(scale: number, seed: number): PredictorTensors {
  const g = rand(seed), normal = () => g() * 2 - 1;
  return {
    variant: "L",
    numFeatures: D,
    numLabels: L,
    rankS: 3,
    rankX: kX,
    numRff: 0,
    lambdaX: 0.1,
    absent: "missing",
    input: "projected",
    Q: Float32Array.from({ length: D * 3 }, normal),
    P: Float32Array.from({ length: L * 3 }, normal),
    bias: Float32Array.from({ length: L }, normal),
    V: Float32Array.from({ length: D * kX }, () => normal() * scale),
  };
}

/** The minimum-norm u with u·V_d = x_d for the observed d (dual: (V_O V_Oᵀ) y = x, u = V_Oᵀy). */
function minNorm(t: PredictorTensors, obs: number[], x: number[]): number[] {
  const m = obs.length, V = t.V;
  const A = obs.map((d) =>
    obs.map((e) => V.slice(d * kX, d * kX + kX).reduce((s, v, k) => s + v * V[e * kX + k], 0))
  );
  const b = x.slice();
  for (let i = 0; i < m; i++) {
    for (let j = i + 1; j < m; j++) {
      const f = A[j][i] / A[i][i];
      for (let k = i; k < m; k++) A[j][k] -= f * A[i][k];
      b[j] -= f * b[i];
    }
  }
  const y = new Array<number>(m).fill(0);
  for (let i = m - 1; i >= 0; i--) {
    let s = b[i];
    for (let k = i + 1; k < m; k++) s -= A[i][k] * y[k];
    y[i] = s / A[i][i];
  }
  return Array.from({ length: kX }, (_, k) => obs.reduce((s, d, i) => s + V[d * kX + k] * y[i], 0));
}

Deno.test("fold-in of a row observing fewer features than rankX, V near 1e15: min-norm, = SDK", () => {
  for (let seed = 1; seed <= 20; seed++) {
    const t = tensors(1e15, seed), p = new RandomFeaturesPredictor(t);
    const file = encodeModelFile(predictorFileContent(t, 0.1));
    const scorer = randomFeatures(decodeModel(file)), edge = loadModel(file);
    const obs = [1, 4, 6], x = [...Float32Array.of(3e20, -1e20, 2e20)];
    const q = p.query(Int32Array.from(obs), Float32Array.from(x)).slice();
    // the exact answer: t = (u Vᵀ) Q with u the minimum-norm fit (λ_X = 0.1 is nothing beside
    // ‖V_O‖² ≈ 1e30 in the row space, and gives u no component outside it)
    const u = minNorm(t, obs, x);
    const ref = Array.from({ length: 3 }, (_, s) => {
      let z = 0;
      for (let d = 0; d < D; d++) {
        let xd = 0;
        for (let k = 0; k < kX; k++) xd += u[k] * t.V[d * kX + k];
        z += xd * t.Q[d * 3 + s];
      }
      return z;
    });
    const norm = Math.hypot(...ref);
    q.forEach((v, s) => {
      assert(Math.abs(v - ref[s]) <= 1e-5 * norm, `seed ${seed}: t_${s} = ${v}, exact ${ref[s]}`);
    });
    const scores = p.scores(Int32Array.from(obs), Float32Array.from(x));
    assert(scores.every(Number.isFinite), `seed ${seed}: finite scores`);
    assertEquals([...scorer(Int32Array.from(obs), Float64Array.from(x))], [...scores], "SDK");
    const top = edge.predictTopK({ indices: obs, values: x }, L);
    assertEquals([...top.scores], [...top.labels].map((l) => scores[l]), "loadModel's answer");
  }
});

Deno.test("fold-in solve: an ordinary system is solved as plain Cholesky, bit for bit", () => {
  const g = rand(5);
  for (let trial = 0; trial < 50; trial++) {
    const n = 1 + (trial % 6), V = Array.from({ length: 3 * n }, () => g() - 0.5);
    const a = new Float64Array(n * n), b = Float64Array.from({ length: n }, () => g() - 0.5);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        a[i * n + j] = (i === j ? 0.1 : 0) +
          [0, 1, 2].reduce((s, r) => s + V[r * n + i] * V[r * n + j], 0);
      }
    }
    // the textbook factorisation, as solveSpd computed it before the singularity check
    const l = a.slice(), x = b.slice();
    for (let j = 0; j < n; j++) {
      let s = l[j * n + j];
      for (let k = 0; k < j; k++) s -= l[j * n + k] * l[j * n + k];
      l[j * n + j] = Math.sqrt(s);
      for (let i = j + 1; i < n; i++) {
        let t = l[i * n + j];
        for (let k = 0; k < j; k++) t -= l[i * n + k] * l[j * n + k];
        l[i * n + j] = t / l[j * n + j];
      }
    }
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < i; k++) x[i] -= l[i * n + k] * x[k];
      x[i] /= l[i * n + i];
    }
    for (let i = n - 1; i >= 0; i--) {
      for (let k = i + 1; k < n; k++) x[i] -= l[k * n + i] * x[k];
      x[i] /= l[i * n + i];
    }
    const mine = b.slice();
    assertEquals(solveRidge(a.slice(), mine, n), 0, "no second solve");
    assertEquals([...mine], [...x], `trial ${trial}`);
  }
});

Deno.test("fold-in solve: a singular system is solved again with a ridge of 1e-8 × trace", () => {
  // 0.1 I + [1e20 1e20; 1e20 1e20]: λ is lost, the matrix singular in float64
  const a = Float64Array.of(1e20 + 0.1, 1e20, 1e20, 1e20 + 0.1), b = Float64Array.of(1e10, 1e10);
  assertEquals(solveSpd(a.slice(), b.slice(), 2), false);
  const x = b.slice(), e = solveRidge(a.slice(), x, 2);
  assertEquals(e, retryRidge(2e20));
  // the minimum-norm solution of x₀ + x₁ = 1e-10
  for (const v of x) assert(Math.abs(v - 5e-11) < 1e-18, `${x}`);
  assertEquals(retryRidge(NaN), 1, "NaN: a ridge that fails too, not a loop");
});

Deno.test("fold-in solve: V not finite is refused with a RangeError naming it, SDK alike", () => {
  const t = tensors(1, 3);
  t.V[7] = NaN;
  const p = new RandomFeaturesPredictor(t);
  const msg = messageOf(() => p.scores(Int32Array.of(1, 4), Float32Array.of(1, 2)));
  assert(/fold-in does not factor .*V is not finite/.test(msg), msg);
  assert(
    messageOf(() => solveRidge(Float64Array.of(NaN), Float64Array.of(1), 1)).includes("not finite"),
  );
  const scorer = randomFeatures(decodeModel(encodeModelFile(predictorFileContent(t, 0.1))));
  const sdk = messageOf(() => scorer(Int32Array.of(1, 4), Float64Array.of(1, 2)));
  assert(sdk.includes("fold-in failed"), sdk);
});

Deno.test("CoEmbed query: a norm past QUERY_LIMIT is scaled down to it, the SDK alike", () => {
  const t = { ...tensors(1, 9), absent: "zero" as const, input: "raw" as const };
  const p = new RandomFeaturesPredictor(t), x = Float32Array.of(3e38, -2e38, 1e38);
  const q = p.query(Int32Array.of(0, 3, 5), x);
  assert(Math.abs(Math.hypot(...q) / QUERY_LIMIT - 1) < 1e-12, `‖t‖ = ${Math.hypot(...q)}`);
  const scores = p.scores(Int32Array.of(0, 3, 5), x);
  assert(scores.every(Number.isFinite), `${scores}`);
  const scorer = randomFeatures(decodeModel(encodeModelFile(predictorFileContent(t, 0.1))));
  assertEquals([...scorer(Int32Array.of(0, 3, 5), Float64Array.from(x))], [...scores]);
  // an ordinary query is left as it is
  const small = p.query(Int32Array.of(0, 3, 5), Float32Array.of(3, -2, 1)).slice();
  const direct = [0, 1, 2].map((s) => 3 * t.Q[s] - 2 * t.Q[9 + s] + t.Q[15 + s]);
  assertEquals([...small], direct);
});
