/**
 * What the learning service pays for a model of this size, measured the way the service does it
 * (src/service/): the learner thread's snapshot for the serving thread (`toReplicaState()`, or
 * `toState()` for a model without one), the replica rebuilt from it on the serving thread
 * (`factory.restore(state, { adopt: true })`), a checkpoint (`toState()` in a learner-checkpoint
 * object, `encodeCheckpoint`, `writeFileAtomic`: temp file, fsync, rename, fsync of the
 * directory) and a publish (`toModelFile` with the label names, `writeFileAtomic`).
 *
 * The checkpoint object has the service's fields that grow with the model: the model state, the
 * label counts (L float64) and the label vocabulary (here decimal names, as the published file's
 * label names); no feature vocabulary (a hashed feature space) and no queued events.
 *
 * @module
 */
import type { Estimator, EstimatorFactory, ModelState } from "../../src/models/estimator.ts";
import { encodeCheckpoint, writeFileAtomic } from "../../src/service/checkpoint.ts";
import { examplesToBatch } from "../../src/data/batcher.ts";
import type { Example } from "../../src/data/types.ts";

/**
 * Options of {@linkcode serviceCosts}.
 *
 * @example
 * ```ts
 * import type { ServiceCostOptions } from "./service_costs.ts";
 * const o: ServiceCostOptions = { repetitions: 3, dir: "/tmp" };
 * console.log(o.repetitions); // 3
 * ```
 */
export interface ServiceCostOptions {
  /** Times each step is repeated (the medians are reported). */
  repetitions: number;
  /** Directory of the checkpoint and model files written (they are removed afterwards). */
  dir: string;
  /** Label names written into the checkpoint and the published file (default: decimal). */
  labelNames?: readonly string[];
  /**
   * Rows learned between two incremental checkpoints (one checkpoint interval: the service's
   * default is 5,000 events), for a model with state deltas; each repetition learns the next
   * `deltaRows` of them then writes a delta. Absent: no incremental checkpoints measured.
   */
  moreRows?: readonly Example[];
  /**
   * Rows per incremental checkpoint (default 5000, or fewer when `moreRows` cannot give every
   * repetition that many) and per minibatch (default 64).
   */
  deltaRows?: number;
  batchSize?: number;
}

/**
 * Medians over the repetitions of what the service pays (milliseconds; bytes of the last one).
 *
 * @example
 * ```ts
 * import type { ServiceCosts } from "./service_costs.ts";
 * function perSnapshot(c: ServiceCosts): number { return c.snapshotMs + c.replicaRestoreMs; }
 * console.log(typeof perSnapshot); // "function"
 * ```
 */
export interface ServiceCosts {
  repetitions: number;
  /** The estimator method the snapshot came from. */
  snapshotFrom: "toReplicaState" | "toState";
  /** Learner thread: taking the replica state; its tensors' bytes (transferred, not copied). */
  snapshotMs: number;
  snapshotBytes: number;
  /** Serving thread: `factory.restore(state, { adopt: true })`. */
  replicaRestoreMs: number;
  /** Checkpoint: `toState()` + encoding + atomic write, and each part; the file's bytes. */
  checkpointMs: number;
  checkpointStateMs: number;
  checkpointEncodeMs: number;
  checkpointWriteMs: number;
  checkpointBytes: number;
  /** Bytes of the model state's tensors inside the checkpoint. */
  checkpointStateBytes: number;
  /** Publish: `toModelFile` + atomic write, and each part; the file's bytes. */
  publishMs: number;
  publishBuildMs: number;
  publishWriteMs: number;
  publishBytes: number;
  /**
   * Incremental checkpoints (models with state deltas, given `moreRows`): rows learned since the
   * previous checkpoint, then `toStateDelta()` + encoding + atomic write, and the file's bytes.
   */
  delta?: {
    rows: number;
    checkpointMs: number;
    stateMs: number;
    encodeMs: number;
    writeMs: number;
    bytes: number;
    /** Restoring: `applyStateDelta` of one delta on the restored base. */
    applyMs: number;
    /** Intervals in which the model asked for a full state instead (a global prune ran). */
    fullStates: number;
  };
}

/** Bytes of a state's tensors. */
function stateBytes(s: ModelState): number {
  let n = 0;
  for (const t of Object.values(s.tensors)) n += t.byteLength;
  return n;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  const v = s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
  return Math.round(v * 1000) / 1000;
}

/**
 * Median milliseconds and bytes of the service's snapshot, replica rebuild, checkpoint and
 * publish for `model` (the `service` record of the scale benchmark).
 *
 * @example
 * ```ts
 * import { factory } from "../../src/models/ova/mod.ts";
 * import { serviceCosts } from "./service_costs.ts";
 * const m = factory.create({ numFeatures: 4, numLabels: 3 });
 * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [2]);
 * const dir = await Deno.makeTempDir();
 * const c = await serviceCosts(m, factory, { repetitions: 1, dir });
 * console.log(c.snapshotBytes > 0, c.checkpointBytes > 0, c.publishBytes > 0); // true true true
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function serviceCosts(
  model: Estimator,
  factory: EstimatorFactory,
  o: ServiceCostOptions,
): Promise<ServiceCosts> {
  const L = model.numLabels;
  const names = o.labelNames ?? Array.from({ length: L }, (_, l) => String(l));
  const counts = new Float64Array(L);
  const ckPath = `${o.dir}/checkpoint.msgpack`, modelPath = `${o.dir}/model.tsm`;
  const ms = {
    snapshot: [] as number[],
    restore: [] as number[],
    ckState: [] as number[],
    ckEncode: [] as number[],
    ckWrite: [] as number[],
    ck: [] as number[],
    pubBuild: [] as number[],
    pubWrite: [] as number[],
    pub: [] as number[],
  };
  let snapshotBytes = 0, checkpointBytes = 0, checkpointStateBytes = 0, publishBytes = 0;
  const from: ServiceCosts["snapshotFrom"] = model.toReplicaState ? "toReplicaState" : "toState";
  for (let r = 0; r < o.repetitions; r++) {
    // snapshot on the learner thread, replica on the serving thread (it adopts the arrays)
    let t0 = performance.now();
    const snap = model.toReplicaState ? model.toReplicaState() : model.toState();
    ms.snapshot.push(performance.now() - t0);
    snapshotBytes = stateBytes(snap);
    t0 = performance.now();
    factory.restore(snap, { adopt: true });
    ms.restore.push(performance.now() - t0);

    // checkpoint: synchronous state + encoding, then the atomic durable write
    t0 = performance.now();
    const state = model.toState();
    const t1 = performance.now();
    const bytes = encodeCheckpoint({
      format: "tagstream-checkpoint",
      version: 1,
      kind: model.kind,
      state,
      features: { names: [] },
      labels: { names },
      pending: [],
      labelCounts: counts,
    });
    const t2 = performance.now();
    await writeFileAtomic(ckPath, bytes);
    const t3 = performance.now();
    ms.ckState.push(t1 - t0);
    ms.ckEncode.push(t2 - t1);
    ms.ckWrite.push(t3 - t2);
    ms.ck.push(t3 - t0);
    checkpointBytes = bytes.length;
    checkpointStateBytes = stateBytes(state);

    // publish: the model file with the label names, written atomically
    t0 = performance.now();
    const file = model.toModelFile({ labelNames: names, meta: { modelVersion: r + 1 } });
    const t4 = performance.now();
    await writeFileAtomic(modelPath, file);
    const t5 = performance.now();
    ms.pubBuild.push(t4 - t0);
    ms.pubWrite.push(t5 - t4);
    ms.pub.push(t5 - t0);
    publishBytes = file.length;
  }
  const delta = await deltaCosts(model, factory, o, ckPath);
  await Deno.remove(ckPath).catch(() => {});
  await Deno.remove(modelPath).catch(() => {});
  return {
    ...(delta ? { delta } : {}),
    repetitions: o.repetitions,
    snapshotFrom: from,
    snapshotMs: median(ms.snapshot),
    snapshotBytes,
    replicaRestoreMs: median(ms.restore),
    checkpointMs: median(ms.ck),
    checkpointStateMs: median(ms.ckState),
    checkpointEncodeMs: median(ms.ckEncode),
    checkpointWriteMs: median(ms.ckWrite),
    checkpointBytes,
    checkpointStateBytes,
    publishMs: median(ms.pub),
    publishBuildMs: median(ms.pubBuild),
    publishWriteMs: median(ms.pubWrite),
    publishBytes,
  };
}

/**
 * Incremental checkpoints: a base (`beginStateDeltas` + `toState`), then per repetition the next
 * `deltaRows` rows learned and a delta written; also the cost of applying one to the restored
 * base (what a restart pays per delta). Undefined without state deltas or rows.
 */
async function deltaCosts(
  model: Estimator,
  factory: EstimatorFactory,
  o: ServiceCostOptions,
  ckPath: string,
): Promise<ServiceCosts["delta"]> {
  const rows = o.moreRows ?? [];
  const bs = o.batchSize ?? 64;
  // twice the repetitions' rows: slack for intervals in which a global prune asks for a base
  const per = o.deltaRows ??
    Math.min(5000, Math.floor(rows.length / Math.max(1, 2 * o.repetitions)));
  if (!model.beginStateDeltas || !model.toStateDelta || !(per > 0)) return undefined;
  model.beginStateDeltas();
  let restored = factory.restore(model.toState());
  let fullStates = 0;
  const ms = { state: [] as number[], encode: [] as number[], write: [] as number[] };
  const apply: number[] = [], all: number[] = [];
  let bytes = 0, next = 0;
  const reps = o.repetitions;
  for (let r = 0; r < reps && next + per <= rows.length; r++) {
    for (let s = 0; s < per; s += bs) {
      const part = rows.slice(next + s, next + Math.min(per, s + bs));
      model.learnMany(examplesToBatch(part, model.numFeatures, model.numLabels));
    }
    next += per;
    const t0 = performance.now();
    const d = model.toStateDelta();
    if (d === undefined) {
      // the model asked for a full state (a global prune ran): the service writes a new base
      fullStates++;
      model.beginStateDeltas();
      restored = factory.restore(model.toState());
      r--;
      continue;
    }
    const t1 = performance.now();
    const file = encodeCheckpoint({
      format: "tagstream-checkpoint-delta",
      kind: model.kind,
      state: d,
    });
    const t2 = performance.now();
    await writeFileAtomic(`${ckPath}.delta`, file);
    const t3 = performance.now();
    ms.state.push(t1 - t0);
    ms.encode.push(t2 - t1);
    ms.write.push(t3 - t2);
    all.push(t3 - t0);
    bytes = file.length;
    const t4 = performance.now();
    restored.applyStateDelta!(d);
    apply.push(performance.now() - t4);
  }
  await Deno.remove(`${ckPath}.delta`).catch(() => {});
  if (all.length === 0) return undefined;
  return {
    rows: per,
    checkpointMs: median(all),
    stateMs: median(ms.state),
    encodeMs: median(ms.encode),
    writeMs: median(ms.write),
    bytes,
    applyMs: median(apply),
    fullStates,
  };
}
