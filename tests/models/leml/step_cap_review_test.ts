// Review of the SGD step-size cap of streaming LEML (src/models/leml/step_cap.ts): its
// curvatures along the step against a naive reference, on the paths where they were off.
import { GradientScratch } from "../../../src/models/leml/gradients.ts";
import { LemlStream } from "../../../src/models/leml/stream.ts";
import { lossValue } from "../../../src/models/leml/loss.ts";
import { curvatureBound } from "../../../src/models/leml/step_cap.ts";
import { SmallRng } from "../../../src/random/mod.ts";
import type { Batch, BinaryCsr } from "../../../src/data/types.ts";
import { assert, csrBatch } from "../../helpers.ts";

const D = 12, L = 7, N = 5;

/** N raw rows (3 features of value 15 to 45, 2 positives) with 4 explicit negatives each. */
function maskedBatch(seed: number): Batch & { observed: BinaryCsr } {
  const r = new SmallRng(seed);
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  const op = [0], oi: number[] = [];
  for (let i = 0; i < N; i++) {
    const js = new Set<number>();
    while (js.size < 3) js.add(r.nextInt(D));
    for (const j of [...js].sort((a, b) => a - b)) {
      xi.push(j);
      xv.push(30 * (0.5 + r.next()));
    }
    xp.push(xi.length);
    const pos = new Set<number>();
    while (pos.size < 2) pos.add(r.nextInt(L));
    yi.push(...[...pos].sort((a, b) => a - b));
    yp.push(yi.length);
    const neg = new Set<number>();
    while (neg.size < 4) {
      const l = r.nextInt(L);
      if (!pos.has(l)) neg.add(l);
    }
    oi.push(...[...neg].sort((a, b) => a - b));
    op.push(oi.length);
  }
  return {
    ...csrBatch(D, L, xp, xi, xv, yp, yi),
    observed: { numRows: N, numCols: L, indptr: Int32Array.from(op), indices: Int32Array.from(oi) },
  };
}

/** Each row's observed entries [label, target] (positives and explicit negatives). */
function entriesOf(b: Batch & { observed: BinaryCsr }, i: number): [number, number][] {
  const out: [number, number][] = [];
  for (let p = b.y.indptr[i]; p < b.y.indptr[i + 1]; p++) out.push([b.y.indices[p], 1]);
  const o = b.observed;
  for (let p = o.indptr[i]; p < o.indptr[i + 1]; p++) out.push([o.indices[p], 0]);
  return out;
}

/** u_i = x_iᵀ W and t_i = x_iᵀ G for a dense D×k G. */
function rowTimes(b: Batch, i: number, M: ArrayLike<number>, k: number): Float64Array {
  const v = new Float64Array(k);
  for (let p = b.x.indptr[i]; p < b.x.indptr[i + 1]; p++) {
    for (let a = 0; a < k; a++) v[a] += b.x.values[p] * M[b.x.indices[p] * k + a];
  }
  return v;
}

Deno.test("leml step cap review: a masked batch's explicit entries at zero residual still count in the squared loss's curvature (exact β of both blocks)", () => {
  // New features have zero W rows and the biases start at 0: every explicit negative scores
  // exactly its target 0, its gradient is 0, but its curvature along the step is not
  const k = 3, lambda = 0.01;
  const m = new LemlStream({
    rank: k,
    seed: 1,
    optimizer: "sgd",
    numFeatures: D,
    numLabels: L,
    lambda,
  });
  const batch = maskedBatch(5);
  const sc = new GradientScratch(k);
  const [nw, nh] = sc.full(m, batch, 0, new SmallRng(1));
  assert(sc.curv.active, "a raw batch is capped");
  const gW = new Float64Array(D * k), gH = new Float64Array(L * k), gb = new Float64Array(L);
  for (let q = 0; q < nw; q++) {
    for (let a = 0; a < k; a++) gW[sc.wRows[q] * k + a] = sc.gW[q * k + a];
  }
  for (let q = 0; q < nh; q++) {
    for (let a = 0; a < k; a++) gH[sc.hRows[q] * k + a] = sc.gH[q * k + a];
    gb[sc.hRows[q]] = sc.gb[q];
  }
  const H = m.h.data;
  let numW = 0, numH = 0, denW = 0, denH = 0;
  for (let i = 0; i < N; i++) {
    const u = rowTimes(batch, i, m.w.data, k), t = rowTimes(batch, i, gW, k);
    for (const [l] of entriesOf(batch, i)) {
      let ht = 0, ag = gb[l];
      for (let a = 0; a < k; a++) {
        ht += H[l * k + a] * t[a];
        ag += u[a] * gH[l * k + a];
      }
      numW += ht * ht;
      numH += ag * ag;
    }
  }
  for (const v of gW) denW += v * v;
  for (let l = 0; l < L; l++) {
    for (let a = 0; a < k; a++) denH += gH[l * k + a] ** 2;
    denH += gb[l] ** 2;
  }
  const betaW = numW / (N * denW) + lambda, betaH = numH / (N * denH) + lambda;
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.abs(b);
  assert(close(sc.curv.betaW, betaW), `β_W ${sc.curv.betaW}, exact ${betaW}`);
  assert(close(sc.curv.betaH, betaH), `β_H ${sc.curv.betaH}, exact ${betaH}`);
});

Deno.test("leml step cap review: the capped W step of a masked squared-loss batch lowers the batch's loss along it", () => {
  const k = 3;
  const m = new LemlStream({ rank: k, seed: 1, optimizer: "sgd", numFeatures: D, numLabels: L });
  const batch = maskedBatch(5);
  const H = m.h.data.slice(), bias = m.bias.data.slice(), W0 = m.w.data.slice();
  // the batch objective as a function of W alone (H and the biases as before the step)
  const objective = (W: Float32Array) => {
    let sum = 0;
    for (let i = 0; i < N; i++) {
      const u = rowTimes(batch, i, W, k);
      for (const [l, target] of entriesOf(batch, i)) {
        let z = bias[l];
        for (let a = 0; a < k; a++) z += u[a] * H[l * k + a];
        sum += lossValue("squared", z, target);
      }
    }
    let reg = 0;
    for (const j of new Set(batch.x.indices)) {
      for (let a = 0; a < k; a++) reg += W[j * k + a] ** 2;
    }
    return sum / N + (m.config.lambda / 2) * reg; // λ/2 ‖W_j‖² over the batch's features
  };
  const before = objective(W0);
  m.learnMany(batch);
  const after = objective(m.w.data);
  assert(after < before, `W step raised the batch loss: ${before} -> ${after}`);
});

Deno.test("leml step cap review: without a bias the sampled negatives' expected curvature leaves out the bias direction", () => {
  // zero W rows (new features): u = 0, so with no bias nothing in H has curvature but λ
  for (const loss of ["logistic", "sqhinge"] as const) {
    const k = 3, lambda = 0.01;
    const m = new LemlStream({
      rank: k,
      seed: 1,
      optimizer: "sgd",
      numFeatures: D,
      numLabels: L,
      lambda,
      loss,
      bias: false,
    });
    const b = maskedBatch(5);
    const batch: Batch = { x: b.x, y: b.y }; // fully observed: negatives are sampled
    const sc = new GradientScratch(k);
    sc.full(m, batch, 0, new SmallRng(1));
    assert(sc.curv.active, "a raw batch is capped");
    assert(
      sc.curv.betaH === lambda,
      `${loss}: β_H ${sc.curv.betaH}, expected λ = ${lambda} (c = ${curvatureBound(loss)})`,
    );
  }
});
