/**
 * New datasets made of the rows of others (copied): a subset of rows, a seeded
 * train/validation split, and the concatenation of two datasets.
 *
 * @module
 */
import type { Dataset } from "./types.ts";
import { Rng } from "../random/mod.ts";
import { shown } from "./option_check.ts";

function gatherRows<T extends Int32Array | Float32Array>(
  indptr: Int32Array,
  data: T,
  rows: ArrayLike<number>,
  make: (n: number) => T,
): { indptr: Int32Array; data: T } {
  const n = rows.length;
  const ptr = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) {
    const r = rows[k];
    ptr[k + 1] = ptr[k] + indptr[r + 1] - indptr[r];
  }
  const out = make(ptr[n]);
  for (let k = 0; k < n; k++) {
    const r = rows[k];
    out.set(data.subarray(indptr[r], indptr[r + 1]), ptr[k]);
  }
  return { indptr: ptr, data: out };
}

/**
 * A new dataset with the given rows (copied, in the given order; repeats allowed).
 *
 * @example
 * ```ts
 * import { subsetRows } from "./dataset_subsets.ts";
 * import { loadXcBytes } from "./dataset_load.ts";
 * const ds = loadXcBytes(new TextEncoder().encode("3 2 2\n0 0:1\n1 1:1\n0,1 0:1 1:1\n"), "t");
 * const s = subsetRows(ds, [2, 0]);
 * console.log(s.x.numRows, [...s.y.indices]); // 2 [ 0, 1, 0 ]
 * ```
 */
export function subsetRows(ds: Dataset, rows: ArrayLike<number>): Dataset {
  const n = ds.x.numRows;
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k];
    if (!(Number.isInteger(r) && r >= 0 && r < n)) {
      throw new RangeError(`subsetRows: row ${r} (position ${k}) is out of range [0, ${n})`);
    }
  }
  const fi = gatherRows(ds.x.indptr, ds.x.indices, rows, (m) => new Int32Array(m));
  const fv = gatherRows(ds.x.indptr, ds.x.values, rows, (m) => new Float32Array(m));
  const li = gatherRows(ds.y.indptr, ds.y.indices, rows, (m) => new Int32Array(m));
  return {
    name: ds.name,
    numFeatures: ds.numFeatures,
    numLabels: ds.numLabels,
    x: {
      numRows: rows.length,
      numCols: ds.x.numCols,
      indptr: fi.indptr,
      indices: fi.data,
      values: fv.data,
    },
    y: { numRows: rows.length, numCols: ds.y.numCols, indptr: li.indptr, indices: li.data },
  };
}

/**
 * Seeded random split: `round(n * validationFraction)` rows (chosen by a seeded shuffle) go to
 * `valid`, the rest to `train`; both keep the original relative row order. A fraction that is
 * not a number is a TypeError, one outside [0, 1] (or NaN) a RangeError.
 *
 * @example
 * ```ts
 * import { splitRows } from "./dataset_subsets.ts";
 * import { loadXcBytes } from "./dataset_load.ts";
 * const ds = loadXcBytes(new TextEncoder().encode("4 1 1\n0 0:1\n0 0:2\n0 0:3\n0 0:4\n"), "t");
 * const { train, valid } = splitRows(ds, 0.25, 1);
 * console.log(train.x.numRows, valid.x.numRows); // 3 1
 * ```
 */
export function splitRows(
  ds: Dataset,
  validationFraction: number,
  seed: number,
): { train: Dataset; valid: Dataset } {
  const f: unknown = validationFraction;
  // (a string "0.5" was coerced: numbers only)
  if (!(typeof f === "number" && f >= 0 && f <= 1)) {
    const Err = typeof f === "number" ? RangeError : TypeError;
    throw new Err(`splitRows: validationFraction must be a number in [0, 1], got ${shown(f)}`);
  }
  const n = ds.x.numRows;
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  new Rng(seed).shuffle(perm);
  const nv = Math.round(n * validationFraction);
  const valid = perm.slice(0, nv).sort();
  const train = perm.slice(nv).sort();
  return { train: subsetRows(ds, train), valid: subsetRows(ds, valid) };
}

/**
 * Rows of `a` followed by rows of `b`; the feature and label spaces are the larger of the two.
 *
 * @example
 * ```ts
 * import { concatRows } from "./dataset_subsets.ts";
 * import { loadXcBytes } from "./dataset_load.ts";
 * const enc = new TextEncoder();
 * const a = loadXcBytes(enc.encode("1 2 1\n0 0:1\n"), "a");
 * const b = loadXcBytes(enc.encode("1 3 2\n1 2:1\n"), "b");
 * const c = concatRows(a, b);
 * console.log(c.x.numRows, c.numFeatures, [...c.y.indices]); // 2 3 [ 0, 1 ]
 * ```
 */
export function concatRows(a: Dataset, b: Dataset): Dataset {
  const na = a.x.numRows, nb = b.x.numRows;
  const cat = (pa: Int32Array, pb: Int32Array): Int32Array => {
    const out = new Int32Array(na + nb + 1);
    out.set(pa.subarray(0, na + 1));
    const off = pa[na];
    for (let i = 1; i <= nb; i++) out[na + i] = off + pb[i];
    return out;
  };
  const join = <T extends Int32Array | Float32Array>(x: T, y: T, out: T): T => {
    out.set(x);
    out.set(y, x.length);
    return out;
  };
  const numFeatures = Math.max(a.numFeatures, b.numFeatures);
  const numLabels = Math.max(a.numLabels, b.numLabels);
  const fa = a.x.indptr[na], fb = b.x.indptr[nb];
  const la = a.y.indptr[na], lb = b.y.indptr[nb];
  return {
    name: a.name === b.name ? a.name : `${a.name}+${b.name}`,
    numFeatures,
    numLabels,
    x: {
      numRows: na + nb,
      numCols: Math.max(a.x.numCols, b.x.numCols),
      indptr: cat(a.x.indptr, b.x.indptr),
      indices: join(
        a.x.indices.subarray(0, fa),
        b.x.indices.subarray(0, fb),
        new Int32Array(fa + fb),
      ),
      values: join(
        a.x.values.subarray(0, fa),
        b.x.values.subarray(0, fb),
        new Float32Array(fa + fb),
      ),
    },
    y: {
      numRows: na + nb,
      numCols: Math.max(a.y.numCols, b.y.numCols),
      indptr: cat(a.y.indptr, b.y.indptr),
      indices: join(
        a.y.indices.subarray(0, la),
        b.y.indices.subarray(0, lb),
        new Int32Array(la + lb),
      ),
    },
  };
}
