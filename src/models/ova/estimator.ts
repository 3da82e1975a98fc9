/**
 * Sparse one-vs-all logistic regression (or squared hinge) for extreme label spaces, learned one
 * event at a time at a cost that does not grow with the number of labels L or features D.
 *
 * Weights are feature-major ({@linkcode InvertedWeights}): a row's exact scores for every label
 * with a weight on one of its features come from one sweep of its features' label tables, and
 * every other label scores its bias. Each row (L2-normalised) then updates, by AdaGrad:
 * - its positive labels;
 * - its `hardNegatives` hard negatives: the best-scored labels it lacks, the labels that would
 *   wrongly top its ranking, among every label its features touch (scored exactly: mining them
 *   through a truncated index left labels whose mass was spread over many features unchecked, 55
 *   vs 66 P@1 on delicious) and the first 4 × `hardNegatives` labels in bias order (the others
 *   score their bias; the walk is bounded so that a row's cost does not grow with L, so an
 *   untouched label past them can be missed only when more than 3 × `hardNegatives` of the
 *   walked labels were touched or positive);
 * - `negatives` labels drawn by frequency (uniformly from the recent positives);
 * - with explicit negatives (`observed`), exactly the observed labels instead of the two above.
 * All of them are scored before any of them moves, like a minibatch of one row. A feature keeps
 * weights for at most `maxLabelsPerFeature` labels (past it the smallest quarter goes), so a
 * row costs at most non-zeros × that; past `maxWeights` in all, the smallest 40% go.
 *
 * `predictTopK` is exact: the labels a row's features touch score their sums, and every other
 * label its bias, which {@linkcode BiasHeap} walks best first until no untouched label can enter
 * the top k (`exact: true` and `predictScores` score every label, for checks). The model file is
 * `linear-sparse`, which the SDK answers the same way. Optional experience replay (`replay`,
 * `replayRatio`) re-learns rows from a bounded, seeded reservoir of earlier rows
 * (../../data/reservoir.ts).
 *
 * Why one file of more than 500 lines: it is one class, and every method — learning, exact
 * top-k, the model file, the replica and checkpoint deltas — reads the same private state
 * (weights, biases, AdaGrad sums, counts, change logs) that a split would have to expose. What
 * stands alone lives beside it: the weight blocks (inverted_weights.ts), the bias heap
 * (bias_heap.ts), the change logs (change_log.ts), the delta checks (delta_check.ts), the
 * settings (config.ts).
 *
 * @module
 */
import { checkK, checkRow, scoresOut } from "../query_check.ts";
import { checkBatch } from "../../data/batch_check.ts";
import { learnOneVia } from "../learn_one.ts";
import type { Batch, SparseVector } from "../../data/types.ts";
import type { Estimator, ModelFileOptions, ModelState, TopK } from "../estimator.ts";
import type { LabelWeights } from "../label_weights.ts";
import { type FeatureMajor, linearSparseFile } from "../linear_sparse_file.ts";
import { SmallRng } from "../../random/mod.ts";
import { OVA_SETTINGS, type OvaConfig } from "./config.ts";
import { spaceLimits, withoutLimits, withStoredLimits } from "../space_limits.ts";
import { InvertedWeights } from "./inverted_weights.ts";
import { BiasHeap } from "./bias_heap.ts";
import { RowReservoir } from "../../data/reservoir.ts";
import { ChangeLog } from "./change_log.ts";
import { checkDelta, type CheckedDelta, checkLearnerFields } from "./delta_check.ts";
import {
  type ArrayClass,
  checkCounts,
  checkFinite,
  checkGeneratorState,
  checkStateKind,
  checkSums,
  requireTensor,
} from "../state_check.ts";
import { FLOAT32_MAX, GRADIENT_LIMIT } from "../../optim/limits.ts";

/**
 * Counters of the learner's work, for benchmarks and `/metrics`.
 *
 * @example
 * ```ts
 * import type { OvaStats } from "./estimator.ts";
 * const s: OvaStats = { rows: 0, weights: 0, bytes: 0, prunes: 0, evictions: 0, labelUpdates: 0 };
 * console.log(s.rows); // 0
 * ```
 */
export interface OvaStats {
  /** Rows learned. */
  rows: number;
  /** Stored weights. */
  weights: number;
  /** Bytes held by weights and per-label arrays. */
  bytes: number;
  /** Times the memory budget dropped the smallest weights. */
  prunes: number;
  /** Weights dropped because their feature reached `maxLabelsPerFeature`. */
  evictions: number;
  /** Label updates (positive and negative) so far. */
  labelUpdates: number;
}

/**
 * The bias of a label never seen as a positive: below any learned score, so labels the stream
 * has not named (sizes given up front, or labels seen only as explicit negatives) never outrank
 * learned ones — in `predictScores`, an exact top-k and the model file alike. A label's first
 * positive resets its bias to `biasInit`. (With `biasInit` for them, the edge SDK, which scores
 * every label, ranked them first: P@1 92.9 against 98.4 on a 10⁵-label stream.)
 */
const UNSEEN_BIAS = -1000;

/** `fraction` when it is a number >= 0 (Infinity: any size), else a RangeError naming `what`. */
function checkFraction(fraction: number, what: string): number {
  if (!(typeof fraction === "number" && fraction >= 0)) {
    throw new RangeError(`${what} must be a number >= 0, got ${fraction}`);
  }
  return fraction;
}

/**
 * Puts label `l` of score `v` at the root of the min-heap `heap`/`hs[0, size)` (worst at the
 * root: the lower score, on a tie the larger label) and sifts it down to its place.
 */
function siftDown(
  heap: Int32Array,
  hs: Float64Array,
  size: number,
  l: number,
  v: number,
): void {
  let i = 0;
  for (;;) {
    const a = 2 * i + 1;
    if (a >= size) break;
    const b = a + 1;
    let m = a;
    if (b < size && (hs[b] < hs[a] || (hs[b] === hs[a] && heap[b] > heap[a]))) m = b;
    if (!(hs[m] < v || (hs[m] === v && heap[m] > l))) break;
    heap[i] = heap[m];
    hs[i] = hs[m];
    i = m;
  }
  heap[i] = l;
  hs[i] = v;
}

function sigmoid(s: number): number {
  return s >= 0 ? 1 / (1 + Math.exp(-s)) : Math.exp(s) / (1 + Math.exp(s));
}

/**
 * The sparse one-vs-all estimator (kind "ova"; see the module doc).
 *
 * @example
 * ```ts
 * import { OvaEstimator } from "./estimator.ts";
 * const m = new OvaEstimator({ seed: 1 });
 * const x = (j: number) => ({ indices: Int32Array.of(j), values: Float32Array.of(1) });
 * for (let i = 0; i < 50; i++) { m.learnOne(x(0), [3]); m.learnOne(x(1), [7]); }
 * console.log(m.numLabels, m.predictTopK(x(1), 1).labels[0]); // 8 7
 * ```
 */
export class OvaEstimator implements Estimator {
  /** Model family. */
  readonly kind = "ova";
  /** The resolved settings. */
  readonly config: OvaConfig;
  #w: InvertedWeights;
  #d = 0;
  #l = 0;
  #lCap = 0;
  #bias = new Float32Array(0);
  #biasSum = new Float32Array(0);
  #counts = new Float64Array(0);
  #window: Int32Array;
  #windowN = 0;
  #windowPos = 0;
  #biasHeap: BiasHeap;
  #rng: SmallRng;
  #reservoir: RowReservoir | undefined;
  #replayDebt = 0;
  #hinge: boolean;
  #rows = 0;
  #prunes = 0;
  #evictions = 0;
  #updates = 0;
  // scratch (not model state)
  #xi = new Int32Array(64);
  #xv = new Float64Array(64);
  #acc = new Float64Array(0);
  #stamp = new Int32Array(0);
  #touched = new Int32Array(0);
  #mark = 0;
  #pos = new Int32Array(0);
  #posMark = 0;
  #cand = new Int32Array(0);
  #candScore = new Float64Array(0);
  #upd = new Int32Array(0);
  #updScore = new Float64Array(0);
  // change logs (see beginReplicaDeltas and beginStateDeltas; none until then): the replica's,
  // the checkpoints', and the ones on (what #apply writes to)
  #replicaLog: ChangeLog | undefined;
  #stateLog: ChangeLog | undefined;
  #logs: ChangeLog[] = [];
  // in a replica: the replica-delta sequence number it is at; in a model restored from a state
  // delta chain: the chain's
  #dSeq = 0;
  #sSeq = 0;
  #isReplica = false;
  /**
   * A delta of more than this fraction of the full replica state's bytes is not worth sending:
   * {@linkcode OvaEstimator.toReplicaDelta} then asks for a full state (default 0.25).
   */
  replicaDeltaMaxFraction = 0.25;
  /** While a restore constructs its model (whose bias heap it builds afterwards). */
  static #restoring = false;
  /**
   * The largest state delta as a fraction of the full state's bytes:
   * {@linkcode OvaEstimator.toStateDelta} then asks for a full state (default 0.5).
   */
  stateDeltaMaxFraction = 0.5;

  /**
   * @param options settings ({@linkcode OvaOptions}) plus initial `numFeatures`/`numLabels`
   * @throws {TypeError|RangeError} for an unknown or invalid setting
   */
  constructor(options: Record<string, unknown> = {}) {
    // one resolve: the settings, and the initial sizes checked against their limits
    const resolved = OVA_SETTINGS.resolve(options) as Required<
      OvaConfig & { numFeatures: number; numLabels: number }
    >;
    const { numFeatures, numLabels, ...config } = resolved;
    spaceLimits("ova", resolved);
    this.config = config as OvaConfig;
    this.#hinge = this.config.loss === "squared-hinge";
    this.#w = new InvertedWeights();
    this.#biasHeap = new BiasHeap(this.#bias, 0);
    this.#window = new Int32Array(this.config.frequencyWindow);
    this.#rng = new SmallRng(this.config.seed ^ 0x5bd1e995);
    if (this.config.replay > 0) {
      this.#reservoir = new RowReservoir(this.config.replay, this.config.seed);
    }
    this.#grow(numFeatures, numLabels);
  }

  /** Current feature-space size. */
  get numFeatures(): number {
    return this.#d;
  }

  /** Current label-space size. */
  get numLabels(): number {
    return this.#l;
  }

  /** Work and memory counters. */
  get stats(): OvaStats {
    return {
      rows: this.#rows,
      weights: this.#w.size,
      bytes: this.#w.bytes + this.#biasHeap.bytes + this.#lCap * 20,
      prunes: this.#prunes,
      evictions: this.#evictions,
      labelUpdates: this.#updates,
    };
  }

  #grow(d: number, l: number): void {
    if (d > this.#d) {
      this.#w.ensureFeatures(d);
      this.#d = d;
    }
    if (l > this.#l) {
      if (l > this.#lCap) {
        let cap = Math.max(16, this.#lCap);
        while (cap < l) cap *= 2;
        const grow32 = (a: Float32Array, fill = 0) => {
          const b = new Float32Array(cap).fill(fill);
          b.set(a);
          return b;
        };
        this.#bias = grow32(this.#bias, UNSEEN_BIAS);
        this.#biasSum = grow32(this.#biasSum);
        const counts = new Float64Array(cap);
        counts.set(this.#counts);
        this.#counts = counts;
        this.#acc = new Float64Array(cap);
        this.#stamp = new Int32Array(cap);
        this.#touched = new Int32Array(cap);
        this.#pos = new Int32Array(cap);
        this.#mark = 0;
        this.#posMark = 0;
        this.#lCap = cap;
        for (const log of this.#logs) log.growLabels(cap);
      }
      // (a restore builds its heap afterwards, in steps)
      if (!OvaEstimator.#restoring) this.#biasHeap.grow(this.#bias, l);
      this.#l = l;
    }
  }

  /**
   * Copies row entries `[s, e)` into the scratch, L2-normalised when configured; features the
   * model does not know (only at prediction: learning grows the model first) are left out.
   */
  #load(indices: Int32Array, values: Float32Array, s: number, e: number): number {
    let n = e - s;
    if (n > this.#xi.length) {
      let cap = this.#xi.length;
      while (cap < n) cap *= 2;
      this.#xi = new Int32Array(cap);
      this.#xv = new Float64Array(cap);
    }
    const D = this.#d, xi = this.#xi, xv = this.#xv;
    let ss = 0;
    n = 0;
    for (let p = s; p < e; p++) {
      if (indices[p] >= D) continue;
      ss += values[p] * values[p];
      xi[n] = indices[p];
      xv[n++] = values[p];
    }
    if (this.config.l2Normalize) {
      const f = ss > 0 ? 1 / Math.sqrt(ss) : 0;
      for (let p = 0; p < n; p++) xv[p] *= f;
    }
    return n;
  }

  /**
   * Exact scores of the loaded row: `#acc[l]` for the `#touched` labels (returned count), whose
   * `#stamp` is the returned mark; every other label scores its bias.
   */
  #scoreRow(n: number): [number, number] {
    const mark = this.#nextMark();
    const t = this.#w.accumulate(
      this.#xi,
      this.#xv,
      n,
      this.#acc,
      this.#stamp,
      mark,
      this.#touched,
      0,
    );
    const acc = this.#acc, bias = this.#bias, touched = this.#touched;
    for (let q = 0; q < t; q++) acc[touched[q]] += bias[touched[q]];
    return [t, mark];
  }

  /** The score of label `l` after {@linkcode #scoreRow} returned `mark`. */
  #scoreOf(l: number, mark: number): number {
    return this.#stamp[l] === mark ? this.#acc[l] : this.#bias[l];
  }

  /**
   * The `size` best-scored labels of every label (touched ones by sum, others by bias), leaving out
   * labels whose `#pos` is `skipMark`, into `#cand`/`#candScore` (unordered; a min-heap).
   * Returns the count.
   */
  #best(t: number, mark: number, size: number, skipMark: number, walkLimit = Infinity): number {
    if (this.#cand.length < size + 1) {
      this.#cand = new Int32Array(size + 64);
      this.#candScore = new Float64Array(size + 64);
    }
    const heap = this.#cand, hs = this.#candScore, pos = this.#pos, touched = this.#touched;
    const acc = this.#acc, stamp = this.#stamp;
    if (size <= 0) return 0;
    let c = 0;
    // a min-heap of the best `size` (worst at the root); the root check rejects most labels
    const offer = (l: number, v: number): void => {
      if (c === size && (v < hs[0] || (v === hs[0] && l > heap[0]))) return;
      if (pos[l] === skipMark) return;
      if (c < size) {
        let i = c++;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (!(hs[parent] > v || (hs[parent] === v && heap[parent] < l))) break;
          heap[i] = heap[parent];
          hs[i] = hs[parent];
          i = parent;
        }
        heap[i] = l;
        hs[i] = v;
      } else siftDown(heap, hs, c, l, v);
    };
    for (let q = 0; q < t; q++) offer(touched[q], acc[touched[q]]);
    // every untouched label scores its bias: walk them best first, while one can still enter
    let walked = 0;
    this.#biasHeap.walk((l, b) => {
      if (c === size && (b < hs[0] || (b === hs[0] && l > heap[0]))) return false;
      if (stamp[l] !== mark) offer(l, b);
      return ++walked < walkLimit;
    });
    return c;
  }

  #nextMark(): number {
    if (this.#mark === 0x7fffffff) {
      this.#stamp.fill(0);
      this.#mark = 0;
    }
    return ++this.#mark;
  }

  #nextPosMark(): number {
    if (this.#posMark === 0x7fffffff) {
      this.#pos.fill(0);
      this.#posMark = 0;
    }
    return ++this.#posMark;
  }

  /**
   * Sorts `#cand[0, c)` by `#candScore` in place: decreasing, ties by smaller label. They are
   * {@linkcode #best}'s min-heap (worst at the root): a heapsort moves the worst to the end, in
   * O(c log c) (an insertion sort took 5.8 s for a top 60,000).
   */
  #sortCandidates(c: number): void {
    const cand = this.#cand, sc = this.#candScore;
    for (let end = c - 1; end > 0; end--) {
      const l = cand[end], v = sc[end];
      cand[end] = cand[0];
      sc[end] = sc[0];
      siftDown(cand, sc, end, l, v);
    }
  }

  /** The loss gradient of label `l` toward `target` (1 or 0) at score `s`. */
  #gradient(s: number, target: number): number {
    if (this.#hinge) {
      const yl = 2 * target - 1, z = yl * s;
      return z < 1 ? -2 * yl * (1 - z) : 0;
    }
    return sigmoid(s) - target;
  }

  /** Queues an update of label `l` at score `s` (applied once every score is known). */
  #queue(k: number, l: number, s: number): number {
    if (k >= this.#upd.length) {
      const n = Math.max(64, 2 * this.#upd.length);
      const u = new Int32Array(n), gg = new Float64Array(n);
      u.set(this.#upd);
      gg.set(this.#updScore);
      this.#upd = u;
      this.#updScore = gg;
    }
    this.#upd[k] = l;
    this.#updScore[k] = s;
    return k + 1;
  }

  /**
   * Applies the queued updates `[0, k)` (the first `positives` of them positive) by AdaGrad. A
   * positive creates the weights it lacks on the row's features; a negative does so only where
   * the model predicts it (score > 0: a false positive) and `negativeGrowth` is on — elsewhere
   * it moves the weights it has (on debrecs' validation split, growing on every negative gave
   * P@1 39.7 in 3.9 s, on false positives only 39.5 in 1.5 s, never 37.9 in 1.1 s).
   */
  #apply(k: number, positives: number, n: number): void {
    const w = this.#w, xi = this.#xi, xv = this.#xv, cfg = this.config;
    const lr = cfg.learningRate, g0 = cfg.adagradInit, cap = cfg.maxLabelsPerFeature;
    const growNeg = cfg.negativeGrowth, logs = this.#logs;
    this.#updates += k;
    // float32 state stays finite on any finite row (../../optim/limits.ts): each gradient is
    // clipped to ±GRADIENT_LIMIT and each AdaGrad sum saturates at the largest float32, so a step
    // moves a weight by at most lr (raw values near 1e20 used to make the sums Infinity, and the
    // weights stop learning). Ordinary gradients and sums are far below both: unchanged.
    const lim = GRADIENT_LIMIT, top = FLOAT32_MAX;
    for (let q = 0; q < k; q++) {
      const l = this.#upd[q], score = this.#updScore[q];
      let g = this.#gradient(score, q < positives ? 1 : 0);
      if (g === 0) continue;
      g = Math.min(Math.max(g, -lim), lim);
      const bs = Math.min(this.#biasSum[l] + g * g, top);
      this.#biasSum[l] = bs;
      // with adagradInit 0, a sum still 0 (a zero or underflowing gradient) takes no step:
      // lr·g/√0 was NaN (or ±Infinity), in the model and in every later state
      const bd = Math.sqrt(bs + g0);
      if (bd > 0) this.#bias[l] -= lr * g / bd;
      this.#biasHeap.update(l);
      for (let i = 0; i < logs.length; i++) logs[i].markLabel(l);
      const grow = q < positives || (growNeg && score > 0);
      for (let p = 0; p < n; p++) {
        const j = xi[p];
        let slot: number;
        if (grow) {
          if (w.countOf(j) >= cap && w.find(j, l) < 0) {
            this.#evictions += w.evictSmallest(j, 0.25);
            for (let i = 0; i < logs.length; i++) logs[i].markBlock(j);
          }
          slot = w.findOrInsert(j, l);
        } else {
          slot = w.find(j, l);
          if (slot < 0) continue;
        }
        const gj = Math.min(Math.max(g * xv[p], -lim), lim);
        const sum = Math.min(w.sums[slot] + gj * gj, top);
        w.sums[slot] = sum;
        // (a stored zero feature value made gj = 0: 0/√0 = NaN with adagradInit 0)
        const den = Math.sqrt(sum + g0);
        if (den > 0) w.weights[slot] -= lr * gj / den;
        for (let i = 0; i < logs.length; i++) {
          if (!logs[i].logEntry(j, l, slot, w) && !this.#growLog(logs[i], j, l, slot)) i--;
        }
      }
    }
  }

  /** Learns from a minibatch, row by row (grows to the batch's feature and label spaces). */
  learnMany(batch: Batch): void {
    const [maxF, maxL] = checkBatch(batch, "ova.learnMany", this.config);
    const { x } = batch;
    this.#grow(maxF, maxL);
    this.#learnRows(batch, true);
    const res = this.#reservoir;
    if (res) {
      // replay: round(replayRatio · rows) earlier rows (the fraction carries over), then the
      // new rows enter the reservoir
      this.#replayDebt += this.config.replayRatio * x.numRows;
      const r = Math.floor(this.#replayDebt);
      this.#replayDebt -= r;
      if (r > 0 && res.size > 0) this.#learnRows(res.sample(r), false);
      res.addRows(batch);
    }
  }

  #learnRows(batch: Batch, fresh: boolean): void {
    const { x } = batch, obs = batch.observed;
    for (let i = 0; i < x.numRows; i++) {
      // with a mask, a row is fully observed only where fullyObserved says so (Batch): an empty
      // mask row without it observes nothing, not every label as a negative
      const partial = obs !== undefined &&
        !(batch.fullyObserved !== undefined && batch.fullyObserved[i] === 1);
      this.#learnRow(batch, i, partial, fresh);
    }
  }

  #learnRow(batch: Batch, i: number, partial: boolean, fresh: boolean): void {
    const { x, y } = batch, cfg = this.config;
    const n = this.#load(x.indices, x.values, x.indptr[i], x.indptr[i + 1]);
    const [t, mark] = this.#scoreRow(n);
    const pm = this.#nextPosMark(), pos = this.#pos;
    const y0 = y.indptr[i], y1 = y.indptr[i + 1];
    let k = 0;
    for (let p = y0; p < y1; p++) {
      const l = y.indices[p];
      if (pos[l] === pm) continue; // a repeated label
      pos[l] = pm;
      if (this.#bias[l] === UNSEEN_BIAS) {
        this.#bias[l] = this.config.biasInit;
        this.#biasHeap.update(l);
        // logged here too: a zero gradient (a hinge margin met at biasInit ≥ 1, a saturated
        // sigmoid) skips the update below, and the replica kept the unseen bias
        for (let i = 0; i < this.#logs.length; i++) this.#logs[i].markLabel(l);
      }
      k = this.#queue(k, l, this.#scoreOf(l, mark));
    }
    const positives = k;
    if (partial) {
      const obs = batch.observed!;
      for (let p = obs.indptr[i]; p < obs.indptr[i + 1]; p++) {
        const l = obs.indices[p];
        if (pos[l] === pm) continue;
        pos[l] = pm;
        k = this.#queue(k, l, this.#scoreOf(l, mark));
      }
    } else {
      const c = this.#best(t, mark, cfg.hardNegatives, pm, 4 * cfg.hardNegatives);
      for (let q = 0; q < c; q++) {
        const l = this.#cand[q];
        pos[l] = pm;
        k = this.#queue(k, l, this.#candScore[q]);
      }
      const wn = this.#windowN;
      for (let r = 0; r < cfg.negatives && wn > 0; r++) {
        const l = this.#window[this.#rng.nextInt(wn)];
        if (pos[l] === pm) continue;
        pos[l] = pm;
        k = this.#queue(k, l, this.#scoreOf(l, mark));
      }
    }
    this.#apply(k, positives, n);
    if (!fresh) return;
    for (let q = 0; q < positives; q++) {
      const l = this.#upd[q];
      this.#counts[l]++;
      if (this.#stateLog !== undefined) this.#stateLog.markLabel(l);
      this.#window[this.#windowPos] = l;
      this.#windowPos = (this.#windowPos + 1) % this.#window.length;
      if (this.#windowN < this.#window.length) this.#windowN++;
    }
    this.#rows++;
    if (this.#w.size > cfg.maxWeights) this.#enforceBudget();
  }

  /**
   * Drops the smallest weights until 40% of the budget is free again (a compaction costs
   * O(weights), so it runs at most once per 0.4 · maxWeights new weights). The threshold is
   * exact (`thresholdKeeping`), so one compaction does it. (It used to be estimated from a sample
   * of the first features' weights and raised by 1.25× until enough went: at 10⁶ labels the first
   * budget left 0.9M of a 10M target, as many weights share a magnitude, after six compactions.)
   */
  #enforceBudget(): void {
    const w = this.#w, target = Math.floor(0.6 * this.config.maxWeights);
    w.prune(w.thresholdKeeping(target));
    this.#prunes++;
    // a global prune drops weights everywhere: a replica and a checkpoint need full states again
    while (this.#logs.length > 0) this.#stopLog(this.#logs[0]);
  }

  /** Learns from one example; `y` lists the positive labels. */
  learnOne(x: SparseVector, y: ArrayLike<number>): void {
    learnOneVia(this, x, y, "ova");
  }

  /** Exact scores of every label (O(L); for evaluation). */
  predictScores(x: SparseVector, out?: Float32Array): Float32Array {
    checkRow(x, "ova.predictScores");
    const L = this.#l;
    // the first L entries of a longer out (the rest were returned as label scores)
    const res = scoresOut(out, L, "ova.predictScores");
    const n = this.#load(x.indices, x.values, 0, x.indices.length);
    const [t] = this.#scoreRow(n);
    for (let l = 0; l < L; l++) res[l] = this.#bias[l];
    for (let q = 0; q < t; q++) res[this.#touched[q]] = this.#acc[this.#touched[q]];
    return res;
  }

  /**
   * The k best labels for `x`, exactly: its features' labels by score and the others walked in
   * bias order (`exact: true` scores every label instead, for checks). Ties: smaller label first.
   */
  predictTopK(x: SparseVector, k: number, options: { exact?: boolean } = {}): TopK {
    checkRow(x, "ova.predictTopK");
    checkK(k, "ova.predictTopK");
    const m0 = Math.min(k, this.#l);
    if (options.exact) {
      const s = this.predictScores(x);
      const order = Array.from({ length: this.#l }, (_, l) => l);
      order.sort((a, b) => s[b] - s[a] || a - b);
      const labels = Int32Array.from(order.slice(0, m0));
      return { labels, scores: Float32Array.from(labels, (l) => s[l]) };
    }
    const n = this.#load(x.indices, x.values, 0, x.indices.length);
    const [t, mark] = this.#scoreRow(n);
    const c = this.#best(t, mark, m0, -1);
    this.#sortCandidates(c);
    return {
      labels: this.#cand.slice(0, c),
      scores: Float32Array.from(this.#candScore.subarray(0, c), Math.fround),
    };
  }

  /** The weights as label-major sparse vectors (features increasing), with the biases. */
  toLabelWeights(): LabelWeights {
    const L = this.#l, f = this.toFeatureMajor();
    const labelPtr = new Int32Array(L + 1);
    const nnz = f.weights.length;
    for (let e = 0; e < nnz; e++) labelPtr[f.labelIdx[e] + 1]++;
    for (let l = 0; l < L; l++) labelPtr[l + 1] += labelPtr[l];
    const featIdx = new Int32Array(nnz), values = new Float32Array(nnz);
    const next = labelPtr.slice(0, L);
    // features in increasing order, so each label's features come out increasing
    for (let j = 0; j < this.#d; j++) {
      for (let e = f.featPtr[j]; e < f.featPtr[j + 1]; e++) {
        const q = next[f.labelIdx[e]]++;
        featIdx[q] = j;
        values[q] = f.weights[e];
      }
    }
    return {
      numFeatures: this.#d,
      numLabels: L,
      labelPtr,
      featIdx,
      values,
      bias: this.#bias.slice(0, L),
    };
  }

  /**
   * The non-zero weights feature-major, labels increasing within each feature (the
   * `linear-sparse` layout), read straight from the blocks: no transpose.
   */
  toFeatureMajor(): FeatureMajor {
    const D = this.#d, w = this.#w, ws = w.weights, ks = w.keys;
    const featPtr = new Int32Array(D + 1);
    for (let j = 0; j < D; j++) {
      const s = w.blockStart(j);
      let c = 0;
      if (s >= 0) { for (let e = s; e < s + w.countOf(j); e++) if (ws[e] !== 0) c++; }
      featPtr[j + 1] = featPtr[j] + c;
    }
    const nnz = featPtr[D];
    const labelIdx = new Int32Array(nnz), weights = new Float32Array(nnz);
    let keysBuf = new Float64Array(64);
    for (let j = 0; j < D; j++) {
      const s = w.blockStart(j), n = featPtr[j + 1] - featPtr[j];
      if (n === 0) continue;
      if (keysBuf.length < n) keysBuf = new Float64Array(2 * n);
      // sort the block's (label, slot) pairs by label: label · 2^24 + offset fits a float64
      let q = 0;
      for (let e = s; e < s + w.countOf(j); e++) {
        if (ws[e] !== 0) keysBuf[q++] = ks[e] * 16777216 + (e - s);
      }
      let sorted: Float64Array = keysBuf;
      if (n > 24) sorted = keysBuf.subarray(0, n).sort();
      else {
        for (let a = 1; a < n; a++) { // small blocks: insertion sort, no allocation
          const v = keysBuf[a];
          let b = a - 1;
          while (b >= 0 && keysBuf[b] > v) {
            keysBuf[b + 1] = keysBuf[b];
            b--;
          }
          keysBuf[b + 1] = v;
        }
      }
      const out = featPtr[j];
      for (let r = 0; r < n; r++) {
        const key = sorted[r], l = Math.floor(key / 16777216);
        labelIdx[out + r] = l;
        weights[out + r] = ws[s + (key - l * 16777216)];
      }
    }
    return { featPtr, labelIdx, weights };
  }

  /** Inference-only `linear-sparse` model file (the SDK scores every label exactly). */
  toModelFile(options: ModelFileOptions = {}): Uint8Array {
    return linearSparseFile(
      this.toFeatureMajor(),
      this.#d,
      this.#l,
      this.#bias.slice(0, this.#l),
      options,
      {
        where: "ova.toModelFile",
        meta: { trainer: "ova", ...withoutLimits(this.config), rows: this.#rows },
        normalizes: this.config.l2Normalize,
      },
    );
  }

  /**
   * Starts (or restarts) logging what learning changes, for
   * {@linkcode OvaEstimator.toReplicaDelta} (a {@linkcode ChangeLog}): the (feature, label)
   * weights `#apply` writes (O(1) each: a bit per weight slot says it is logged already), the
   * labels whose bias moved, the features whose block lost entries to the per-feature cap (sent
   * whole). Take the replica's full state ({@linkcode OvaEstimator.toReplicaState}) right after
   * this call: the deltas apply to it. Nothing is logged (and nothing costs) before the first
   * call.
   *
   * @example
   * ```ts
   * import { OvaEstimator } from "./estimator.ts";
   * const m = new OvaEstimator({ seed: 1 });
   * m.replicaDeltaMaxFraction = 1; // a tiny model: any delta is a good part of it
   * const x = { indices: Int32Array.of(0, 3), values: Float32Array.of(1, 1) };
   * m.learnOne(x, [2]);
   * m.beginReplicaDeltas();
   * const replica = OvaEstimator.restore(m.toReplicaState());
   * m.learnOne(x, [5]);
   * replica.applyReplicaDelta(m.toReplicaDelta()!);
   * console.log(replica.predictScores(x).join() === m.predictScores(x).join()); // true
   * ```
   */
  beginReplicaDeltas(): void {
    this.#replicaLog = this.#startLog(this.#replicaLog);
    this.#dSeq++;
  }

  /**
   * Starts (or restarts) logging what learning changes for
   * {@linkcode OvaEstimator.toStateDelta} (incremental checkpoints), independently of the
   * replica's log. Take the full state ({@linkcode OvaEstimator.toState}) right after this
   * call: the state deltas apply, in order, to a model restored from it.
   *
   * @example
   * ```ts
   * import { OvaEstimator } from "./estimator.ts";
   * const m = new OvaEstimator({ seed: 1 });
   * const x = { indices: Int32Array.of(0, 3), values: Float32Array.of(1, 1) };
   * m.learnOne(x, [2]);
   * m.beginStateDeltas();
   * const copy = OvaEstimator.restore(m.toState());
   * m.learnOne(x, [5]);
   * copy.applyStateDelta(m.toStateDelta(1)!);
   * m.learnOne(x, [2]);
   * copy.learnOne(x, [2]); // learns on exactly as the original
   * console.log(copy.predictScores(x).join() === m.predictScores(x).join()); // true
   * ```
   */
  beginStateDeltas(): void {
    this.#stateLog = this.#startLog(this.#stateLog);
    this.#sSeq++;
  }

  #startLog(old: ChangeLog | undefined): ChangeLog {
    const log = old ?? new ChangeLog(this.#lCap);
    log.reset();
    if (!this.#logs.includes(log)) this.#logs.push(log);
    return log;
  }

  /** Stops a log (a full state is needed next by its reader). */
  #stopLog(log: ChangeLog): void {
    const i = this.#logs.indexOf(log);
    if (i >= 0) this.#logs.splice(i, 1);
    if (log === this.#replicaLog) this.#replicaLog = undefined;
    if (log === this.#stateLog) this.#stateLog = undefined;
  }

  /**
   * A full log: grows it and logs the write, or, when its delta would be too big already (a
   * full state is cheaper), stops it and returns false.
   */
  #growLog(log: ChangeLog, j: number, l: number, slot: number): boolean {
    if (log.size >= this.#maxEntries(log)) {
      this.#stopLog(log);
      return false;
    }
    log.grow();
    return log.logEntry(j, l, slot, this.#w);
  }

  /** Entries a log may hold before its delta would be too big (then a full state is cheaper). */
  #maxEntries(log: ChangeLog): number {
    return log === this.#replicaLog
      ? this.replicaDeltaMaxFraction * this.#replicaBytes() / 12
      : this.stateDeltaMaxFraction * this.#stateBytes() / 16;
  }

  /** Bytes of the full replica state (as {@linkcode OvaEstimator.toReplicaState} makes it). */
  #replicaBytes(): number {
    return 8 * this.#w.size + 5 * this.#d + 4 + 4 * this.#l;
  }

  /** Bytes of the full state's weights and per-label arrays (as `toState` makes them). */
  #stateBytes(): number {
    return 12 * this.#w.size + 5 * this.#d + 4 + 16 * this.#l;
  }

  /**
   * The weights, blocks and labels a log holds (current values; with `state`, their AdaGrad
   * sums and the labels' counts too), as delta tensors; clears the log. `undefined` (the log
   * untouched) when they would take more than `maxBytes`.
   */
  #deltaTensors(
    log: ChangeLog,
    state: boolean,
    maxBytes: number,
  ): ModelState["tensors"] | undefined {
    const slots = log.compact(this.#w);
    const w = this.#w;
    // whole blocks (features increasing), through a one-feature sweep for their labels
    const blockFeatures = log.markedBlocks();
    const nb = blockFeatures.length;
    const blockPtr = new Int32Array(nb + 1);
    let be = 0;
    for (let b = 0; b < nb; b++) {
      if (blockFeatures[b] < this.#d) be += w.countOf(blockFeatures[b]);
      blockPtr[b + 1] = be;
    }
    const n = log.size, nBias = log.labelCount;
    const bytes = state
      ? 16 * n + 12 * be + 8 * nb + 4 + 20 * nBias + 4 * this.#windowN
      : 12 * n + 8 * be + 8 * nb + 4 + 8 * nBias;
    if (bytes > maxBytes) return undefined;
    const blockLabels = new Int32Array(be), blockWeights = new Float32Array(be);
    const blockSums = state ? new Float32Array(be) : undefined;
    const one = Float64Array.of(1), idx = new Int32Array(1);
    for (let b = 0; b < nb; b++) {
      const j = blockFeatures[b];
      if (blockPtr[b + 1] === blockPtr[b]) continue;
      idx[0] = j;
      const mark = this.#nextMark();
      const t = w.accumulate(idx, one, 1, this.#acc, this.#stamp, mark, this.#touched, 0);
      for (let q = 0; q < t; q++) {
        const l = this.#touched[q], e = blockPtr[b] + q, slot = w.find(j, l);
        blockLabels[e] = l;
        blockWeights[e] = w.weights[slot];
        if (blockSums) blockSums[e] = w.sums[slot];
      }
    }
    const entryFeatures = log.features.slice(), entryLabels = log.labels.slice();
    const entryWeights = new Float32Array(n), entrySums = state ? new Float32Array(n) : undefined;
    for (let i = 0; i < n; i++) {
      entryWeights[i] = w.weights[slots[i]];
      if (entrySums) entrySums[i] = w.sums[slots[i]];
    }
    const biasLabels = log.takeLabels(), biasValues = new Float32Array(nBias);
    for (let i = 0; i < nBias; i++) biasValues[i] = this.#bias[biasLabels[i]];
    log.clear();
    const tensors: ModelState["tensors"] = {
      entryFeatures,
      entryLabels,
      entryWeights,
      blockFeatures,
      blockPtr,
      blockLabels,
      blockWeights,
      biasLabels,
      biasValues,
    };
    if (state) {
      const biasSums = new Float32Array(nBias), counts = new Float64Array(nBias);
      for (let i = 0; i < nBias; i++) {
        biasSums[i] = this.#biasSum[biasLabels[i]];
        counts[i] = this.#counts[biasLabels[i]];
      }
      Object.assign(tensors, {
        entrySums: entrySums!,
        blockSums: blockSums!,
        biasSums,
        counts,
        window: this.#window.slice(0, this.#windowN),
      });
      if (this.#reservoir) Object.assign(tensors, this.#reservoir.toState().tensors);
    }
    return tensors;
  }

  /**
   * What changed since {@linkcode OvaEstimator.beginReplicaDeltas} or the previous delta, as a
   * state that {@linkcode OvaEstimator.applyReplicaDelta} applies to a replica (fresh arrays the
   * caller owns): `scalars.delta = 1`, the sizes and counters, `deltaBase`/`deltaSeq` (the
   * replica must be at `deltaBase`); tensors `entryFeatures`/`entryLabels`/`entryWeights`
   * (current weights of the written (feature, label) pairs), `blockFeatures`/`blockPtr`/
   * `blockLabels`/`blockWeights` (whole blocks of the features that lost entries to the
   * per-feature cap, increasing) and `biasLabels`/`biasValues`. Clears the log.
   *
   * Returns `undefined` — and stops logging until the next `beginReplicaDeltas()` — when a full
   * {@linkcode OvaEstimator.toReplicaState} is needed: logging was never begun, a global prune
   * (the `maxWeights` budget) ran, or the delta would exceed `replicaDeltaMaxFraction` (a
   * quarter) of the full replica state's bytes.
   *
   * @throws {RangeError} when `replicaDeltaMaxFraction` is not a number >= 0 (NaN took any size)
   *
   * @example
   * ```ts
   * import { OvaEstimator } from "./estimator.ts";
   * const m = new OvaEstimator({ seed: 1, numFeatures: 1000 });
   * for (let j = 0; j < 1000; j++) m.learnOne({ indices: Int32Array.of(j), values: Float32Array.of(1) }, [j % 50]);
   * m.beginReplicaDeltas();
   * m.learnOne({ indices: Int32Array.of(7), values: Float32Array.of(1) }, [3]);
   * const d = m.toReplicaDelta()!;
   * console.log(d.scalars.delta, d.tensors.entryFeatures.length > 0, m.toReplicaDelta()!.tensors.entryFeatures.length); // 1 true 0
   * ```
   */
  toReplicaDelta(): ModelState | undefined {
    const where = "ova.toReplicaDelta: replicaDeltaMaxFraction";
    const fraction = checkFraction(this.replicaDeltaMaxFraction, where);
    const log = this.#replicaLog;
    if (log === undefined) return undefined;
    const tensors = this.#deltaTensors(log, false, fraction * this.#replicaBytes());
    if (tensors === undefined) {
      this.#stopLog(log);
      return undefined;
    }
    const scalars: Record<string, number> = {
      delta: 1,
      deltaBase: this.#dSeq,
      deltaSeq: this.#dSeq + 1,
      ...this.#counters(),
    };
    this.#dSeq++;
    return { kind: "ova", config: {}, scalars, tensors };
  }

  /**
   * What changed since {@linkcode OvaEstimator.beginStateDeltas} or the previous state delta,
   * for an incremental checkpoint: everything {@linkcode OvaEstimator.applyStateDelta} needs to
   * bring a model restored from the `toState()` taken at `beginStateDeltas()` (and the state
   * deltas since) to exactly this model's state, so that it learns on bit for bit as this one
   * would: the replica delta's tensors, plus the AdaGrad sums of the weights and labels that
   * changed, those labels' counts, the frequency window, the replay reservoir (whole: bounded)
   * and the generators' states (`scalars.delta = 2`). Clears the log.
   *
   * Returns `undefined` — and stops logging until the next `beginStateDeltas()` — when a full
   * state is needed: logging was never begun, a global prune ran, or the delta would exceed
   * `maxFraction` (default `stateDeltaMaxFraction`, a half) of the full state's bytes. The log
   * itself stops at `stateDeltaMaxFraction` of the state: for larger deltas, raise that before
   * the changes (a larger `maxFraction` alone gives no delta the log did not keep).
   *
   * @throws {RangeError} when `maxFraction` is not a number >= 0 (NaN took any size, a negative
   * one none)
   *
   * @example
   * ```ts
   * import { OvaEstimator } from "./estimator.ts";
   * const m = new OvaEstimator({ seed: 1 });
   * m.beginStateDeltas();
   * m.learnOne({ indices: Int32Array.of(7), values: Float32Array.of(1) }, [3]);
   * const d = m.toStateDelta(1)!;
   * console.log(d.scalars.delta, d.tensors.biasLabels.includes(3)); // 2 true
   * ```
   */
  toStateDelta(maxFraction: number = this.stateDeltaMaxFraction): ModelState | undefined {
    checkFraction(maxFraction, "ova.toStateDelta: maxFraction");
    const log = this.#stateLog;
    if (log === undefined) return undefined;
    const tensors = this.#deltaTensors(log, true, maxFraction * this.#stateBytes());
    if (tensors === undefined) {
      this.#stopLog(log);
      return undefined;
    }
    const scalars: Record<string, number> = {
      delta: 2,
      deltaBase: this.#sSeq,
      deltaSeq: this.#sSeq + 1,
      ...this.#counters(),
      windowPos: this.#windowPos,
      rng: this.#rng.state,
      replayDebt: this.#replayDebt,
    };
    if (this.#reservoir) {
      const r = this.#reservoir.toState().scalars;
      scalars.reservoirSeen = r.seen;
      scalars.reservoirRng = r.rngState;
    }
    this.#sSeq++;
    return { kind: "ova", config: {}, scalars, tensors };
  }

  /** `rows`, `prunes`, `evictions`, `updates`: the counters a delta may not go below. */
  #counterValues(): number[] {
    return [this.#rows, this.#prunes, this.#evictions, this.#updates];
  }

  #counters(): Record<string, number> {
    return {
      numFeatures: this.#d,
      numLabels: this.#l,
      rows: this.#rows,
      prunes: this.#prunes,
      evictions: this.#evictions,
      updates: this.#updates,
    };
  }

  /**
   * Applies a {@linkcode OvaEstimator.toReplicaDelta} to this replica (restored from
   * `toReplicaState()`) in place: it then predicts exactly like the learner did when it made
   * the delta (bit-identical scores). The delta is checked before anything changes.
   *
   * @throws {TypeError} when the delta is not an "ova" delta or this is not a replica
   * @throws {RangeError} naming the problem when the delta does not fit (wrong base, sizes
   * shrinking, bad tensor types or lengths, indices out of range, a label twice in a block)
   */
  applyReplicaDelta(delta: ModelState): void {
    const where = "ova.applyReplicaDelta";
    if (!this.#isReplica) throw new TypeError(`${where}: this model is not a replica`);
    const d = checkDelta(
      delta,
      this.#d,
      this.#l,
      this.#dSeq,
      this.config,
      false,
      where,
      this.#counterValues(),
    );
    this.#applyDelta(d);
    this.#dSeq = d.seq;
  }

  /**
   * Applies a {@linkcode OvaEstimator.toStateDelta} to this model (restored from the `toState()`
   * taken at `beginStateDeltas()`, and the state deltas before this one) in place: it then is
   * the model that made the delta, and learns on exactly as it would. The delta is checked
   * before anything changes.
   *
   * @example
   * ```ts
   * import { OvaEstimator } from "./estimator.ts";
   * const m = new OvaEstimator({ seed: 1 });
   * m.beginStateDeltas();
   * const copy = OvaEstimator.restore(m.toState());
   * m.learnOne({ indices: Int32Array.of(7), values: Float32Array.of(1) }, [3]);
   * copy.applyStateDelta(m.toStateDelta(1)!);
   * console.log(copy.numLabels, copy.predictTopK({ indices: Int32Array.of(7), values: Float32Array.of(1) }, 1).labels[0]); // 4 3
   * ```
   *
   * @throws {TypeError} when the delta is not an "ova" delta or this is a replica
   * @throws {RangeError} naming the problem when the delta does not fit (wrong base, sizes
   * shrinking, bad tensor types or lengths, indices out of range, a label twice in a block)
   */
  applyStateDelta(delta: ModelState): void {
    const where = "ova.applyStateDelta";
    if (this.#isReplica) throw new TypeError(`${where}: this model is a replica`);
    const d = checkDelta(
      delta,
      this.#d,
      this.#l,
      this.#sSeq,
      this.config,
      true,
      where,
      this.#counterValues(),
    );
    const sc = delta.scalars;
    const win = d.window!;
    const replay = this.config.replay > 0;
    checkLearnerFields(
      sc,
      delta.tensors,
      d.numFeatures,
      d.numLabels,
      this.#window.length,
      replay,
      where,
    );
    const reservoir = this.config.replay > 0
      ? RowReservoir.fromState(
        this.config.replay,
        this.config.seed,
        { seen: sc.reservoirSeen, rngState: sc.reservoirRng },
        delta.tensors,
        where,
      )
      : undefined;
    this.#applyDelta(d);
    const w = this.#w;
    for (let i = 0; i < d.entryFeatures.length; i++) {
      w.sums[w.find(d.entryFeatures[i], d.entryLabels[i])] = d.entrySums![i];
    }
    for (let b = 0; b < d.blockFeatures.length; b++) {
      const j = d.blockFeatures[b];
      for (let e = d.blockPtr[b]; e < d.blockPtr[b + 1]; e++) {
        w.sums[w.find(j, d.blockLabels[e])] = d.blockSums![e];
      }
    }
    for (let i = 0; i < d.biasLabels.length; i++) {
      this.#biasSum[d.biasLabels[i]] = d.biasSums![i];
      this.#counts[d.biasLabels[i]] = d.counts![i];
    }
    this.#window.set(win);
    this.#windowN = win.length;
    this.#windowPos = sc.windowPos;
    this.#rng.state = sc.rng;
    this.#replayDebt = sc.replayDebt;
    if (reservoir) this.#reservoir = reservoir;
    this.#sSeq = d.seq;
  }

  /** Writes a checked delta's weights and biases (blocks first: whole, in their order). */
  #applyDelta(d: CheckedDelta): void {
    this.#grow(d.numFeatures, d.numLabels);
    const w = this.#w, bf = d.blockFeatures, bp = d.blockPtr;
    for (let b = 0; b < bf.length; b++) {
      const j = bf[b];
      w.evictSmallest(j, 1); // all of them, whatever their values
      for (let e = bp[b]; e < bp[b + 1]; e++) {
        const slot = w.findOrInsert(j, d.blockLabels[e]);
        w.weights[slot] = d.blockWeights[e];
      }
    }
    for (let i = 0; i < d.entryFeatures.length; i++) {
      const slot = w.findOrInsert(d.entryFeatures[i], d.entryLabels[i]);
      w.weights[slot] = d.entryWeights[i];
    }
    for (let i = 0; i < d.biasLabels.length; i++) {
      this.#bias[d.biasLabels[i]] = d.biasValues[i];
      this.#biasHeap.update(d.biasLabels[i]);
    }
    [this.#rows, this.#prunes, this.#evictions, this.#updates] = d.counters;
  }

  #state(replica: boolean): ModelState {
    const L = this.#l;
    const c = this.#w.toCompact(!replica);
    const tensors: ModelState["tensors"] = {
      featPtr: c.ptr,
      labels: c.keys,
      weights: c.weights,
      tableLogs: c.logs,
      bias: this.#bias.slice(0, L),
    };
    if (!replica) {
      tensors.sums = c.sums!;
      tensors.biasSums = this.#biasSum.slice(0, L);
      tensors.counts = this.#counts.slice(0, L);
      tensors.window = this.#window.slice(0, this.#windowN);
      if (this.#reservoir) Object.assign(tensors, this.#reservoir.toState().tensors);
    }
    const scalars: Record<string, number> = {
      numFeatures: this.#d,
      numLabels: L,
      rows: this.#rows,
      prunes: this.#prunes,
      evictions: this.#evictions,
      updates: this.#updates,
      windowPos: this.#windowPos,
      rng: this.#rng.state,
      replayDebt: this.#replayDebt,
    };
    if (this.#reservoir && !replica) {
      const r = this.#reservoir.toState().scalars;
      scalars.reservoirSeen = r.seen;
      scalars.reservoirRng = r.rngState;
    }
    if (replica) {
      scalars.replica = 1;
      scalars.deltaSeq = this.#dSeq;
    } else if (this.#sSeq > 0) scalars.stateSeq = this.#sSeq;
    return { kind: "ova", config: { ...this.config }, scalars, tensors };
  }

  /** Full training state (copies). */
  toState(): ModelState {
    return this.#state(false);
  }

  /**
   * The state of a prediction replica: weights and biases (no AdaGrad
   * sums, counts, sampling window or replay rows). Restored, it predicts exactly like this model
   * and writes the same model file.
   *
   * @example
   * ```ts
   * import { OvaEstimator } from "./estimator.ts";
   * const m = new OvaEstimator();
   * m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [1]);
   * const r = OvaEstimator.restore(m.toReplicaState());
   * console.log(r.predictTopK({ indices: Int32Array.of(0), values: Float32Array.of(1) }, 1).labels[0]); // 1
   * ```
   */
  toReplicaState(): ModelState {
    return this.#state(true);
  }

  /**
   * Rebuilds a model from {@linkcode OvaEstimator.toState} bit for bit (or a predict-only
   * replica from {@linkcode OvaEstimator.toReplicaState}: learning on from it starts the
   * AdaGrad sums afresh). Every value is checked before the model takes it.
   *
   * @throws {TypeError} when the state is not an "ova" state (or a field has the wrong type)
   * @throws {RangeError} naming the field when its arrays do not fit together or hold a value
   * the learner never writes (a weight or bias that is not finite, a negative or NaN AdaGrad
   * sum, a count that is not a non-negative integer, a window label or a replay row past the
   * model's labels or features, a generator state or `windowPos` out of range)
   */
  static restore(state: ModelState): OvaEstimator {
    const steps = OvaEstimator.restoreSteps(state, Infinity);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }

  /**
   * {@linkcode OvaEstimator.restore} in steps: the generator yields after about `step` values
   * checked or weights placed, and returns the same model (the state's arrays must not change
   * meanwhile). The serving thread rebuilds its replica this way, a few steps at a time, so
   * that `/predict` is answered between them (at 10⁶ labels a restore took 0.4-2.7 s in one go).
   *
   * @throws {TypeError|RangeError} (from `next()`) as {@linkcode OvaEstimator.restore} does
   *
   * @example
   * ```ts
   * import { OvaEstimator } from "./estimator.ts";
   * const m = new OvaEstimator({ seed: 1 });
   * const x = { indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
   * for (let i = 0; i < 20; i++) m.learnOne(x, [i % 4]);
   * const steps = OvaEstimator.restoreSteps(m.toReplicaState(), 2);
   * let r = steps.next(), yields = 0;
   * for (; !r.done; r = steps.next()) yields++;
   * console.log(yields > 1, r.value.predictScores(x).join() === m.predictScores(x).join()); // true true
   * ```
   */
  static *restoreSteps(state: ModelState, step = 1 << 16): Generator<void, OvaEstimator, void> {
    const where = "ova.restore";
    let work = 0;
    checkStateKind(state, "ova", where);
    // (a state without scalars or tensors is refused naming the first one missing)
    const sc = state.scalars ?? {};
    const size = (name: string): number => {
      const v = sc[name];
      if (!Number.isInteger(v) || v < 0) {
        throw new RangeError(`${where}: scalar ${name} must be a non-negative integer, got ${v}`);
      }
      return v;
    };
    const D = size("numFeatures"), L = size("numLabels");
    let m: OvaEstimator;
    OvaEstimator.#restoring = true;
    try {
      m = new OvaEstimator({ ...withStoredLimits(state.config), numFeatures: D, numLabels: L });
    } finally {
      OvaEstimator.#restoring = false;
    }
    yield;
    const replica = sc.replica === 1;
    const t = state.tensors ?? {};
    const take = <T extends ArrayLike<number>>(
      name: string,
      type: ArrayClass<T>,
      len?: number,
      lenOf?: string,
    ) => requireTensor(t, name, type, where, len, lenOf);
    // every value is checked before the model takes any (the rules of the deltas'
    // ./delta_check.ts and ../state_check.ts): a NaN weight or bias, a negative sum, a window
    // label past the labels or a replay row past the features is refused, not served or learned
    const featPtr = take("featPtr", Int32Array, D + 1);
    // labels, weights and sums hold one entry per stored weight (InvertedWeights.fromCompact
    // checks the pointer in full)
    const nnz = Math.max(0, featPtr[D]), nnzOf = `featPtr[${D}] = ${featPtr[D]}`;
    const labels = take("labels", Int32Array, nnz, nnzOf);
    for (let e = 0; e < labels.length; e++) {
      if (labels[e] >= L) throw new RangeError(`${where}: label ${labels[e]} >= ${L}`);
      if (++work >= step) {
        work = 0;
        yield;
      }
    }
    const weights = take("weights", Float32Array, nnz, nnzOf);
    for (let e = 0; e < weights.length; e++) {
      // (the first one that is not names itself)
      if (!Number.isFinite(weights[e])) checkFinite(weights, "weights", where);
      if (++work >= step) {
        work = 0;
        yield;
      }
    }
    const sums = replica ? undefined : take("sums", Float32Array, nnz, nnzOf);
    if (sums) checkSums(sums, "sums", where);
    const bias = take("bias", Float32Array, L);
    checkFinite(bias, "bias", where);
    let biasSums: Float32Array | undefined, counts: Float64Array | undefined;
    if (!replica) {
      biasSums = take("biasSums", Float32Array, L);
      checkSums(biasSums, "biasSums", where);
      counts = take("counts", Float64Array, L);
      checkCounts(counts, "counts", where);
      checkLearnerFields(sc, t, D, L, m.#window.length, m.config.replay > 0, where);
    } else {
      if (!(sc.replayDebt >= 0 && sc.replayDebt < 1)) {
        throw new RangeError(`${where}: replayDebt ${sc.replayDebt}`);
      }
      checkGeneratorState(sc, "rng", where);
    }
    const counters = ["rows", "prunes", "evictions", "updates"].map(size);
    const windowPos = size("windowPos");
    const seq = replica
      ? (sc.deltaSeq === undefined ? 0 : size("deltaSeq"))
      : (sc.stateSeq === undefined ? 0 : size("stateSeq"));
    // a block grows only while it holds fewer than maxLabelsPerFeature labels: a larger size is
    // no learner's (one byte of tableLogs up to 29 allocated 2^29 slots, gigabytes)
    const logs = take("tableLogs", Uint8Array, D);
    const cap = m.config.maxLabelsPerFeature, maxLog = 32 - Math.clz32(cap - 1);
    for (let j = 0; j < D; j++) {
      if (logs[j] > maxLog) {
        throw new RangeError(
          `${where}: tableLogs[${j}] = ${logs[j]} is above ${maxLog} (maxLabelsPerFeature ${cap})`,
        );
      }
      if (++work >= step) {
        work = 0;
        yield;
      }
    }
    // (a replica's pools with a quarter free: its deltas then grow none for a while)
    m.#w = yield* InvertedWeights.fromCompactSteps(
      featPtr,
      labels,
      weights,
      sums,
      logs,
      step,
      replica ? 0.25 : 0,
    );
    m.#bias.set(bias);
    m.#biasHeap = yield* BiasHeap.buildSteps(m.#bias, L, step);
    if (!replica) {
      m.#biasSum.set(biasSums!);
      m.#counts.set(counts!);
      const win = t.window as Int32Array;
      m.#window.set(win);
      m.#windowN = win.length;
      if (m.config.replay > 0) {
        m.#reservoir = RowReservoir.fromState(
          m.config.replay,
          m.config.seed,
          { seen: sc.reservoirSeen, rngState: sc.reservoirRng },
          t,
          where,
        );
      }
    }
    m.#replayDebt = sc.replayDebt;
    [m.#rows, m.#prunes, m.#evictions, m.#updates] = counters;
    // a replica holds no window: learning on from it fills a fresh one from slot 0 (the
    // learner's position made it sample the empty slots before it, label 0, as negatives)
    m.#windowPos = replica ? 0 : windowPos;
    m.#rng.state = sc.rng;
    m.#isReplica = replica;
    if (replica) m.#dSeq = seq;
    else m.#sSeq = seq;
    return m;
  }
}
