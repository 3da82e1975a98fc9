import { lemlLossObjective, trainLemlLosses } from "../../../src/models/leml/batch_losses.ts";
import { trainLemlBatch } from "../../../src/models/leml/batch.ts";
import { type LemlLoss, lossValue } from "../../../src/models/leml/loss.ts";
import type { BinaryCsr, CsrMatrix } from "../../../src/data/types.ts";
import { SmallRng } from "../../../src/random/mod.ts";
import { assert, assertBadInput } from "../../helpers.ts";
import { planted } from "./helpers.ts";

function randomFactors(D: number, L: number, k: number, seed: number) {
  const rng = new SmallRng(seed);
  const r = (m: number) => Float64Array.from({ length: m }, () => rng.next() * 2 - 1);
  return { W: r(D * k), H: r(L * k), bias: r(L) };
}

/** Σ_{i,l} ℓ + λ/2(‖W‖² + ‖H‖²), computed entry by entry from dense scores. */
function naiveObjective(
  x: CsrMatrix,
  y: BinaryCsr,
  f: { W: Float64Array; H: Float64Array; bias: Float64Array },
  k: number,
  loss: LemlLoss,
  lambda: number,
): number {
  let v = 0;
  for (let i = 0; i < x.numRows; i++) {
    const labels = new Set(y.indices.subarray(y.indptr[i], y.indptr[i + 1]));
    for (let l = 0; l < y.numCols; l++) {
      let z = f.bias[l];
      for (let p = x.indptr[i]; p < x.indptr[i + 1]; p++) {
        for (let c = 0; c < k; c++) z += x.values[p] * f.W[x.indices[p] * k + c] * f.H[l * k + c];
      }
      v += lossValue(loss, z, labels.has(l) ? 1 : 0);
    }
  }
  let reg = 0;
  for (const a of f.W) reg += a * a;
  for (const a of f.H) reg += a * a;
  return v + 0.5 * lambda * reg;
}

const LOSSES: LemlLoss[] = ["logistic", "sqhinge", "squared"];

Deno.test("lemlLossObjective: value matches the entry-by-entry sum", () => {
  const { x, y } = planted(9, 3, true);
  const k = 3;
  for (const loss of LOSSES) {
    const f = randomFactors(x.numCols, y.numCols, k, 11);
    const got = lemlLossObjective(x, y, f.W, f.H, f.bias, loss, 0.7).value;
    const want = naiveObjective(x, y, f, k, loss, 0.7);
    assert(Math.abs(got - want) <= 1e-9 * Math.abs(want), `${loss}: ${got} vs ${want}`);
  }
});

Deno.test("lemlLossObjective: gradients match central finite differences (W, H, bias)", () => {
  const { x, y } = planted(9, 5, true);
  const k = 3, lambda = 0.3, h = 1e-6;
  for (const loss of LOSSES) {
    const f = randomFactors(x.numCols, y.numCols, k, 17);
    const g = lemlLossObjective(x, y, f.W, f.H, f.bias, loss, lambda);
    for (
      const [name, arr, grad] of [["W", f.W, g.gradW], ["H", f.H, g.gradH], [
        "bias",
        f.bias,
        g.gradBias,
      ]] as const
    ) {
      let checked = 0;
      for (let a = 0; a < arr.length; a++) {
        const keep = arr[a];
        arr[a] = keep + h;
        const up = lemlLossObjective(x, y, f.W, f.H, f.bias, loss, lambda).value;
        arr[a] = keep - h;
        const down = lemlLossObjective(x, y, f.W, f.H, f.bias, loss, lambda).value;
        arr[a] = keep;
        const fd = (up - down) / (2 * h);
        const err = Math.abs(fd - grad[a]);
        assert(
          err <= 1e-5 * Math.max(1, Math.abs(fd)),
          `${loss} ${name}[${a}]: ${grad[a]} vs fd ${fd}`,
        );
        checked++;
      }
      assert(checked === arr.length && checked > 0);
    }
  }
});

Deno.test("trainLemlLosses: every iteration decreases the objective (MM steps)", () => {
  const { x, y } = planted(200, 7, true);
  for (const loss of ["logistic", "sqhinge"] as const) {
    const f = trainLemlLosses(x, y, {
      rank: 4,
      loss,
      lambda: 0.5,
      iterations: 6,
      trackObjective: true,
    });
    assert(f.objective.length === 6);
    for (let t = 1; t < f.objective.length; t++) {
      assert(
        f.objective[t] <= f.objective[t - 1] * (1 + 1e-9),
        `${loss}: objective rose at ${t}: ${f.objective}`,
      );
    }
    // the reported objective is the objective of the returned factors
    const direct = lemlLossObjective(x, y, f.W, f.H, f.bias, loss, 0.5).value;
    assert(Math.abs(direct - f.objective[5]) <= 1e-9 * direct, `${direct} vs ${f.objective[5]}`);
  }
});

Deno.test("trainLemlLosses: learns the planted labels (held-out P@1) with both losses", () => {
  const { x, y } = planted(400, 9, true);
  const test = planted(100, 10, true);
  for (const loss of ["logistic", "sqhinge"] as const) {
    const f = trainLemlLosses(x, y, { rank: 4, loss, lambda: 0.1, iterations: 5 });
    const k = 4;
    let hits = 0;
    for (let i = 0; i < test.x.numRows; i++) {
      const u = new Float64Array(k);
      for (let p = test.x.indptr[i]; p < test.x.indptr[i + 1]; p++) {
        for (let c = 0; c < k; c++) u[c] += test.x.values[p] * f.W[test.x.indices[p] * k + c];
      }
      let best = -1, bestZ = -Infinity;
      for (let l = 0; l < test.y.numCols; l++) {
        let z = f.bias[l];
        for (let c = 0; c < k; c++) z += u[c] * f.H[l * k + c];
        if (z > bestZ) [best, bestZ] = [l, z];
      }
      const labels = test.y.indices.subarray(test.y.indptr[i], test.y.indptr[i + 1]);
      if (labels.includes(best)) hits++;
    }
    assert(hits >= 85, `${loss}: held-out P@1 ${hits}%`);
  }
});

Deno.test("trainLemlLosses: squared loss with exact inner solves equals trainLemlBatch", () => {
  // c = 1 for the squared loss: one MM step with an exact CG solve is the exact W step, and one
  // MM step of a label row is its exact ridge solve; same initial H (seeded hash) and bias
  const { x, y } = planted(120, 13, true);
  const o = { rank: 3, lambda: 0.4, iterations: 3, seed: 2 };
  const a = trainLemlLosses(x, y, {
    ...o,
    loss: "squared",
    mmSteps: 1,
    cgIterations: 500,
    cgTolerance: 1e-13,
  });
  const b = trainLemlBatch(x, y, { ...o, cgIterations: 500, cgTolerance: 1e-13 });
  let diff = 0, scale = 0;
  for (let t = 0; t < a.H.length; t++) {
    diff = Math.max(diff, Math.abs(a.H[t] - b.H[t]));
    scale = Math.max(scale, Math.abs(b.H[t]));
  }
  for (let t = 0; t < a.W.length; t++) diff = Math.max(diff, Math.abs(a.W[t] - b.W[t]));
  for (let t = 0; t < a.bias.length; t++) diff = Math.max(diff, Math.abs(a.bias[t] - b.bias[t]));
  assert(scale > 0.1 && diff < 1e-6 * Math.max(1, scale), `max difference ${diff}`);
});

Deno.test("trainLemlLosses: bad input names the problem", () => {
  const { x, y } = planted(5, 1, true);
  const badX = { ...x, indices: Int32Array.from(x.indices, (j, p) => (p === 2 ? 99 : j)) };
  assertBadInput([
    [() => trainLemlLosses(x, y, { rank: 0, loss: "logistic" }), /rank must be a positive/],
    [
      () => trainLemlLosses(x, { ...y, numRows: 4 }, { rank: 2, loss: "logistic" }),
      /x has 5 rows but y has 4/,
    ],
    [
      () => trainLemlLosses(badX, y, { rank: 2, loss: "sqhinge" }),
      /feature index 99 is out of range/,
    ],
    [
      () =>
        lemlLossObjective(
          x,
          y,
          new Float64Array(3),
          new Float64Array(24),
          new Float64Array(12),
          "logistic",
          1,
        ),
      /factors must be W 20×2/,
    ],
  ]);
});
