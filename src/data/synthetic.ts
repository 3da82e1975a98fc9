/**
 * A seeded synthetic multi-label data generator with planted structure, for demos, tests and
 * benchmarks that must run without a data directory.
 *
 * The model behind it:
 * - label frequencies follow a power law: label `l` (0-based) is drawn with probability
 *   proportional to `(l + 1)^-labelExponent`, so label 0 is the most frequent and the tail is long;
 * - labels are grouped into `topics` clusters; a row's first label is drawn from the power law,
 *   each further label comes from the same topic with probability `coherence` (else from the
 *   whole power law), which plants a low-rank label co-occurrence structure. A label already in
 *   the row is drawn again, and a topic's head is often in the row already, so the realised
 *   frequencies are flatter than the power law at the head (measured at L = 10⁵, exponent 1,
 *   5 labels a row: the 10% most frequent labels carry 0.60 labels a row against the law's 1.17;
 *   the first-label draw alone follows the law);
 * - every label has a prototype of `featuresPerLabel` features (half shared with its topic, half
 *   its own); a row draws about `(1 - noise) * avgNnz` features from its labels' prototypes and
 *   `noise * avgNnz` uniformly from all `numFeatures` features;
 * - values are `1 + log(count)` of the draws, L2-normalised per row (like TF features).
 *
 * The same options and seed always give the same rows. The structure depends on `seed` only;
 * `rowSeed` (default `seed`) draws other rows from the same structure, e.g. held-out rows.
 *
 * @module
 */
import type { Example } from "./types.ts";
import { Rng } from "../random/mod.ts";
import { checkOptionKeys } from "./option_check.ts";

/**
 * Options of the synthetic generator. Every field has a default.
 *
 * @example
 * ```ts
 * import type { SyntheticOptions } from "./synthetic.ts";
 * const o: SyntheticOptions = { rows: 10_000, numFeatures: 5000, numLabels: 200, avgNnz: 30, seed: 1 };
 * console.log(o.numLabels); // 200
 * ```
 */
export interface SyntheticOptions {
  /** Rows to generate (default 1000). */
  rows?: number;
  /** Feature-space size D (default 2000). */
  numFeatures?: number;
  /** Label-space size L (default 100). */
  numLabels?: number;
  /** Average number of feature draws per row, about the average non-zeros (default 25). */
  avgNnz?: number;
  /**
   * Average number of labels per row, at least 1 (default 2.5). A row's further labels come
   * mostly (`coherence`) from its first label's topic, about `numLabels / topics` labels, in at
   * most 8 draws per label wanted, so an average near or past a topic's size is not reached
   * (10,000 at 10⁵ labels gave about 6,500 a row).
   */
  avgLabels?: number;
  /** Power-law exponent of the label frequencies (default 1). */
  labelExponent?: number;
  /** Number of label clusters (default `round(sqrt(L))`). */
  topics?: number;
  /** Probability that a further label of a row comes from the first label's topic (default 0.8). */
  coherence?: number;
  /** Prototype size of each label (default 16, or `numFeatures` when it is smaller). */
  featuresPerLabel?: number;
  /** Share of the feature draws that are uniform noise, in [0, 1] (default 0.3). */
  noise?: number;
  /** Seed of the structure and, unless `rowSeed` is given, of the rows (default 0). */
  seed?: number;
  /**
   * Seed of the rows alone (default `seed`): the same `seed` with another `rowSeed` gives fresh
   * rows of the same planted structure (labels, topics, prototypes), e.g. a held-out test set.
   */
  rowSeed?: number;
}

/**
 * The resolved options (all fields set).
 *
 * @example
 * ```ts
 * import { type ResolvedSyntheticOptions, resolveSyntheticOptions } from "./synthetic.ts";
 * const o: ResolvedSyntheticOptions = resolveSyntheticOptions({ rows: 5 });
 * console.log(o.rows, o.numLabels); // 5 100
 * ```
 */
export type ResolvedSyntheticOptions = Required<SyntheticOptions>;

function check(cond: boolean, what: string, value: unknown): void {
  if (!cond) throw new RangeError(`synthetic: ${what}, got ${value}`);
}

/** The options' names (every one a number). */
const SYNTHETIC_KEYS = [
  "rows",
  "numFeatures",
  "numLabels",
  "avgNnz",
  "avgLabels",
  "labelExponent",
  "topics",
  "coherence",
  "featuresPerLabel",
  "noise",
  "seed",
  "rowSeed",
] as const;

/**
 * Largest `numLabels` and `numLabels × featuresPerLabel` (the planted structure is built up
 * front: about 40 bytes per label and 20 per prototype feature).
 */
const MAX_SYNTHETIC_LABELS = 2 ** 24, MAX_SYNTHETIC_PROTOTYPES = 2 ** 28;

/**
 * Fills the defaults of {@linkcode SyntheticOptions} and validates every field.
 *
 * @throws {TypeError} for options that are not an object, an unknown option or a value that is
 * not a number
 * @throws {RangeError} naming the bad option
 *
 * @example
 * ```ts
 * import { resolveSyntheticOptions } from "./synthetic.ts";
 * const o = resolveSyntheticOptions({ numLabels: 49 });
 * console.log(o.topics, o.numFeatures); // 7 2000
 * try {
 *   resolveSyntheticOptions(JSON.parse('{"row": 5}')); // e.g. options read from a file
 * } catch (e) {
 *   console.log((e as Error).message); // synthetic: unknown option "row" (known: rows, numFeatures, …)
 * }
 * ```
 */
export function resolveSyntheticOptions(options: SyntheticOptions = {}): ResolvedSyntheticOptions {
  checkOptionKeys("synthetic", options, SYNTHETIC_KEYS);
  for (const key of SYNTHETIC_KEYS) {
    const v = options[key];
    if (v !== undefined && typeof v !== "number") {
      throw new TypeError(`synthetic: option ${key} must be a number, got ${typeof v}`);
    }
  }
  const numLabels = options.numLabels ?? 100;
  const numFeatures = options.numFeatures ?? 2000;
  const o: ResolvedSyntheticOptions = {
    rows: options.rows ?? 1000,
    numFeatures,
    numLabels,
    avgNnz: options.avgNnz ?? 25,
    avgLabels: options.avgLabels ?? 2.5,
    labelExponent: options.labelExponent ?? 1,
    topics: options.topics ?? Math.max(1, Math.round(Math.sqrt(numLabels))),
    coherence: options.coherence ?? 0.8,
    // (a default above numFeatures refused a small feature space over an option not given)
    featuresPerLabel: options.featuresPerLabel ?? Math.min(16, numFeatures),
    noise: options.noise ?? 0.3,
    seed: options.seed ?? 0,
    rowSeed: options.rowSeed ?? options.seed ?? 0,
  };
  const posInt = (v: number) => Number.isInteger(v) && v >= 1 && v <= 2147483647;
  check(
    Number.isInteger(o.rows) && o.rows >= 0 && o.rows < 2 ** 31,
    "rows must be an integer in [0, 2^31)",
    o.rows,
  );
  // (a positive integer first, then its bound: 2^40 is a positive integer, too large)
  const positive = (v: number) => Number.isInteger(v) && v >= 1;
  check(positive(o.numFeatures), "numFeatures must be a positive integer", o.numFeatures);
  check(
    o.numFeatures <= 2147483647,
    "numFeatures must be at most 2^31 - 1 (2147483647)",
    o.numFeatures,
  );
  check(positive(o.numLabels), "numLabels must be a positive integer", o.numLabels);
  check(
    o.numLabels <= MAX_SYNTHETIC_LABELS,
    `numLabels must be at most 2^24 (${MAX_SYNTHETIC_LABELS})`,
    o.numLabels,
  );
  check(o.avgNnz >= 1 && o.avgNnz <= 1e6, "avgNnz must be in [1, 1e6]", o.avgNnz);
  check(
    o.avgLabels >= 1 && o.avgLabels <= o.numLabels,
    "avgLabels must be in [1, numLabels]",
    o.avgLabels,
  );
  check(
    o.labelExponent >= 0 && o.labelExponent <= 10,
    "labelExponent must be in [0, 10]",
    o.labelExponent,
  );
  check(
    posInt(o.topics) && o.topics <= o.numLabels,
    "topics must be an integer in [1, numLabels]",
    o.topics,
  );
  check(o.coherence >= 0 && o.coherence <= 1, "coherence must be in [0, 1]", o.coherence);
  check(
    posInt(o.featuresPerLabel) && o.featuresPerLabel <= o.numFeatures,
    "featuresPerLabel must be an integer in [1, numFeatures]",
    o.featuresPerLabel,
  );
  check(
    o.numLabels * o.featuresPerLabel <= MAX_SYNTHETIC_PROTOTYPES,
    `numLabels × featuresPerLabel must be at most 2^28 (${MAX_SYNTHETIC_PROTOTYPES})`,
    `${o.numLabels} × ${o.featuresPerLabel}`,
  );
  check(o.noise >= 0 && o.noise <= 1, "noise must be in [0, 1]", o.noise);
  check(Number.isFinite(o.seed), "seed must be a finite number", o.seed);
  check(Number.isFinite(o.rowSeed), "rowSeed must be a finite number", o.rowSeed);
  return o;
}

/** Index of the first entry of the increasing `cdf[lo, hi)` that is > u (clamped to hi - 1). */
function searchCdf(cdf: Float64Array, lo: number, hi: number, u: number): number {
  let a = lo, b = hi - 1;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (cdf[m] > u) b = m;
    else a = m + 1;
  }
  return a;
}

/**
 * The generator: builds the planted structure once, then produces rows one by one. Rows are
 * fresh typed arrays (safe to keep). Use {@linkcode syntheticExamples} for an iterable.
 *
 * @example
 * ```ts
 * import { SyntheticGenerator } from "./synthetic.ts";
 * const g = new SyntheticGenerator({ numFeatures: 50, numLabels: 10, seed: 1 });
 * const e = g.next();
 * console.log(e.labels.length >= 1, e.x.indices.every((j) => j < 50)); // true true
 * ```
 */
export class SyntheticGenerator {
  /** The resolved options. */
  readonly options: ResolvedSyntheticOptions;
  /** Label → topic. */
  readonly topicOf: Int32Array;
  /** Prototype features of label `l`: `prototypes[l * featuresPerLabel + k]`. */
  readonly prototypes: Int32Array;
  /** Expected share of rows carrying each label under the power law (first-label draw). */
  readonly labelProbabilities: Float64Array;
  readonly #rng: Rng;
  /** Global label CDF. */
  readonly #cdf: Float64Array;
  /** Per-topic label lists (concatenated, sorted by topic) and their CDFs. */
  readonly #topicLabels: Int32Array;
  readonly #topicCdf: Float64Array;
  readonly #topicStart: Int32Array;
  #rowsMade = 0;
  // scratch
  readonly #labelBuf: Int32Array;
  #featBuf: Int32Array;

  /** @param options see {@linkcode SyntheticOptions} */
  constructor(options: SyntheticOptions = {}) {
    const o = resolveSyntheticOptions(options);
    this.options = o;
    const L = o.numLabels, D = o.numFeatures, T = o.topics, F = o.featuresPerLabel;
    const structure = new Rng(o.seed * 2 + 0.5);
    this.#rng = new Rng(o.rowSeed * 2 + 1);

    // power-law label weights
    const w = new Float64Array(L);
    let total = 0;
    for (let l = 0; l < L; l++) total += w[l] = Math.pow(l + 1, -o.labelExponent);
    this.labelProbabilities = new Float64Array(L);
    this.#cdf = new Float64Array(L);
    let acc = 0;
    for (let l = 0; l < L; l++) {
      this.labelProbabilities[l] = w[l] / total;
      acc += w[l] / total;
      this.#cdf[l] = acc;
    }
    this.#cdf[L - 1] = 1;

    // topics: a random assignment, every topic non-empty
    const perm = new Int32Array(L);
    for (let l = 0; l < L; l++) perm[l] = l;
    structure.shuffle(perm);
    this.topicOf = new Int32Array(L);
    for (let k = 0; k < L; k++) this.topicOf[perm[k]] = k % T;
    const count = new Int32Array(T + 1);
    for (let l = 0; l < L; l++) count[this.topicOf[l] + 1]++;
    this.#topicStart = new Int32Array(T + 1);
    for (let t = 0; t < T; t++) this.#topicStart[t + 1] = this.#topicStart[t] + count[t + 1];
    this.#topicLabels = new Int32Array(L);
    this.#topicCdf = new Float64Array(L);
    const fill = this.#topicStart.slice(0, T);
    for (let l = 0; l < L; l++) this.#topicLabels[fill[this.topicOf[l]]++] = l; // increasing l
    for (let t = 0; t < T; t++) {
      const a = this.#topicStart[t], b = this.#topicStart[t + 1];
      let s = 0;
      for (let k = a; k < b; k++) s += w[this.#topicLabels[k]];
      let c = 0;
      for (let k = a; k < b; k++) this.#topicCdf[k] = c += w[this.#topicLabels[k]] / s;
      this.#topicCdf[b - 1] = 1;
    }

    // prototypes: half from a topic feature pool, half label-specific
    const poolSize = Math.min(D, 4 * F);
    const pools = new Int32Array(T * poolSize);
    for (let i = 0; i < pools.length; i++) pools[i] = structure.nextInt(D);
    this.prototypes = new Int32Array(L * F);
    const shared = F >> 1;
    for (let l = 0; l < L; l++) {
      const t = this.topicOf[l];
      for (let k = 0; k < F; k++) {
        this.prototypes[l * F + k] = k < shared
          ? pools[t * poolSize + structure.nextInt(poolSize)]
          : structure.nextInt(D);
      }
    }
    this.#labelBuf = new Int32Array(Math.min(L, Math.ceil(4 * o.avgLabels) + 1));
    this.#featBuf = new Int32Array(Math.ceil(2 * o.avgNnz) + 16);
  }

  /** Rows produced so far. */
  get rowsMade(): number {
    return this.#rowsMade;
  }

  /** Poisson sample (Knuth for small means, normal approximation above 30). */
  #poisson(mean: number): number {
    if (mean <= 0) return 0;
    if (mean > 30) {
      return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.#rng.normal()));
    }
    const limit = Math.exp(-mean);
    let k = 0, p = this.#rng.next();
    while (p > limit) {
      k++;
      p *= this.#rng.next();
    }
    return k;
  }

  /**
   * The next row (its `line` is its 1-based row number).
   *
   * @example
   * ```ts
   * import { SyntheticGenerator } from "./synthetic.ts";
   * const a = new SyntheticGenerator({ seed: 4 }).next();
   * const b = new SyntheticGenerator({ seed: 4 }).next();
   * console.log(a.labels.join() === b.labels.join(), a.line); // true 1
   * ```
   */
  next(): Example {
    const o = this.options, rng = this.#rng;
    const L = o.numLabels, F = o.featuresPerLabel;
    // labels
    const cap = this.#labelBuf.length;
    const want = Math.min(cap, 1 + this.#poisson(o.avgLabels - 1));
    const labels = this.#labelBuf;
    let m = 0;
    labels[m++] = searchCdf(this.#cdf, 0, L, rng.next());
    const t0 = this.topicOf[labels[0]];
    const ta = this.#topicStart[t0], tb = this.#topicStart[t0 + 1];
    for (let attempt = 0; m < want && attempt < 8 * want; attempt++) {
      const l = rng.next() < o.coherence
        ? this.#topicLabels[searchCdf(this.#topicCdf, ta, tb, rng.next())]
        : searchCdf(this.#cdf, 0, L, rng.next());
      let dup = false;
      for (let k = 0; k < m; k++) if (labels[k] === l) dup = true;
      if (!dup) labels[m++] = l;
    }
    const rowLabels = labels.slice(0, m).sort();

    // features
    const draws = Math.max(1, this.#poisson(o.avgNnz));
    if (this.#featBuf.length < draws) this.#featBuf = new Int32Array(2 * draws);
    const f = this.#featBuf;
    for (let k = 0; k < draws; k++) {
      f[k] = rng.next() < o.noise
        ? rng.nextInt(o.numFeatures)
        : this.prototypes[labels[rng.nextInt(m)] * F + rng.nextInt(F)];
    }
    const sorted = f.subarray(0, draws).sort();
    let distinct = 0;
    for (let k = 0; k < draws; k++) if (k === 0 || sorted[k] !== sorted[k - 1]) distinct++;
    const indices = new Int32Array(distinct), values = new Float32Array(distinct);
    let q = -1, norm = 0;
    for (let k = 0; k < draws; k++) {
      if (k === 0 || sorted[k] !== sorted[k - 1]) {
        indices[++q] = sorted[k];
        values[q] = 1;
      } else values[q]++;
    }
    for (let k = 0; k < distinct; k++) {
      const v = 1 + Math.log(values[k]);
      values[k] = v;
      norm += v * v;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let k = 0; k < distinct; k++) values[k] *= inv;
    this.#rowsMade++;
    return { x: { indices, values }, labels: rowLabels, line: this.#rowsMade };
  }
}

/**
 * `options.rows` synthetic rows (default 1000) as a lazy iterable; see the module doc for the
 * planted structure. The options are checked when it is called, before the first row.
 *
 * @throws {TypeError | RangeError} for bad options (see {@linkcode resolveSyntheticOptions})
 *
 * @example
 * ```ts
 * import { syntheticExamples } from "./synthetic.ts";
 * let n = 0, nnz = 0;
 * for (const e of syntheticExamples({ rows: 200, numFeatures: 500, numLabels: 20, seed: 3 })) {
 *   n++;
 *   nnz += e.x.indices.length;
 * }
 * console.log(n, nnz / n > 10); // 200 true
 * ```
 */
export function syntheticExamples(options: SyntheticOptions = {}): Generator<Example> {
  const g = new SyntheticGenerator(options); // bad options throw here, not at the first row
  return (function* () {
    for (let i = 0; i < g.options.rows; i++) yield g.next();
  })();
}

/** Writes the decimal digits of a non-negative integer at `p`; returns the new position. */
function writeInt(buf: Uint8Array, p: number, v: number): number {
  if (v < 10) {
    buf[p] = 48 + v;
    return p + 1;
  }
  let n = 0;
  for (let t = v; t > 0; t = Math.floor(t / 10)) n++;
  for (let q = p + n - 1; q >= p; q--) {
    buf[q] = 48 + (v % 10);
    v = Math.floor(v / 10);
  }
  return p + n;
}

/**
 * Writes one row as an XC text line (with its `\n`) at `buf[p]`, values rounded to 4 decimals
 * (never to 0) with trailing zeros trimmed; returns the new position. `buf` must have room for
 * `18 * nnz + 11 * labels + 2` bytes (` 2147483646:0.1234` is 18).
 */
function writeXcLine(buf: Uint8Array, p: number, e: Example): number {
  const lab = e.labels;
  for (let k = 0; k < lab.length; k++) {
    if (k > 0) buf[p++] = 44;
    p = writeInt(buf, p, lab[k]);
  }
  const idx = e.x.indices, val = e.x.values;
  if (idx.length === 0) buf[p++] = 32;
  for (let k = 0; k < idx.length; k++) {
    buf[p++] = 32;
    p = writeInt(buf, p, idx[k]);
    buf[p++] = 58;
    let v = Math.round(Math.abs(val[k]) * 10000);
    if (v === 0) v = 1;
    if (val[k] < 0) buf[p++] = 45;
    p = writeInt(buf, p, Math.floor(v / 10000));
    let frac = v % 10000;
    if (frac > 0) {
      buf[p++] = 46;
      let digits = 4;
      while (frac % 10 === 0) {
        frac /= 10;
        digits--;
      }
      const end = p + digits;
      for (let q = end - 1; q >= p; q--) {
        buf[q] = 48 + (frac % 10);
        frac = Math.floor(frac / 10);
      }
      p = end;
    }
  }
  buf[p++] = 10;
  return p;
}

/**
 * Synthetic rows as XC text (header `N D L`, then one line per row), streamed in chunks of about
 * `chunkBytes` (default 1 MiB). Values are written with 4 decimals.
 *
 * @example
 * ```ts
 * import { syntheticXcStream } from "./synthetic.ts";
 * const text = await new Response(syntheticXcStream({ rows: 3, numFeatures: 40, numLabels: 5, seed: 1 })).text();
 * const lines = text.trimEnd().split("\n");
 * console.log(lines[0], lines.length); // "3 40 5" 4
 * ```
 */
export function syntheticXcStream(
  options: SyntheticOptions = {},
  chunkBytes = 1 << 20,
): ReadableStream<Uint8Array> {
  const g = new SyntheticGenerator(options);
  const o = g.options;
  let header = true;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      let buf = new Uint8Array(chunkBytes + 4096);
      let p = 0;
      if (header) {
        header = false;
        p = writeInt(buf, p, o.rows);
        buf[p++] = 32;
        p = writeInt(buf, p, o.numFeatures);
        buf[p++] = 32;
        p = writeInt(buf, p, o.numLabels);
        buf[p++] = 10;
      }
      while (p < chunkBytes && g.rowsMade < o.rows) {
        const e = g.next();
        // (16 a pair was too few for 9- and 10-digit feature indices: bytes written past the
        // buffer were lost and lines ran together)
        const need = 18 * e.x.indices.length + 11 * e.labels.length + 2;
        if (p + need > buf.length) {
          const next = new Uint8Array(Math.max(2 * buf.length, p + need));
          next.set(buf.subarray(0, p));
          buf = next;
        }
        p = writeXcLine(buf, p, e);
      }
      if (p > 0) controller.enqueue(buf.subarray(0, p));
      if (g.rowsMade >= o.rows) controller.close();
    },
  }, { highWaterMark: 0 });
}

/**
 * Writes synthetic rows to an XC text file; returns the file size in bytes. The rows go to a
 * temporary file beside `path`, renamed to `path` once complete: a failure leaves no partial file
 * under `path` (an earlier file there stays as it was) and removes the temporary one.
 *
 * @example
 * ```ts
 * import { writeSyntheticXc } from "./synthetic.ts";
 * const path = await Deno.makeTempFile({ suffix: ".txt" });
 * const bytes = await writeSyntheticXc(path, { rows: 10, seed: 2 });
 * console.log(bytes === (await Deno.stat(path)).size); // true
 * await Deno.remove(path);
 * ```
 */
export async function writeSyntheticXc(
  path: string,
  options: SyntheticOptions = {},
): Promise<number> {
  // (options are checked before any file is made)
  const rows = syntheticXcStream(options);
  // a sibling (same file system: the rename is atomic), named anew for each call
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const file = await Deno.open(tmp, { write: true, createNew: true });
  let bytes = 0;
  try {
    try {
      await rows.pipeTo(
        new WritableStream<Uint8Array>({
          async write(chunk) {
            for (let p = 0; p < chunk.length;) {
              const n = await file.write(chunk.subarray(p));
              if (n <= 0) throw new Error(`Cannot write ${tmp}: no byte written`);
              p += n;
            }
            bytes += chunk.length;
          },
        }),
      );
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  return bytes;
}
