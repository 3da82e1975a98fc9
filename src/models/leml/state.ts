/**
 * The training state of streaming LEML (for checkpoints): what `LemlStream.toState` writes
 * ({@linkcode lemlStreamState}: config, step, RNG state, factors, Adam moments, the replay
 * reservoir, the local mode's Gram, sampler and counters), the smaller state of a prediction
 * replica ({@linkcode lemlReplicaState}), and loading a state back into a model built from its
 * config ({@linkcode loadLemlStreamState}), bit for bit.
 *
 * @module
 */
import type { ModelState } from "../estimator.ts";
import type { SmallRng } from "../../random/mod.ts";
import { RowReservoir } from "../../data/reservoir.ts";
import type { SpaceLimits } from "../../data/batch_check.ts";
import { LabelPool } from "./label_pool.ts";
import type { GrowableRows } from "./lowrank.ts";
import { type LocalMode, POOL_SIZE } from "./local_mode.ts";
import type { LemlOptimizer } from "./optimizer.ts";
import type { LemlStreamConfig } from "./settings.ts";
import { spaceLimits } from "../space_limits.ts";
import {
  type ArrayClass,
  checkCounts,
  checkFinite,
  checkGeneratorState,
  checkIndices,
  checkReservoirRows,
  checkScalar,
  checkSums,
  requireTensor,
} from "../state_check.ts";

/**
 * The parts of a streaming LEML model that make up its state.
 *
 * @example
 * ```ts
 * import type { LemlStreamParts } from "./state.ts";
 * function stepOf(p: LemlStreamParts): number { return p.step; }
 * console.log(typeof stepOf); // function
 * ```
 */
export interface LemlStreamParts {
  /** The resolved settings. */
  readonly config: Readonly<LemlStreamConfig>;
  /** The growth limits (recorded beside the settings). */
  readonly limits: SpaceLimits;
  /** Optimiser steps taken. */
  readonly step: number;
  /** The negative sampler's generator. */
  readonly rng: SmallRng;
  /** Current feature-space size. */
  readonly numFeatures: number;
  /** Current label-space size. */
  readonly numLabels: number;
  /** W. */
  readonly w: GrowableRows;
  /** H. */
  readonly h: GrowableRows;
  /** The per-label bias. */
  readonly bias: GrowableRows;
  /** The optimiser and its moments. */
  readonly opt: LemlOptimizer;
  /** The replay reservoir. */
  readonly reservoir: RowReservoir;
  /** The local mode's state (undefined in the full mode). */
  readonly local: LocalMode | undefined;
}

/**
 * Full training state (copies): config, step, RNG state, factors and optimiser moments, the
 * replay reservoir (with `replay` > 0) and the local mode's state.
 *
 * @example
 * ```ts
 * import { LemlStream } from "./stream.ts";
 * const s = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 2 }).toState();
 * console.log(s.kind, s.config.trainer, s.tensors.W.length); // leml stream 6
 * ```
 */
export function lemlStreamState(p: LemlStreamParts): ModelState {
  const tensors: ModelState["tensors"] = {
    W: p.w.snapshot(),
    H: p.h.snapshot(),
    bias: p.bias.snapshot(),
  };
  if (p.config.optimizer === "adam") {
    tensors.mW = p.opt.mW.snapshot();
    tensors.vW = p.opt.vW.snapshot();
    tensors.mH = p.opt.mH.snapshot();
    tensors.vH = p.opt.vH.snapshot();
    tensors.mb = p.opt.mb.snapshot();
    tensors.vb = p.opt.vb.snapshot();
  }
  const scalars: ModelState["scalars"] = {
    step: p.step,
    rngState: p.rng.state,
    numFeatures: p.numFeatures,
    numLabels: p.numLabels,
  };
  if (p.config.replay > 0) {
    const r = p.reservoir.toState();
    Object.assign(tensors, r.tensors);
    scalars.replaySeen = r.scalars.seen;
    scalars.replayRng = r.scalars.rngState;
  }
  const loc = p.local;
  if (loc) {
    tensors.gram = loc.gram.gram.slice();
    tensors.gramHb = loc.gram.hb.slice();
    tensors.lastTouch = loc.lastTouch.slice(0, p.numLabels);
    tensors.labelPool = loc.pool.buffer.slice();
    scalars.gramUpdates = loc.gram.updates;
    scalars.gramRecomputes = loc.gram.recomputes;
    scalars.labelPoolPos = loc.pool.pos;
    scalars.labelPoolSize = loc.pool.size;
    scalars.refreshRowsSince = loc.rowsSinceRefresh;
    scalars.refreshCount = loc.refreshes;
  }
  return {
    kind: "leml",
    config: { trainer: "stream", ...p.config, ...p.limits },
    scalars,
    tensors,
  };
}

/**
 * The state of a prediction replica: W, H and bias (fresh copies), without the Adam moments
 * and the replay rows; restored, it is an SGD learner that predicts exactly like the model.
 *
 * @example
 * ```ts
 * import { LemlStream } from "./stream.ts";
 * const s = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 2 }).toReplicaState();
 * console.log(Object.keys(s.tensors), s.config.optimizer); // [ "W", "H", "bias" ] sgd
 * ```
 */
export function lemlReplicaState(p: LemlStreamParts): ModelState {
  return {
    kind: "leml",
    config: { trainer: "stream", ...p.config, ...p.limits, optimizer: "sgd", replay: 0 },
    scalars: {
      step: p.step,
      rngState: p.rng.state,
      numFeatures: p.numFeatures,
      numLabels: p.numLabels,
    },
    tensors: { W: p.w.snapshot(), H: p.h.snapshot(), bias: p.bias.snapshot() },
  };
}

/**
 * Loads `state` into the parts of a model built from its config with no rows (the factors,
 * the moments, the RNG state and the local mode's state, in place; with `adopt`, W, H and bias
 * keep the state's Float32Arrays) and returns the replay reservoir to use: the state's, or the
 * model's own when the state has none. The caller sets the step to `state.scalars.step`.
 *
 * Every value is checked before any is loaded: the sizes (non-negative integers within the
 * model's `maxFeatures`/`maxLabels`), the step and the local mode's counters (non-negative
 * integers), the generator states, the factors and Adam's first moments (finite), its second
 * moments (sums >= 0), the replay rows (features and labels within the sizes, sorted, finite)
 * and the label pool (labels within the sizes).
 *
 * @throws {TypeError} when a scalar is missing or not a number, or a tensor is missing or of
 * another array class
 * @throws {RangeError} naming the field when a tensor has the wrong length or holds a value out
 * of range
 *
 * @example
 * ```ts
 * import { LemlStream } from "./stream.ts";
 * const a = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 2, seed: 4 });
 * const b = LemlStream.fromState(a.toState()); // calls loadLemlStreamState
 * console.log(b.numFeatures, b.h.data[0] === a.h.data[0]); // 3 true
 * ```
 */
export function loadLemlStreamState(
  p: LemlStreamParts,
  state: ModelState,
  adopt: boolean,
): RowReservoir {
  const where = "leml.restore", sc = state.scalars ?? {};
  const D = checkScalar(sc, "numFeatures", where), L = checkScalar(sc, "numLabels", where);
  spaceLimits(where, { numFeatures: D, numLabels: L, ...p.limits });
  const k = p.config.rank;
  const t = state.tensors;
  // a float32 tensor (factors, moments) of `len` entries, or one of `type`
  const need = <T extends ArrayLike<number> = Float32Array>(
    name: string,
    len: number,
    type: ArrayClass<T> = Float32Array as unknown as ArrayClass<T>,
  ): T => requireTensor(t, name, type, where, len);
  // checked whole before anything is loaded
  checkScalar(sc, "step", where);
  checkGeneratorState(sc, "rngState", where);
  checkFinite(need("W", D * k), "W", where);
  checkFinite(need("H", L * k), "H", where);
  checkFinite(need("bias", L), "bias", where);
  if (p.config.optimizer === "adam") {
    for (const [name, len] of [["mW", D * k], ["mH", L * k], ["mb", L]] as const) {
      checkFinite(need(name, len), name, where);
    }
    for (const [name, len] of [["vW", D * k], ["vH", L * k], ["vb", L]] as const) {
      checkSums(need(name, len), name, where);
    }
  }
  if (p.config.replay > 0 && t.resXIndptr !== undefined) {
    checkReservoirRows(t, D, L, where);
    const kept = t.resXIndptr.length - 1;
    if (sc.replaySeen !== undefined) checkScalar(sc, "replaySeen", where, kept);
    if (sc.replayRng !== undefined) checkGeneratorState(sc, "replayRng", where);
  }
  if (p.local) {
    if (t.lastTouch !== undefined) {
      checkCounts(need("lastTouch", L, Int32Array), "lastTouch", where);
    }
    if (t.gram !== undefined) {
      checkFinite(need("gram", k * k, Float64Array), "gram", where);
      checkFinite(need("gramHb", k, Float64Array), "gramHb", where);
    }
    for (const name of ["gramUpdates", "gramRecomputes", "refreshRowsSince", "refreshCount"]) {
      if (sc[name] !== undefined) checkScalar(sc, name, where);
    }
    if (t.labelPool !== undefined) {
      const pool = need("labelPool", POOL_SIZE, Int32Array);
      const size = sc.labelPoolSize === undefined
        ? 0
        : checkScalar(sc, "labelPoolSize", where, 0, POOL_SIZE);
      if (sc.labelPoolPos !== undefined) checkScalar(sc, "labelPoolPos", where, 0, POOL_SIZE - 1);
      // the ring fills from slot 0: its first `size` slots hold labels
      checkIndices(Array.prototype.slice.call(pool, 0, size), "labelPool", L, where);
    }
  }
  for (
    const [rows, name, len] of [[p.w, "W", D * k], [p.h, "H", L * k], [
      p.bias,
      "bias",
      L,
    ]] as const
  ) {
    const values = need(name, len);
    if (adopt) rows.adopt(values);
    else rows.load(values);
  }
  if (p.config.optimizer === "adam") {
    p.opt.mW.load(need("mW", D * k));
    p.opt.vW.load(need("vW", D * k));
    p.opt.mH.load(need("mH", L * k));
    p.opt.vH.load(need("vH", L * k));
    p.opt.mb.load(need("mb", L));
    p.opt.vb.load(need("vb", L));
  }
  const step = state.scalars.step;
  p.rng.state = state.scalars.rngState >>> 0;
  let reservoir = p.reservoir;
  if (p.config.replay > 0 && t.resXIndptr !== undefined) {
    reservoir = RowReservoir.fromState(
      p.config.replay,
      Math.floor(p.config.seed),
      { seen: state.scalars.replaySeen, rngState: state.scalars.replayRng },
      t,
      "leml",
    );
  }
  const loc = p.local;
  if (loc) {
    // the cached Gram, the sampler and the counters continue exactly; a state without them
    // (a replica's) recomputes the Gram and counts every label as touched now
    loc.lastTouch = t.lastTouch !== undefined
      ? need("lastTouch", L, Int32Array).slice()
      : new Int32Array(L).fill(step);
    if (t.gram !== undefined) {
      loc.gram.gram = need("gram", k * k, Float64Array).slice();
      loc.gram.hb = need("gramHb", k, Float64Array).slice();
      loc.gram.updates = state.scalars.gramUpdates ?? 0;
      loc.gram.recomputes = state.scalars.gramRecomputes ?? 0;
    } else {
      loc.gram.recomputes = 0;
      loc.gram.recompute(p.h.data, p.bias.data, L);
    }
    if (t.labelPool !== undefined) {
      loc.pool = LabelPool.restore(
        need("labelPool", POOL_SIZE, Int32Array).slice(),
        state.scalars.labelPoolPos ?? 0,
        state.scalars.labelPoolSize ?? 0,
      );
    }
    loc.rowsSinceRefresh = state.scalars.refreshRowsSince ?? 0;
    loc.refreshes = state.scalars.refreshCount ?? 0;
  }
  return reservoir;
}
