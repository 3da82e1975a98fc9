// The low-rank scorer's label scores: scoreLatent against a reference that sums the documented
// four partial sums per label one label at a time (bit-identical, whatever the unrolling), and
// against the exact float64 dot product (within float32 rounding), for ranks and label counts
// around the unrolling boundaries. Ill-conditioned entries (±1e16 terms that cancel exactly
// around small ones, so that another association of the sums changes the float32 result) make
// the order check sharp.
import { LowRankScorer } from "../../../src/models/leml/lowrank.ts";
import { SmallRng } from "../../../src/random/mod.ts";
import { assert } from "../../helpers.ts";

function reference(s: LowRankScorer, u: Float64Array, offset: number, L: number): Float32Array {
  const r = s.rank, H = s.h.data, b = s.bias.data, r4 = r - (r % 4);
  const out = new Float32Array(L);
  for (let l = 0; l < L; l++) {
    const p = [0, 0, 0, 0];
    for (let c = 0; c < r; c++) p[c < r4 ? c % 4 : 0] += u[offset + c] * H[l * r + c];
    out[l] = b[l] - s.threshold + (p[0] + p[1]) + (p[2] + p[3]);
  }
  return out;
}

Deno.test("LowRankScorer.scoreLatent: the documented summation order, and the exact dot product", () => {
  const rng = new SmallRng(7);
  const pick = (xs: number[]) => xs[Math.floor(rng.next() * xs.length)];
  const entry = (wild: boolean) => wild ? pick([1e16, -1e16, 1, -1, 3, -3]) : rng.next() * 2 - 1;
  // one well-conditioned round, then eight ill-conditioned ones
  for (let round = 0; round < 9; round++) {
    const wild = round > 0;
    for (const r of [1, 2, 3, 4, 5, 7, 8, 32, 33]) {
      for (const L of [1, 2, 3, 4, 158, 159]) {
        const s = new LowRankScorer(r, 3, L, 0.25);
        for (let i = 0; i < s.h.data.length; i++) s.h.data[i] = entry(wild);
        for (let l = 0; l < L; l++) s.bias.data[l] = rng.next() - 0.5;
        const offset = r % 3;
        const u = new Float64Array(offset + r + 2);
        for (let i = 0; i < u.length; i++) u[i] = wild ? pick([1, -1, 2]) : rng.next() * 4 - 2;
        for (const n of new Set([L, Math.max(1, L - 1)])) {
          const out = new Float32Array(L).fill(NaN);
          s.scoreLatent(u, offset, out, n);
          const want = reference(s, u, offset, n);
          for (let l = 0; l < n; l++) {
            assert(
              Object.is(out[l], want[l]),
              `rank ${r}, ${n} of ${L} labels: label ${l} scored ${out[l]}, reference ${want[l]}`,
            );
            if (wild) continue;
            let exact = s.bias.data[l] - 0.25;
            for (let c = 0; c < r; c++) exact += u[offset + c] * s.h.data[l * r + c];
            assert(Math.abs(out[l] - exact) <= 1e-6 * (1 + Math.abs(exact)), `rank ${r}: ${l}`);
          }
          // labels past n are left alone
          for (let l = n; l < L; l++) assert(Number.isNaN(out[l]), `label ${l} written`);
        }
      }
    }
  }
});
