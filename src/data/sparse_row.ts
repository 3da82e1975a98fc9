/**
 * Building one sparse row from unordered `(index, value)` pairs: sort by index, sum duplicate
 * indices, drop zeros. Shared by the NDJSON reader (object keys come in any order) and feature
 * hashing (several features may land in one bucket).
 *
 * @module
 */
import type { SparseVector } from "./types.ts";

/** Pairs up to this many use a packed Float64 sort key `index * 2^21 + position`. */
const PACK = 2097152;

/**
 * Reusable scratch for unordered sparse entries. {@linkcode RowBuilder.push} appends pairs and
 * {@linkcode RowBuilder.build} returns the canonical row (fresh arrays) and clears the builder.
 *
 * @example
 * ```ts
 * import { RowBuilder } from "./sparse_row.ts";
 * const b = new RowBuilder();
 * b.push(7, 1); b.push(2, 0.5); b.push(7, 2); b.push(4, 0);
 * const r = b.build();
 * console.log([...r.indices], [...r.values]); // [ 2, 7 ] [ 0.5, 3 ]
 * ```
 */
export class RowBuilder {
  #idx = new Int32Array(64);
  #val = new Float64Array(64);
  #keys = new Float64Array(64);
  #n = 0;

  /** Entries pushed since the last build. */
  get length(): number {
    return this.#n;
  }

  /** Appends `(index, value)`; `index` must be a non-negative int32. */
  push(index: number, value: number): void {
    if (this.#n === this.#idx.length) {
      const m = this.#n * 2;
      const i = new Int32Array(m), v = new Float64Array(m);
      i.set(this.#idx);
      v.set(this.#val);
      this.#idx = i;
      this.#val = v;
      this.#keys = new Float64Array(m);
    }
    this.#idx[this.#n] = index;
    this.#val[this.#n++] = value;
  }

  /** Forgets the pushed entries. */
  clear(): void {
    this.#n = 0;
  }

  /**
   * The row: indices strictly increasing, duplicate indices summed (in float64, then rounded to
   * float32), entries whose sum is exactly 0 dropped. Clears the builder.
   */
  build(): SparseVector {
    const n = this.#n, idx = this.#idx, val = this.#val;
    this.#n = 0;
    let sorted = true;
    for (let k = 1; k < n; k++) {
      if (idx[k] <= idx[k - 1]) {
        sorted = false;
        break;
      }
    }
    if (sorted) {
      let nz = 0;
      for (let k = 0; k < n; k++) if (val[k] !== 0) nz++;
      const indices = new Int32Array(nz), values = new Float32Array(nz);
      for (let k = 0, q = 0; k < n; k++) {
        if (val[k] !== 0) {
          indices[q] = idx[k];
          values[q++] = val[k];
        }
      }
      return { indices, values };
    }
    let order: ArrayLike<number>;
    if (n <= PACK) {
      const keys = this.#keys.subarray(0, n);
      for (let k = 0; k < n; k++) keys[k] = idx[k] * PACK + k;
      keys.sort();
      const o = new Int32Array(n);
      for (let k = 0; k < n; k++) o[k] = keys[k] % PACK;
      order = o;
    } else {
      order = Int32Array.from({ length: n }, (_, k) => k).sort((a, b) => idx[a] - idx[b]);
    }
    // merge duplicates
    let distinct = 0;
    let prev = -1;
    const mi = new Int32Array(n), mv = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const p = order[k];
      if (idx[p] !== prev) {
        prev = idx[p];
        mi[distinct] = prev;
        mv[distinct++] = val[p];
      } else mv[distinct - 1] += val[p];
    }
    let nz = 0;
    for (let k = 0; k < distinct; k++) if (mv[k] !== 0) nz++;
    const indices = new Int32Array(nz), values = new Float32Array(nz);
    for (let k = 0, q = 0; k < distinct; k++) {
      if (mv[k] !== 0) {
        indices[q] = mi[k];
        values[q++] = mv[k];
      }
    }
    return { indices, values };
  }
}
