/**
 * `tagstream eval` on labelled NDJSON events: each event's raw input (its text and features) is
 * scored by the model as `/predict` and the SDK score it, and its true labels are matched to the
 * model's by name (labels the model never saw are misses: never ranked).
 *
 * @module
 */
import { forEachLabelledEvent, type LabelledEvent } from "../../data/labelled_events.ts";
import { Evaluator } from "../../metrics/evaluate.ts";
import { propensities } from "../../metrics/propensity.ts";
import type { TopK } from "../../../sdk/mod.ts";
import type { Progress } from "../../progress/mod.ts";

/**
 * A model that scores an event's raw input: the scores of its `numLabels` labels.
 *
 * @example
 * ```ts
 * import type { EventScorer } from "./eval_events.ts";
 * const m: EventScorer = { numLabels: 1, labelName: () => "a", scoreEvent: () => Float32Array.of(1) };
 * console.log(m.labelName(0)); // a
 * ```
 */
export interface EventScorer {
  /** Its number of labels. */
  numLabels: number;
  /** The name of label `l`. */
  labelName(l: number): string;
  /** The scores of its labels for the event (throws a TypeError naming a bad field). */
  scoreEvent(e: LabelledEvent): Float32Array;
  /** The event's `n` best labels (its top-k search), as `scoreEvent` would rank them. */
  topOfEvent?(e: LabelledEvent, n: number): TopK;
}

/**
 * How often each label name is true in the labelled NDJSON events of `path` (`-`: stdin), and how
 * many events there are: the training counts of the propensities. The events are not kept.
 *
 * @throws {RangeError} when the file has no event; as `forEachLabelledEvent` for a bad one
 *
 * @example
 * ```ts
 * import { eventLabelCounts } from "./eval_events.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, '{"text": "a", "labels": ["x", "y"]}\n{"text": "b", "labels": ["x"]}\n');
 * const t = await eventLabelCounts(path);
 * console.log(t.rows, t.counts.get("x")); // 2 2
 * ```
 */
export async function eventLabelCounts(
  path: string,
): Promise<{ counts: Map<string, number>; rows: number }> {
  const counts = new Map<string, number>();
  const rows = await forEachLabelledEvent(path, (e) => {
    for (const n of e.labels) counts.set(n, (counts.get(n) ?? 0) + 1);
  }, path === "-" ? undefined : path);
  if (rows === 0) {
    throw new RangeError(`${path} has no events: no label frequencies for the propensities`);
  }
  return { counts, rows };
}

/**
 * The metrics of a model on a test set whose labels were matched to the model's by name.
 *
 * @example
 * ```ts
 * import type { MatchedMetrics } from "./eval_events.ts";
 * const r: MatchedMetrics = { rows: 1, metrics: { "P@1": 100 }, stdErr: { "P@1": 0 }, unknownLabels: 0 };
 * console.log(r.metrics["P@1"]); // 100
 * ```
 */
export interface MatchedMetrics {
  /** Test rows (events) evaluated. */
  rows: number;
  /** P@k, nDCG@k, PSP@k, PSnDCG@k (percent), AUCs and Hamming loss (fractions). */
  metrics: Record<string, number>;
  /** The standard errors of the ranking metrics over the rows. */
  stdErr: Record<string, number>;
  /** Test labels the model does not know (never ranked: misses). */
  unknownLabels: number;
}

/**
 * Options of {@linkcode evaluateEvents} (and of `evaluateByName` in `./eval.ts`).
 *
 * @example
 * ```ts
 * import type { MatchOptions } from "./eval_events.ts";
 * const o: MatchOptions = { k: 3, top: 10 };
 * console.log(o.top); // 10
 * ```
 */
export interface MatchOptions {
  /** Largest cut-off (default 5). */
  k?: number;
  /** The propensity model's A and B (default 0.55 and 1.5). */
  propensity?: { A: number; B: number };
  /**
   * Score each row's `top` best labels only, by the model's top-k search (at least `k`; see the
   * `top` option of `evaluateModel`). Default: every label.
   */
  top?: number;
  /** Progress reporter (one tick per row). */
  progress?: Progress;
}

/**
 * Evaluates `model` on labelled `events`: P@k, nDCG@k, PSP@k, PSnDCG@k (percent), AUCs, Hamming
 * loss, and the standard errors of the ranking metrics. Test labels are matched to the model's
 * labels by name; unknown ones are labels the model does not score (never ranked, misses).
 * Propensities use `train` (label name → count over `train.rows` events) when given, else the
 * test events' own label counts. An error scoring an event names its line and `source`. With
 * `options.top`, each event is scored by `model.topOfEvent(e, top)`: its `top` best labels only
 * (see the `top` option of `evaluateModel`).
 *
 * @throws {RangeError} when there is no event, or `top` is below `k`; {TypeError} naming the line
 *   of an event the model cannot score, or when `top` is given and the model has no `topOfEvent`
 *
 * @example
 * ```ts
 * import { evaluateEvents } from "./eval_events.ts";
 * // labels "a", "b"; the model always ranks "a" first
 * const model = { numLabels: 2, labelName: (l: number) => ["a", "b"][l],
 *   scoreEvent: () => Float32Array.of(1, 0) };
 * const events = [{ line: 1, text: "x", labels: ["a"] }, { line: 2, text: "y", labels: ["c"] }];
 * const r = evaluateEvents(model, events, "t.ndjson");
 * console.log(r.metrics["P@1"], r.unknownLabels); // 50 1
 * ```
 */
export function evaluateEvents(
  model: EventScorer,
  events: readonly LabelledEvent[],
  source: string,
  train?: { counts: ReadonlyMap<string, number>; rows: number },
  options: MatchOptions = {},
): MatchedMetrics {
  const { k = 5, propensity = { A: 0.55, B: 1.5 }, top, progress } = options;
  if (events.length === 0) throw new RangeError(`${source} has no events: nothing to evaluate`);
  if (top !== undefined) {
    if (!Number.isSafeInteger(top) || top < k) {
      throw new RangeError(`evaluateEvents: top must be an integer >= k (${k}), got ${top}`);
    }
    if (typeof model.topOfEvent !== "function") {
      throw new TypeError("evaluateEvents: top needs a model with topOfEvent");
    }
  }
  const byName = new Map<string, number>();
  for (let l = 0; l < model.numLabels; l++) byName.set(model.labelName(l), l);
  const modelLabels = byName.size;
  const rows = events.map((e) =>
    Int32Array.from(e.labels, (n) => {
      let l = byName.get(n);
      if (l === undefined) byName.set(n, l = model.numLabels + byName.size - modelLabels);
      return l;
    }).sort()
  );
  const numLabels = Math.max(1, model.numLabels + byName.size - modelLabels);
  const counts = new Float64Array(numLabels);
  if (train !== undefined) {
    for (const [n, c] of train.counts) {
      const l = byName.get(n);
      if (l !== undefined) counts[l] += c;
    }
  } else for (const r of rows) for (const l of r) counts[l]++;
  const ev = new Evaluator(numLabels, {
    propensities: propensities(
      counts,
      Math.max(1, train?.rows ?? events.length),
      propensity.A,
      propensity.B,
    ),
    k,
  });
  progress?.start(events.length, "evaluate");
  events.forEach((e, i) => {
    let s: Float32Array | TopK;
    try {
      s = top === undefined ? model.scoreEvent(e) : model.topOfEvent!(e, top);
    } catch (err) {
      if (!(err instanceof TypeError || err instanceof RangeError)) throw err;
      const T = err instanceof TypeError ? TypeError : RangeError;
      throw new T(`Cannot score line ${e.line} of ${source}: ${err.message}`);
    }
    if (s instanceof Float32Array) ev.addScores(s, rows[i], Math.min(model.numLabels, s.length));
    else ev.addSparseScores(s.labels, s.scores, rows[i]);
    progress?.tick();
  });
  progress?.done();
  return {
    rows: events.length,
    metrics: ev.result(),
    stdErr: ev.standardErrors(),
    unknownLabels: byName.size - modelLabels,
  };
}
