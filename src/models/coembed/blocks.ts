/**
 * Conversion of CSR rows (features, positive labels, optional explicit feature mask) into the
 * dense {@linkcode RowBlock}s the CoEmbed updates work on.
 *
 * @module
 */
import type { BinaryCsr, CsrMatrix } from "../../data/types.ts";
import type { RowBlock } from "./core.ts";

function checkCsr(what: string, m: { numRows: number; indptr: Int32Array }, rows: number) {
  if (m.numRows !== rows || m.indptr.length !== rows + 1) {
    throw new RangeError(`${what}: expected ${rows} rows, got ${m.numRows}`);
  }
}

/**
 * Builds a dense block from CSR rows.
 *
 * The observed feature entries of a row are: the entries listed in `observed` when given
 * (explicit mask; a listed entry absent from `x` is an observed 0); otherwise every entry when
 * `absent` is "zero", or only the entries present in `x` when `absent` is "missing".
 * Feature indices must be in [0, numFeatures) and label indices in [0, numLabels).
 *
 * @example
 * ```ts
 * import { blockFromCsr } from "./blocks.ts";
 * const x = { numRows: 1, numCols: 3, indptr: Int32Array.of(0, 1), indices: Int32Array.of(2),
 *   values: Float32Array.of(5) };
 * const y = { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) };
 * const b = blockFromCsr(x, y, 3, 2, "missing");
 * console.log(Array.from(b.mask), Array.from(b.y)); // [0, 0, 1] [0, 1]
 * ```
 */
export function blockFromCsr(
  x: CsrMatrix,
  y: BinaryCsr,
  numFeatures: number,
  numLabels: number,
  absent: "zero" | "missing",
  observed?: BinaryCsr,
  rows?: ArrayLike<number>,
  where = "CoEmbed",
): RowBlock {
  const total = x.numRows;
  checkCsr(`${where}: labels`, y, total);
  if (observed) checkCsr(`${where}: feature mask`, observed, total);
  const B = rows ? rows.length : total, D = numFeatures, L = numLabels;
  const block: RowBlock = {
    rows: B,
    numFeatures: D,
    numLabels: L,
    x: new Float64Array(B * D),
    mask: new Uint8Array(B * D),
    y: new Uint8Array(B * L),
  };
  for (let n = 0; n < B; n++) {
    const r = rows ? rows[n] : n;
    if (!(r >= 0 && r < total)) {
      throw new RangeError(`${where}: row ${r} out of range [0, ${total})`);
    }
    const xo = n * D;
    for (let p = x.indptr[r]; p < x.indptr[r + 1]; p++) {
      const d = x.indices[p];
      if (!(d >= 0 && d < D)) {
        throw new RangeError(`${where}: row ${r} has feature index ${d} out of range [0, ${D})`);
      }
      const v = x.values[p];
      if (!Number.isFinite(v)) {
        throw new RangeError(`${where}: row ${r} has a non-finite value at feature ${d}`);
      }
      block.x[xo + d] = v;
      if (!observed && absent === "missing") block.mask[xo + d] = 1;
    }
    if (observed) {
      for (let p = observed.indptr[r]; p < observed.indptr[r + 1]; p++) {
        const d = observed.indices[p];
        if (!(d >= 0 && d < D)) {
          throw new RangeError(
            `${where}: feature mask row ${r} has index ${d} out of range [0, ${D})`,
          );
        }
        block.mask[xo + d] = 1;
      }
    } else if (absent === "zero") {
      block.mask.fill(1, xo, xo + D);
    }
    const yo = n * L;
    for (let p = y.indptr[r]; p < y.indptr[r + 1]; p++) {
      const j = y.indices[p];
      if (!(j >= 0 && j < L)) {
        throw new RangeError(`${where}: row ${r} has label index ${j} out of range [0, ${L})`);
      }
      block.y[yo + j] = 1;
    }
  }
  return block;
}
