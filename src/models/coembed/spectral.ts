/**
 * The spectral initialisation of the feature factors V of CoEmbed.
 *
 * @module
 */
import { EigenvalueDecomposition, Matrix } from "ml-matrix";
import type { CoEmbedCore, RowBlock } from "./core.ts";

/**
 * Sets V `[D, kX]` from the top k_X eigenvectors of the Gram matrix of the observed entries of
 * `block` (zero-filled, each feature rescaled by N / its number of observed entries), each
 * scaled by the fourth root of its eigenvalue (the square root of the singular value of the
 * rescaled data); a column whose eigenvalue is not positive keeps its values. The batch fit's
 * initialisation (`FitOptions.init` "spectral"), and the streaming learner's warm start on its
 * bounded reservoir (`CoEmbedConfig.warmStart`). Dense D × D eigen-decomposition (ml-matrix):
 * meant for the moderate D of dense feature sets.
 *
 * @example
 * ```ts
 * import { spectralInit } from "./spectral.ts";
 * import { CoEmbedCore } from "./core.ts";
 * import { resolveConfig } from "./config.ts";
 * const core = new CoEmbedCore(resolveConfig({ variant: "L", rankX: 1 }), 2, 1);
 * // two rows along (1, 1): V becomes a multiple of (1, 1)/√2
 * spectralInit(core, { rows: 2, numFeatures: 2, numLabels: 1, x: Float64Array.of(1, 1, 2, 2),
 *   mask: Uint8Array.of(1, 1, 1, 1), y: Uint8Array.of(0, 1) });
 * console.log(Math.abs(core.V[0] - core.V[1]) < 1e-9); // true
 * ```
 */
export function spectralInit(core: CoEmbedCore, block: RowBlock): void {
  const N = block.rows, D = core.numFeatures, kX = core.config.rankX;
  if (N === 0 || D === 0) return;
  const cnt = new Float64Array(D);
  for (let i = 0; i < N; i++) {
    for (let d = 0; d < D; d++) if (block.mask[i * D + d]) cnt[d]++;
  }
  const gram = new Float64Array(D * D), obs = new Int32Array(D), val = new Float64Array(D);
  for (let i = 0; i < N; i++) {
    let n = 0;
    for (let d = 0; d < D; d++) {
      if (!block.mask[i * D + d]) continue;
      obs[n] = d;
      val[n++] = block.x[i * D + d] * N / cnt[d];
    }
    for (let a = 0; a < n; a++) {
      const ra = obs[a] * D, va = val[a];
      for (let b = 0; b <= a; b++) gram[ra + obs[b]] += va * val[b];
    }
  }
  const rows: number[][] = [];
  for (let a = 0; a < D; a++) {
    const r = new Array<number>(D);
    for (let b = 0; b < D; b++) r[b] = a >= b ? gram[a * D + b] : gram[b * D + a];
    rows.push(r);
  }
  const eig = new EigenvalueDecomposition(new Matrix(rows), { assumeSymmetric: true });
  const values = eig.realEigenvalues, vectors = eig.eigenvectorMatrix;
  const order = values.map((_, k) => k).sort((a, b) => values[b] - values[a]);
  const V = core.V;
  for (let k = 0; k < kX; k++) {
    if (k >= order.length) break;
    const col = order[k];
    // no direction with a positive eigenvalue (fewer rows than k_X, an empty block): column k
    // stays as it was; zeroed, it would stay 0 forever (its fold-in coordinate and every
    // gradient of it are 0), and a warm start on empty rows left V = 0, every score constant
    if (!(values[col] > 0)) continue;
    const scale = Math.sqrt(Math.sqrt(values[col]));
    for (let d = 0; d < D; d++) V[d * kX + k] = vectors.get(d, col) * scale;
  }
  core.changed();
}
