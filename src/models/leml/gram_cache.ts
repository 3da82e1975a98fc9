/**
 * The cached label Gram of streaming LEML's local update mode: G = HᵀH (k×k) and Hᵀb (k), kept
 * up to date by rank-one updates of the label rows that change, so that the all-label term of
 * the squared loss, ∂/∂u_i ½Σ_l (u_iᵀh_l + b_l)² = G u_i + Hᵀb, stays exact at O(k²) per changed
 * label row instead of O(L·k²) per minibatch. A row change h → h' adds h'h'ᵀ − hhᵀ to G and
 * b'h' − bh to Hᵀb (float64 sums of float32 entries: every product is exact, only the sums
 * round). The cache counts the row changes it absorbed; {@linkcode GramCache.due} says when
 * they reach a multiple of L, so that recomputing it from scratch (O(L·k²), which bounds the
 * drift of the incremental sums) costs O(k²) per absorbed change, amortised, whatever L.
 *
 * The blocked kernels {@linkcode addGram} and {@linkcode addMatVec} are the ones of the full
 * update mode too (every sum takes its terms in a plain loop's order, so they are bit-identical
 * to one): a cache recomputed from H equals the Gram the full mode builds at every step.
 *
 * @module
 */

/**
 * Adds the upper triangle of Σ_q m_q m_qᵀ to `G` [k×k] and Σ_q w_q m_q to `v` [k], over the rows
 * m_q = M[r_q·k .. r_q·k + k) for q < n, with r_q = rows[q] (or q without `rows`) and w_q = w[r_q]
 * (or 1 without `w`). Four rows at a time (fewer loads, independent accumulators), yet every sum
 * receives its terms in row order, so the result is bit-identical to a plain loop.
 *
 * @example
 * ```ts
 * import { addGram } from "./gram_cache.ts";
 * const G = new Float64Array(4), v = new Float64Array(2);
 * addGram(Float32Array.of(1, 2, 3, 4), undefined, 2, 2, undefined, G, v);
 * console.log([...G], [...v]); // [ 10, 14, 0, 20 ] [ 4, 6 ]
 * ```
 */
export function addGram(
  M: Float32Array | Float64Array,
  rows: Int32Array | undefined,
  n: number,
  k: number,
  w: Float32Array | undefined,
  G: Float64Array,
  v: Float64Array,
): void {
  let q = 0;
  for (; q + 3 < n; q += 4) {
    const r0 = rows ? rows[q] : q, r1 = rows ? rows[q + 1] : q + 1;
    const r2 = rows ? rows[q + 2] : q + 2, r3 = rows ? rows[q + 3] : q + 3;
    const m0 = r0 * k, m1 = r1 * k, m2 = r2 * k, m3 = r3 * k;
    const w0 = w ? w[r0] : 1, w1 = w ? w[r1] : 1, w2 = w ? w[r2] : 1, w3 = w ? w[r3] : 1;
    for (let a = 0; a < k; a++) {
      const a0 = M[m0 + a], a1 = M[m1 + a], a2 = M[m2 + a], a3 = M[m3 + a];
      let va = v[a];
      va += w0 * a0;
      va += w1 * a1;
      va += w2 * a2;
      va += w3 * a3;
      v[a] = va;
      const ga = a * k;
      for (let c = a; c < k; c++) {
        let t = G[ga + c];
        t += a0 * M[m0 + c];
        t += a1 * M[m1 + c];
        t += a2 * M[m2 + c];
        t += a3 * M[m3 + c];
        G[ga + c] = t;
      }
    }
  }
  for (; q < n; q++) {
    const r = rows ? rows[q] : q, mb = r * k, wr = w ? w[r] : 1;
    for (let a = 0; a < k; a++) {
      const ma = M[mb + a];
      v[a] += wr * ma;
      for (let c = a; c < k; c++) G[a * k + c] += ma * M[mb + c];
    }
  }
}

/**
 * Adds `scale·w + M v` to `out[outOff .. outOff + k)`, for a k×k matrix `M` and
 * v = `V[vOff .. vOff + k)`; four outputs at a time (independent accumulators, fewer loads), each
 * sum still taking its terms in order, so the result is bit-identical to a plain loop.
 *
 * @example
 * ```ts
 * import { addMatVec } from "./gram_cache.ts";
 * const out = new Float64Array(2);
 * addMatVec(Float64Array.of(1, 2, 3, 4), 2, Float64Array.of(1, 1), 0, 10, Float64Array.of(1, 0), out, 0);
 * console.log([...out]); // [ 13, 7 ]
 * ```
 */
export function addMatVec(
  M: Float64Array,
  k: number,
  V: Float32Array | Float64Array,
  vOff: number,
  scale: number,
  w: Float64Array,
  out: Float32Array | Float64Array,
  outOff: number,
): void {
  const k4 = k - (k % 4);
  let a = 0;
  for (; a < k4; a += 4) {
    const g0 = a * k, g1 = g0 + k, g2 = g1 + k, g3 = g2 + k;
    let c0 = scale * w[a], c1 = scale * w[a + 1], c2 = scale * w[a + 2], c3 = scale * w[a + 3];
    for (let c = 0; c < k; c++) {
      const v = V[vOff + c];
      c0 += M[g0 + c] * v;
      c1 += M[g1 + c] * v;
      c2 += M[g2 + c] * v;
      c3 += M[g3 + c] * v;
    }
    out[outOff + a] += c0;
    out[outOff + a + 1] += c1;
    out[outOff + a + 2] += c2;
    out[outOff + a + 3] += c3;
  }
  for (; a < k; a++) {
    let acc = scale * w[a];
    const ga = a * k;
    for (let c = 0; c < k; c++) acc += M[ga + c] * V[vOff + c];
    out[outOff + a] += acc;
  }
}

/**
 * Mirrors the upper triangle of the k×k matrix `G` into its lower triangle.
 *
 * @example
 * ```ts
 * import { mirrorUpper } from "./gram_cache.ts";
 * const G = Float64Array.of(1, 2, 0, 3);
 * mirrorUpper(G, 2);
 * console.log([...G]); // [ 1, 2, 2, 3 ]
 * ```
 */
export function mirrorUpper(G: Float64Array, k: number): void {
  for (let a = 0; a < k; a++) for (let c = 0; c < a; c++) G[a * k + c] = G[c * k + a];
}

/**
 * G = HᵀH and Hᵀb of a label-factor matrix, maintained incrementally (see the module doc).
 *
 * @example
 * ```ts
 * import { GramCache } from "./gram_cache.ts";
 * const H = Float32Array.of(1, 0, 0, 2), b = Float32Array.of(1, 1);
 * const g = new GramCache(2);
 * g.recompute(H, b, 2);
 * const old = Float64Array.of(0, 2), oldB = Float64Array.of(1);
 * H[2] = 3; // label 1: (0, 2) → (3, 2)
 * g.replaceRows(old, oldB, H, b, Int32Array.of(1), 1);
 * console.log([...g.gram], [...g.hb]); // [ 10, 6, 6, 4 ] [ 4, 2 ]
 * ```
 */
export class GramCache {
  /** Rank k. */
  readonly rank: number;
  /** HᵀH, k×k, row-major, both triangles. */
  gram: Float64Array;
  /** Hᵀb (k). */
  hb: Float64Array;
  /** Label-row changes absorbed since the last recomputation. */
  updates = 0;
  /** Recomputations from scratch so far (the first one included). */
  recomputes = 0;
  #delta: Float64Array;
  #dv: Float64Array;

  /** @param rank the rank k. */
  constructor(rank: number) {
    this.rank = rank;
    this.gram = new Float64Array(rank * rank);
    this.hb = new Float64Array(rank);
    this.#delta = new Float64Array(rank * rank);
    this.#dv = new Float64Array(rank);
  }

  /**
   * Recomputes G and Hᵀb from the first `L` rows of `H` and `bias` (the full mode's summation
   * order) and resets the change counter.
   *
   * @example
   * ```ts
   * import { GramCache } from "./gram_cache.ts";
   * const g = new GramCache(1);
   * g.recompute(Float32Array.of(2, 3), Float32Array.of(1, 1), 2);
   * console.log(g.gram[0], g.hb[0], g.recomputes); // 13 5 1
   * ```
   */
  recompute(H: Float32Array, bias: Float32Array, L: number): void {
    const k = this.rank;
    this.gram.fill(0);
    this.hb.fill(0);
    addGram(H, undefined, L, k, bias, this.gram, this.hb);
    mirrorUpper(this.gram, k);
    this.updates = 0;
    this.recomputes++;
  }

  /**
   * Adds the rows `from .. to` of `H` (new labels) to the cache.
   *
   * @example
   * ```ts
   * import { GramCache } from "./gram_cache.ts";
   * const g = new GramCache(1);
   * g.addRange(Float32Array.of(2, 3), Float32Array.of(0, 1), 1, 2);
   * console.log(g.gram[0], g.hb[0]); // 9 3
   * ```
   */
  addRange(H: Float32Array, bias: Float32Array, from: number, to: number): void {
    if (to <= from) return;
    const k = this.rank, d = this.#delta, dv = this.#dv;
    d.fill(0);
    dv.fill(0);
    addGram(H.subarray(from * k, to * k), undefined, to - from, k, bias.subarray(from, to), d, dv);
    this.#addDelta();
    this.updates += to - from;
  }

  /**
   * Absorbs the change of the label rows `rows[0 .. n)`: their old values are `oldH` (n×k) and
   * `oldBias` (n), their new values are in `H` and `bias`. O(n·k²).
   *
   * @example
   * ```ts
   * import { GramCache } from "./gram_cache.ts";
   * const g = new GramCache(1);
   * const H = Float32Array.of(2), b = Float32Array.of(0);
   * g.recompute(H, b, 1);
   * H[0] = 5;
   * g.replaceRows(Float64Array.of(2), Float64Array.of(0), H, b, Int32Array.of(0), 1);
   * console.log(g.gram[0], g.updates); // 25 1
   * ```
   */
  replaceRows(
    oldH: Float64Array,
    oldBias: Float64Array,
    H: Float32Array,
    bias: Float32Array,
    rows: Int32Array,
    n: number,
  ): void {
    const k = this.rank, d = this.#delta, dv = this.#dv;
    d.fill(0);
    dv.fill(0);
    for (let q = 0; q < n; q++) {
      const hb = rows[q] * k, ob = q * k, bn = bias[rows[q]], bo = oldBias[q];
      for (let a = 0; a < k; a++) {
        const na = H[hb + a], oa = oldH[ob + a];
        dv[a] += bn * na - bo * oa;
        const da = a * k;
        for (let c = a; c < k; c++) d[da + c] += na * H[hb + c] - oa * oldH[ob + c];
      }
    }
    this.#addDelta();
    this.updates += n;
  }

  #addDelta(): void {
    const k = this.rank, G = this.gram, d = this.#delta, dv = this.#dv;
    for (let a = 0; a < k; a++) {
      this.hb[a] += dv[a];
      for (let c = a; c < k; c++) G[a * k + c] += d[a * k + c];
    }
    mirrorUpper(G, k);
  }

  /**
   * Whether the absorbed changes reach `factor`·L (+ 1024): time to recompute, at an amortised
   * O(k²/factor) per change.
   *
   * @example
   * ```ts
   * import { GramCache } from "./gram_cache.ts";
   * const g = new GramCache(2);
   * g.updates = 5000;
   * console.log(g.due(100, 4), g.due(10_000, 4)); // true false
   * ```
   */
  due(L: number, factor: number): boolean {
    return this.updates >= factor * L + 1024;
  }

  /**
   * Adds G u + Hᵀb to `out[outOff .. outOff + k)` for u = `U[uOff .. uOff + k)` (the all-label
   * part of the squared loss's gradient in u).
   *
   * @example
   * ```ts
   * import { GramCache } from "./gram_cache.ts";
   * const g = new GramCache(1);
   * g.recompute(Float32Array.of(2), Float32Array.of(1), 1);
   * const out = new Float64Array(1);
   * g.addGradU(Float64Array.of(3), 0, out, 0);
   * console.log(out[0]); // 14
   * ```
   */
  addGradU(U: Float64Array, uOff: number, out: Float64Array, outOff: number): void {
    addMatVec(this.gram, this.rank, U, uOff, 1, this.hb, out, outOff);
  }
}
