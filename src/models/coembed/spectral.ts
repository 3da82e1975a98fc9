/**
 * The spectral initialisation of the feature factors V of CoEmbed.
 *
 * @module
 */
import { EigenvalueDecomposition, Matrix } from "ml-matrix";
import type { CoEmbedCore, RowBlock } from "./core.ts";

/**
 * The largest eigen-problem (4096) of the spectral initialisation: it decomposes a Gram matrix
 * of min(rows, features) squared entries (features × features, or rows × rows when there are
 * fewer rows), dense, in time cubic in that size (about 13 s at 1500, minutes at 4096, several
 * copies of 8 bytes an entry). Past it, when both the rows and the features are more, the
 * initialisation is refused, naming both.
 *
 * @example
 * ```ts
 * import { MAX_SPECTRAL_SIZE } from "./spectral.ts";
 * console.log(MAX_SPECTRAL_SIZE); // 4096
 * ```
 */
export const MAX_SPECTRAL_SIZE = 4096;

/**
 * Refuses a spectral initialisation on `rows` rows of `features` features whose eigen-problem
 * would be larger than {@linkcode MAX_SPECTRAL_SIZE}, naming `where`, the sizes and the limit.
 *
 * @throws {RangeError} when both `rows` and `features` are above the limit
 *
 * @example
 * ```ts
 * import { checkSpectralSize } from "./spectral.ts";
 * checkSpectralSize(100, 50000, "demo"); // fine: a 100 × 100 problem
 * try { checkSpectralSize(5000, 50000, "demo"); } catch (e) { console.log((e as Error).message); }
 * // demo: the spectral initialisation on 5000 rows of 50000 features is a 5000 × 5000 eigen-problem, more than 4096: …
 * ```
 */
export function checkSpectralSize(rows: number, features: number, where: string): void {
  const m = Math.min(rows, features);
  if (m > MAX_SPECTRAL_SIZE) {
    throw new RangeError(
      `${where}: the spectral initialisation on ${rows} rows of ${features} features is a ` +
        `${m} × ${m} eigen-problem, more than ${MAX_SPECTRAL_SIZE}: lower replay or the batch ` +
        `size (streaming warm start), set warmStart 0, or fit with init "random"`,
    );
  }
}

/**
 * Sets V `[D, kX]` from the top k_X eigenvectors of the Gram matrix of the observed entries of
 * `block` (zero-filled, each feature rescaled by N / its number of observed entries), each
 * scaled by the fourth root of its eigenvalue (the square root of the singular value of the
 * rescaled data); a column whose eigenvalue is not positive keeps its values. The batch fit's
 * initialisation (`FitOptions.init` "spectral"), and the streaming learner's warm start on its
 * bounded reservoir (`CoEmbedConfig.warmStart`). With at least as many rows as features, a
 * dense D × D eigen-decomposition (ml-matrix); with fewer rows N, the same eigenvectors from
 * the N × N Gram matrix of the rows (v = Aᵀu / ‖Aᵀu‖, the signs free), so that a wide feature
 * space (50,000 text features: a 20 GB D × D matrix) costs only N². Either way at most
 * {@linkcode MAX_SPECTRAL_SIZE} squared ({@linkcode checkSpectralSize}).
 *
 * @throws {RangeError} when both the rows and the features are more than
 * {@linkcode MAX_SPECTRAL_SIZE}
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
  checkSpectralSize(N, D, "CoEmbed");
  const cnt = new Float64Array(D);
  for (let i = 0; i < N; i++) {
    for (let d = 0; d < D; d++) if (block.mask[i * D + d]) cnt[d]++;
  }
  if (N < D) {
    spectralFromRows(core, block, cnt);
    return;
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

/**
 * {@linkcode spectralInit} with fewer rows N than features: the rescaled rows A `[N, D]` (their
 * non-zero entries), the eigenvectors u of A Aᵀ `[N, N]`, and V's column k = Aᵀu_k / ‖Aᵀu_k‖
 * times the fourth root of its eigenvalue (A Aᵀ and AᵀA share their positive eigenvalues).
 */
function spectralFromRows(core: CoEmbedCore, block: RowBlock, cnt: Float64Array): void {
  const N = block.rows, D = core.numFeatures, kX = core.config.rankX;
  let nnz = 0;
  for (let i = 0; i < N; i++) {
    for (let d = 0; d < D; d++) if (block.mask[i * D + d] && block.x[i * D + d] !== 0) nnz++;
  }
  const ptr = new Int32Array(N + 1), idx = new Int32Array(nnz), val = new Float64Array(nnz);
  for (let i = 0, p = 0; i < N; i++) {
    for (let d = 0; d < D; d++) {
      const v = block.x[i * D + d];
      if (!block.mask[i * D + d] || v === 0) continue;
      idx[p] = d;
      val[p++] = v * N / cnt[d];
    }
    ptr[i + 1] = p;
  }
  const rows: number[][] = Array.from({ length: N }, () => new Array<number>(N));
  const dense = new Float64Array(D);
  for (let i = 0; i < N; i++) {
    for (let p = ptr[i]; p < ptr[i + 1]; p++) dense[idx[p]] = val[p];
    for (let j = 0; j <= i; j++) {
      let dot = 0;
      for (let p = ptr[j]; p < ptr[j + 1]; p++) dot += dense[idx[p]] * val[p];
      rows[i][j] = rows[j][i] = dot;
    }
    for (let p = ptr[i]; p < ptr[i + 1]; p++) dense[idx[p]] = 0;
  }
  const eig = new EigenvalueDecomposition(new Matrix(rows), { assumeSymmetric: true });
  const values = eig.realEigenvalues, vectors = eig.eigenvectorMatrix;
  const order = values.map((_, k) => k).sort((a, b) => values[b] - values[a]);
  const V = core.V, v = dense;
  for (let k = 0; k < kX && k < order.length; k++) {
    const col = order[k];
    // as the D × D path: a direction without a positive eigenvalue leaves column k as it was
    if (!(values[col] > 0)) continue;
    v.fill(0);
    for (let i = 0; i < N; i++) {
      const u = vectors.get(i, col);
      for (let p = ptr[i]; p < ptr[i + 1]; p++) v[idx[p]] += u * val[p];
    }
    let norm = 0;
    for (let d = 0; d < D; d++) norm += v[d] * v[d];
    norm = Math.sqrt(norm);
    if (!(norm > 0)) continue;
    const scale = Math.sqrt(Math.sqrt(values[col])) / norm;
    for (let d = 0; d < D; d++) V[d * kX + k] = v[d] * scale;
  }
  core.changed();
}
