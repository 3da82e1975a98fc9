/**
 * The replica label index's worker (issue 15, ./replica_index.ts): builds a label index
 * (`LabelIndex.build`: clustering + probe calibration, `withLabelIndex`) from a copy of the
 * replica's rows that the serving thread posts, and posts back its partition (the `mips*`
 * tensors, transferred, and the probe params), which the serving thread then applies to its
 * current replica with the cheap `reuse` refresh. So the full build never holds `/predict` up.
 *
 * Protocol: an {@linkcode IndexBuildRequest} in, one {@linkcode IndexBuildReply} out per
 * request (same `id`); a failed build answers with `error` (the worker keeps running).
 *
 * @module
 */
import {
  LabelIndex,
  type LabelIndexInput,
  type LabelIndexOptions,
  type LabelIndexPartition,
} from "../models/label_index.ts";

/**
 * A build asked of the worker: the rows (a copy, transferred) and the build options.
 *
 * @example
 * ```ts
 * import type { IndexBuildRequest } from "./index_worker.ts";
 * const q: IndexBuildRequest = {
 *   id: 1, kind: "linear-lowrank", rowsName: "H", rows: new Float32Array(2), bias: undefined,
 *   numLabels: 2, rank: 1, options: { minLabels: 0 },
 * };
 * console.log(q.id); // 1
 * ```
 */
export interface IndexBuildRequest extends LabelIndexInput {
  /** Matches the reply to the request. */
  id: number;
  /** The build options (`minLabels`, `probes`, `groupProbes`, …). */
  options: LabelIndexOptions;
}

/**
 * The worker's answer: the partition built (`partition`, undefined below `minLabels`) and the
 * build's milliseconds, or why it failed (`error`).
 *
 * @example
 * ```ts
 * import type { IndexBuildReply } from "./index_worker.ts";
 * const r: IndexBuildReply = { id: 1, error: "no" };
 * console.log(r.partition, r.error); // undefined no
 * ```
 */
export interface IndexBuildReply {
  /** The request's id. */
  id: number;
  /** The partition built, if any. */
  partition?: LabelIndexPartition;
  /** Milliseconds of the build (on the worker). */
  buildMs?: number;
  /** Why the build failed. */
  error?: string;
}

/**
 * Runs one request (what the worker does with a message; callable on any thread).
 *
 * @example
 * ```ts
 * import { buildIndexPartition } from "./index_worker.ts";
 * const L = 300, r = 2, rows = Float32Array.from({ length: L * r }, (_, i) => Math.sin(i * 3.1));
 * const a = buildIndexPartition({
 *   id: 7, kind: "linear-lowrank", rowsName: "H", rows, bias: undefined, numLabels: L, rank: r,
 *   options: { minLabels: 0 },
 * });
 * console.log(a.id, a.partition?.numLabels, a.error); // 7 300 undefined
 * console.log(buildIndexPartition({ ...a, kind: "linear-lowrank", rowsName: "H",
 *   rows: new Float32Array(1), bias: undefined, numLabels: L, rank: r, options: {} }).error !== undefined); // true
 * ```
 */
export function buildIndexPartition(q: IndexBuildRequest): IndexBuildReply {
  try {
    const t0 = performance.now();
    const idx = LabelIndex.build(q, q.options);
    const buildMs = performance.now() - t0;
    if (idx === undefined) return { id: q.id, buildMs };
    const partition: LabelIndexPartition = {
      numLabels: idx.numLabels,
      rank: idx.rank,
      tensors: { ...idx.tensors },
      params: { ...idx.params },
    };
    return { id: q.id, partition, buildMs };
  } catch (e) {
    return { id: q.id, error: (e as Error)?.message ?? String(e) };
  }
}

/** The worker's side of the messaging. */
interface WorkerScope {
  onmessage: ((e: MessageEvent<IndexBuildRequest>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
}

// In a worker (not when imported on the main thread, e.g. by a doc test): answer requests.
const scopeClass = (globalThis as { WorkerGlobalScope?: abstract new () => unknown })
  .WorkerGlobalScope;
if (scopeClass !== undefined && globalThis instanceof scopeClass) {
  const scope = globalThis as unknown as WorkerScope;
  scope.onmessage = (e) => {
    const reply = buildIndexPartition(e.data);
    const transfer: Transferable[] = [];
    for (const t of Object.values(reply.partition?.tensors ?? {})) {
      const buf = t.data.buffer as ArrayBuffer;
      if (!transfer.includes(buf)) transfer.push(buf);
    }
    scope.postMessage(reply, transfer);
  };
}
