/**
 * Gradient checks of the CoEmbed objective against central finite differences, for every
 * factor (V, P, Q, H, bias, U rows, G rows), for ColEmbed-L and ColEmbed-NL, at two sizes: a
 * small one, and one whose dimensions exercise every blocked kernel of the core (8 features per
 * pass and a remainder in VᵀW, 4 + 2 + 1 latent columns in the RFF gradient of V, 4 features or
 * classifier inputs per pass and a remainder in the forward and backward passes).
 */
import { SmallRng } from "../../../src/random/mod.ts";
import { resolveConfig } from "../../../src/models/coembed/config.ts";
import { CoEmbedCore, GLOBAL_NAMES, type RowBlock } from "../../../src/models/coembed/core.ts";

function rand(seed: number): () => number {
  const rng = new SmallRng(seed);
  return () => rng.next();
}

const SIZES = {
  small: { D: 6, rankX: 3, rankS: 2, numRff: 7 },
  blocked: { D: 19, rankX: 7, rankS: 5, numRff: 9 },
};

function problem(variant: "L" | "NL", seed: number, size: keyof typeof SIZES) {
  const r = rand(seed);
  const { D, rankX, rankS, numRff } = SIZES[size];
  const N = 5, L = 4;
  const config = resolveConfig({
    variant,
    rankX,
    rankS,
    rankE: 2,
    numRff,
    gamma: 0.4,
    lambda: 1.3,
    lambdaX: 0.2,
    lambdaS: 0.3,
    lambdaE: 0.15,
    alpha: 0.7,
    initScale: 0.6,
    seed,
  });
  const core = new CoEmbedCore(config, D, L);
  for (let j = 0; j < L; j++) core.b[j] = r() - 0.5;
  const block: RowBlock = {
    rows: N,
    numFeatures: D,
    numLabels: L,
    x: new Float64Array(N * D).map(() => 2 * r() - 1),
    mask: new Uint8Array(N * D).map(() => (r() < 0.6 ? 1 : 0)),
    y: new Uint8Array(N * L).map(() => (r() < 0.4 ? 1 : 0)),
  };
  const U = new Float64Array(N * config.rankX).map(() => r() - 0.5);
  const G = new Float64Array(N * config.rankE).map(() => r() - 0.5);
  return { core, block, U, G, N };
}

function objective(p: ReturnType<typeof problem>): number {
  const { core, block, U, G, N } = p;
  const kX = core.config.rankX, kE = core.config.rankE;
  core.changed();
  let f = core.globalRegulariser();
  for (let i = 0; i < N; i++) f += core.rowPass(block, i, U, i * kX, G, i * kE, false, 0);
  return f;
}

function checkArray(
  name: string,
  arr: Float64Array,
  analytic: ArrayLike<number>,
  p: ReturnType<typeof problem>,
): number {
  let worst = 0;
  const eps = 1e-6;
  for (let i = 0; i < arr.length; i++) {
    const old = arr[i];
    arr[i] = old + eps;
    const fp = objective(p);
    arr[i] = old - eps;
    const fm = objective(p);
    arr[i] = old;
    const numeric = (fp - fm) / (2 * eps);
    const err = Math.abs(numeric - analytic[i]) /
      Math.max(1e-4, Math.abs(numeric) + Math.abs(analytic[i]));
    if (err > worst) worst = err;
    if (err > 1e-5) {
      throw new Error(`${name}[${i}]: analytic ${analytic[i]} vs numeric ${numeric}`);
    }
  }
  objective(p);
  return worst;
}

for (
  const [variant, size] of [["L", "small"], ["NL", "small"], ["L", "blocked"], [
    "NL",
    "blocked",
  ]] as const
) {
  Deno.test(`CoEmbed ${variant} (${size}): gradients of every factor match finite differences`, () => {
    const p = problem(variant, variant === "L" ? 3 : 4, size);
    const { core, block, U, G, N } = p;
    const kX = core.config.rankX, kE = core.config.rankE;
    // Global gradients: every row with weight 1 plus the regularisers.
    core.changed();
    const grads = core.startGlobalGrads();
    for (let i = 0; i < N; i++) core.rowPass(block, i, U, i * kX, G, i * kE, false, 1);
    core.finishGlobalGrads(1);
    const analytic = Object.fromEntries(GLOBAL_NAMES.map((n) => [n, grads[n].slice()]));
    // Row gradients.
    const gU = new Float64Array(U.length), gG = new Float64Array(G.length);
    for (let i = 0; i < N; i++) {
      core.rowPass(block, i, U, i * kX, G, i * kE, true, 0);
      gU.set(core.rowGradU, i * kX);
      gG.set(core.rowGradG, i * kE);
    }
    let nonZero = 0;
    for (const name of GLOBAL_NAMES) {
      checkArray(name, core[name], analytic[name], p);
      nonZero += analytic[name].filter((g) => Math.abs(g) > 1e-6).length;
    }
    checkArray("U", U, gU, p);
    checkArray("G", G, gG, p);
    if (nonZero < 20) throw new Error(`only ${nonZero} non-zero global gradient entries`);
  });
}
