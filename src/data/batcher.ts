/**
 * Minibatching: {@linkcode examplesToBatch} packs examples into a CSR {@linkcode Batch}, and
 * {@linkcode Minibatcher} is a transform stream (`{writable, readable}` pair, usable with
 * `pipeThrough`) from examples to batches of a configurable size.
 *
 * Feature and label spaces only grow: a batch's `numCols` is at least the previous batch's, the
 * configured minimum (or the reader's current size) and the largest index seen + 1.
 *
 * No accepted row is lost: when the example stream errors, the rows already received are
 * delivered as a last (short) batch before the error.
 *
 * @module
 */
import type { Batch, Example } from "./types.ts";
import { checkOptionKeys, numberOption } from "./option_check.ts";

/** The options of a {@linkcode Minibatcher}. */
const MINIBATCHER_KEYS = ["batchSize", "numFeatures", "numLabels", "sizes", "maxDelayMs"];

/** Largest batch: rows are held until a batch is full. */
const MAX_BATCH_SIZE = 2 ** 24;

/** Union of two strictly increasing index lists. */
function mergeSorted(p: Int32Array, q: Int32Array): Int32Array {
  const out = new Int32Array(p.length + q.length);
  let a = 0, b = 0, o = 0;
  while (a < p.length || b < q.length) {
    if (b >= q.length || (a < p.length && p[a] < q[b])) out[o++] = p[a++];
    else if (a >= p.length || q[b] < p[a]) out[o++] = q[b++];
    else {
      out[o++] = p[a++];
      b++;
    }
  }
  return out.subarray(0, o);
}

/**
 * Builds a minibatch from examples (copies), in feature and label spaces of at least the given
 * sizes (grown to fit the largest index). Rows with explicit negatives get an observed mask
 * (`labels ∪ negatives`) and `fullyObserved[i] = 0`; when no row has negatives there is no mask.
 * Event ids are kept in `ids` when any example has one.
 *
 * @throws {TypeError} when `examples` is not an array or a size is not a number
 * @throws {RangeError} for a size that is not an integer in [0, 2^31 − 1] (NaN gave a NaN width),
 *   or an example whose `x` has not as many values as indices (naming the row and its id: the
 *   values would be shifted into the next rows)
 *
 * @example
 * ```ts
 * import { examplesToBatch } from "./batcher.ts";
 * const b = examplesToBatch([
 *   { x: { indices: Int32Array.of(2), values: Float32Array.of(1) }, labels: Int32Array.of(0) },
 *   { x: { indices: Int32Array.of(0), values: Float32Array.of(3) }, labels: Int32Array.of(1), negatives: Int32Array.of(0) },
 * ], 3, 2);
 * console.log(b.x.numCols, [...b.y.indices], [...b.observed!.indices], [...b.fullyObserved!]); // 3 [0, 1] [0, 1] [1, 0]
 * ```
 */
export function examplesToBatch(
  examples: readonly Example[],
  numFeatures: number,
  numLabels: number,
): Batch {
  const where = "examplesToBatch";
  if (!Array.isArray(examples)) {
    throw new TypeError(
      `${where}: examples must be an array of examples, got ${
        examples === null ? "null" : typeof examples
      }`,
    );
  }
  numFeatures = numberOption(where, "numFeatures", numFeatures, 0, 0, 2 ** 31 - 1, true);
  numLabels = numberOption(where, "numLabels", numLabels, 0, 0, 2 ** 31 - 1, true);
  const n = examples.length;
  const xPtr = new Int32Array(n + 1);
  const yPtr = new Int32Array(n + 1);
  const oPtr = new Int32Array(n + 1);
  const observedRows: (Int32Array | undefined)[] = new Array(n);
  const full = new Uint8Array(n);
  let partial = false, anyId = false;
  for (let i = 0; i < n; i++) {
    const e = examples[i];
    if (e.x.values.length !== e.x.indices.length) {
      const id = e.id === undefined ? "" : ` (event ${e.id})`;
      throw new RangeError(
        `${where}: row ${i}${id}: x has ${e.x.indices.length} indices but ` +
          `${e.x.values.length} values`,
      );
    }
    xPtr[i + 1] = xPtr[i] + e.x.indices.length;
    yPtr[i + 1] = yPtr[i] + e.labels.length;
    const k = e.x.indices.length;
    if (k > 0 && e.x.indices[k - 1] >= numFeatures) numFeatures = e.x.indices[k - 1] + 1;
    const m = e.labels.length;
    if (m > 0 && e.labels[m - 1] >= numLabels) numLabels = e.labels[m - 1] + 1;
    if (e.id !== undefined) anyId = true;
    if (e.negatives) {
      partial = true;
      const q = e.negatives;
      if (q.length > 0 && q[q.length - 1] >= numLabels) numLabels = q[q.length - 1] + 1;
      observedRows[i] = mergeSorted(e.labels, q);
    } else {
      full[i] = 1;
    }
    oPtr[i + 1] = oPtr[i] + (observedRows[i]?.length ?? 0);
  }
  const xi = new Int32Array(xPtr[n]), xv = new Float32Array(xPtr[n]);
  const yi = new Int32Array(yPtr[n]);
  const oi = new Int32Array(oPtr[n]);
  for (let i = 0; i < n; i++) {
    const e = examples[i];
    xi.set(e.x.indices, xPtr[i]);
    xv.set(e.x.values, xPtr[i]);
    yi.set(e.labels, yPtr[i]);
    const o = observedRows[i];
    if (o) oi.set(o, oPtr[i]);
  }
  let batch: Batch = {
    x: { numRows: n, numCols: numFeatures, indptr: xPtr, indices: xi, values: xv },
    y: { numRows: n, numCols: numLabels, indptr: yPtr, indices: yi },
  };
  if (partial) {
    batch = {
      ...batch,
      observed: { numRows: n, numCols: numLabels, indptr: oPtr, indices: oi },
      fullyObserved: full,
    };
  }
  if (anyId) batch = { ...batch, ids: examples.map((e) => e.id) };
  return batch;
}

/**
 * Current feature and label space sizes (an `ExampleReader` has both).
 *
 * @example
 * ```ts
 * import type { SpaceSizes } from "./batcher.ts";
 * const s: SpaceSizes = { numFeatures: 100, numLabels: 5 };
 * console.log(s.numLabels); // 5
 * ```
 */
export interface SpaceSizes {
  /** Current feature-space size. */
  readonly numFeatures: number;
  /** Current label-space size. */
  readonly numLabels: number;
}

/**
 * Options of {@linkcode Minibatcher}.
 *
 * @example
 * ```ts
 * import type { MinibatcherOptions } from "./batcher.ts";
 * const o: MinibatcherOptions = { batchSize: 128, maxDelayMs: 250 };
 * console.log(o.batchSize); // 128
 * ```
 */
export interface MinibatcherOptions {
  /** Rows per batch (default 64, at most 2^24); the last batch may be smaller. */
  batchSize?: number;
  /** Smallest feature-space size of the batches (default 0). */
  numFeatures?: number;
  /** Smallest label-space size of the batches (default 0). */
  numLabels?: number;
  /**
   * Sizes read at each batch (e.g. the reader: XC header D/L, vocabulary sizes, hashed
   * dimension), so the batches follow a growing vocabulary.
   */
  sizes?: SpaceSizes;
  /**
   * For slow live streams: when set, a partial batch is emitted once its first row has waited
   * this many milliseconds (at most 2^31 − 1) and the consumer is waiting for a batch.
   */
  maxDelayMs?: number;
}

/**
 * A transform stream from {@linkcode Example}s to CSR {@linkcode Batch}es.
 *
 * @example
 * ```ts
 * import { Minibatcher } from "./batcher.ts";
 * import { readExamples } from "./readers.ts";
 * const text = "5 3 2\n0 0:1\n1 1:1\n0,1 2:1\n 0:1\n1 1:2\n";
 * const r = await readExamples([text], { name: "mem.txt" });
 * const sizes: number[] = [];
 * for await (const b of r.stream.pipeThrough(new Minibatcher({ batchSize: 2, sizes: r }))) {
 *   sizes.push(b.x.numRows);
 *   console.log(b.x.numCols, b.y.numCols); // 3 2 (three times)
 * }
 * console.log(sizes); // [ 2, 2, 1 ]
 * ```
 */
export class Minibatcher {
  /** Where examples are written. */
  readonly writable: WritableStream<Example>;
  /** Where batches come out. */
  readonly readable: ReadableStream<Batch>;
  /** Batches emitted so far. */
  batches = 0;
  /** Rows emitted so far. */
  rows = 0;

  /**
   * A minibatcher.
   *
   * @param options batch size, minimum sizes, size source and delay
   * @throws {TypeError} for an unknown option or a value of the wrong type
   * @throws {RangeError} for a value out of range
   */
  constructor(options: MinibatcherOptions = {}) {
    const where = "Minibatcher";
    checkOptionKeys(where, options, MINIBATCHER_KEYS);
    const batchSize = numberOption(
      where,
      "batchSize",
      options.batchSize,
      64,
      1,
      MAX_BATCH_SIZE,
      true,
    );
    // setTimeout fires at once for a delay above 2^31 - 1 ms
    const maxDelay = options.maxDelayMs === undefined
      ? undefined
      : numberOption(where, "maxDelayMs", options.maxDelayMs, 0, 0, 2 ** 31 - 1);
    let numFeatures = numberOption(
      where,
      "numFeatures",
      options.numFeatures,
      0,
      0,
      2 ** 31 - 1,
      true,
    );
    let numLabels = numberOption(where, "numLabels", options.numLabels, 0, 0, 2 ** 31 - 1, true);
    const sizes = options.sizes;
    if (
      sizes !== undefined &&
      (typeof sizes?.numFeatures !== "number" || typeof sizes?.numLabels !== "number")
    ) {
      throw new TypeError(
        `${where}: option sizes must have numeric numFeatures and numLabels (e.g. a reader)`,
      );
    }
    let pending: Example[] = [];
    let firstPendingAt = 0;
    const ready: Batch[] = [];
    let closed = false;
    let failed = false;
    let failure: unknown;
    let cancelled = false;
    let cancelReason: unknown;
    let wakeReader: (() => void) | undefined;
    let wakeWriter: (() => void) | undefined;
    const wake = (which: "r" | "w") => {
      const f = which === "r" ? wakeReader : wakeWriter;
      if (which === "r") wakeReader = undefined;
      else wakeWriter = undefined;
      f?.();
    };
    const cut = () => {
      if (pending.length === 0) return;
      if (sizes) {
        numFeatures = Math.max(numFeatures, sizes.numFeatures);
        numLabels = Math.max(numLabels, sizes.numLabels);
      }
      let b: Batch;
      try {
        b = examplesToBatch(pending, numFeatures, numLabels);
      } catch (e) {
        // a malformed example: the batch stream errors (after the batches before it) rather
        // than waiting for ever for a batch that will not come
        pending = [];
        failed = true;
        failure = e;
        wake("r");
        return;
      }
      numFeatures = b.x.numCols;
      numLabels = b.y.numCols;
      pending = [];
      ready.push(b);
      this.batches++;
      this.rows += b.x.numRows;
      wake("r");
    };
    this.writable = new WritableStream<Example>({
      write: async (e) => {
        if (cancelled) throw cancelReason;
        if (failed) throw failure;
        pending.push(e);
        if (pending.length === 1) {
          firstPendingAt = performance.now();
          if (maxDelay !== undefined) wake("r"); // a waiting reader starts its timer
        }
        if (pending.length >= batchSize) cut();
        if (failed) throw failure;
        // backpressure: wait while a batch is waiting for the reader
        while (ready.length > 0 && !cancelled) {
          await new Promise<void>((resolve) => (wakeWriter = resolve));
        }
        if (cancelled) throw cancelReason;
      },
      close: () => {
        cut();
        if (failed) throw failure;
        closed = true;
        wake("r");
      },
      abort: (reason) => {
        cut(); // rows received before the error are delivered first
        if (!failed) {
          failed = true;
          failure = reason;
        }
        wake("r");
      },
    }, { highWaterMark: 1 });
    this.readable = new ReadableStream<Batch>({
      pull: async (controller) => {
        while (ready.length === 0 && !closed && !failed) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          const waited = new Promise<void>((resolve) => (wakeReader = resolve));
          if (maxDelay !== undefined && pending.length > 0) {
            const left = Math.max(0, firstPendingAt + maxDelay - performance.now());
            timer = setTimeout(() => {
              cut();
              wake("w");
            }, left);
          }
          await waited;
          if (timer !== undefined) clearTimeout(timer);
        }
        if (ready.length > 0) {
          controller.enqueue(ready.shift()!);
          wake("w");
          return;
        }
        if (failed) controller.error(failure);
        else controller.close();
      },
      cancel: (reason) => {
        cancelled = true;
        cancelReason = reason ?? new TypeError("Minibatcher: the batch stream was cancelled");
        pending = [];
        ready.length = 0;
        wake("w");
      },
    }, { highWaterMark: 0 });
  }
}

/**
 * Convenience: the batches of an example stream (or async iterable).
 *
 * @example
 * ```ts
 * import { batchStream } from "./batcher.ts";
 * import { syntheticExamples } from "./synthetic.ts";
 * let rows = 0;
 * for await (const b of batchStream(syntheticExamples({ rows: 100 }), { batchSize: 32 })) rows += b.x.numRows;
 * console.log(rows); // 100
 * ```
 */
export function batchStream(
  examples: ReadableStream<Example> | AsyncIterable<Example> | Iterable<Example>,
  options: MinibatcherOptions = {},
): ReadableStream<Batch> {
  const source = examples instanceof ReadableStream ? examples : ReadableStream.from(examples);
  return source.pipeThrough(new Minibatcher(options));
}
