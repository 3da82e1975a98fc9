/**
 * The service's {@linkcode GrowthLimits} at work: a parse runs with the vocabularies capped as
 * the limits ask (a line that would add too many names is refused by the vocabulary's own room
 * check, before anything grows), and index-key growth is checked on its result (a refusal then
 * takes back the names the parse added), with errors naming the flag; and
 * {@linkcode GrowthRefusalLog}, which tells the operator on the service's log about the events
 * the limits refuse.
 *
 * @module
 */
import type { Example } from "../data/types.ts";
import type { Vocabulary } from "../data/vocabulary.ts";
import type { GrowthLimits } from "./event_limits.ts";

/** The parser's error for an index key at or beyond its width (`numFeatures`). */
const OUT_OF_RANGE = /^feature index (\d+) is out of range \[0, (\d+)\)$/;

/**
 * Checks parses against the {@linkcode GrowthLimits} in force (none at first). Owned by an
 * `EventParser`, which hands it its vocabularies.
 *
 * @example
 * ```ts
 * import { GrowthGuard } from "./growth_guard.ts";
 * import { Vocabulary } from "../data/vocabulary.ts";
 * const guard = new GrowthGuard(new Vocabulary(), new Vocabulary(), false, true);
 * guard.set({ maxFeatureGrowth: 10 });
 * const x = (j: number) => ({ indices: Int32Array.of(j), values: Float32Array.of(1) });
 * const event = (j: number) => () => ({ x: x(j), labels: new Int32Array(0) });
 * console.log(guard.run(event(5)).x.indices); // Int32Array(1) [ 5 ]
 * try {
 *   guard.run(event(100));
 * } catch (e) {
 *   console.log((e as Error).message); // feature index 100 would widen the feature space from 6 to 101 columns: more than --max-feature-growth 10 in one event
 * }
 * ```
 */
export class GrowthGuard {
  readonly #features: Vocabulary;
  readonly #labels: Vocabulary;
  /** Feature names go through the vocabulary (name keys, not hashed). */
  readonly #namedFeatures: boolean;
  /** Index keys: growth is counted in columns. */
  readonly #indexKeys: boolean;
  #growth: GrowthLimits | undefined;
  /** Index keys: the largest feature index accepted + 1 (or the model's width, if larger). */
  #featureExtent = 0;

  /**
   * A guard over the given vocabularies, with no limits yet.
   *
   * @param features the feature vocabulary (capped while a parse runs, with `namedFeatures`)
   * @param labels the label vocabulary (capped while a parse runs)
   * @param namedFeatures feature keys are names mapped through `features` (not hashed)
   * @param indexKeys feature keys are column indices
   */
  constructor(
    features: Vocabulary,
    labels: Vocabulary,
    namedFeatures: boolean,
    indexKeys: boolean,
  ) {
    this.#features = features;
    this.#labels = labels;
    this.#namedFeatures = namedFeatures;
    this.#indexKeys = indexKeys;
  }

  /**
   * Sets (or with undefined lifts) the limits checked from now on; `featureExtent`: the model's
   * current width (index keys: growth is counted beyond it).
   */
  set(limits: GrowthLimits | undefined, featureExtent = 0): void {
    this.#growth = limits === undefined ? undefined : { ...limits };
    this.#featureExtent = Math.max(this.#featureExtent, featureExtent);
  }

  /** The growth limits in force (undefined: none). */
  get limits(): Readonly<GrowthLimits> | undefined {
    return this.#growth;
  }

  /**
   * Index keys: the largest feature index of the events parsed + 1 (or the model's width, if
   * larger), which `maxFeatureGrowth` counts from. A caller refusing an event after its parse
   * sets it back to what it was before, as it takes the event's names back: a refused event
   * must not widen what the next one may grow from.
   */
  get featureExtent(): number {
    return this.#featureExtent;
  }

  set featureExtent(extent: number) {
    this.#featureExtent = extent;
  }

  /**
   * Runs `parse` with the vocabularies capped as the growth limits ask, and checks index-key
   * growth on the result (see the module doc); the parse's own errors pass through. A refused
   * event changes nothing: the names its parse added are taken back.
   */
  run(parse: () => Example): Example {
    const labels = this.#labels.size, features = this.#features.size;
    try {
      return this.#run(parse);
    } catch (e) {
      // the index-key checks refuse a parsed event: its new names must not stay
      this.#labels.truncate(labels);
      this.#features.truncate(features);
      throw e;
    }
  }

  #run(parse: () => Example): Example {
    const g = this.#growth;
    if (g === undefined) {
      const ev = parse();
      this.#noteExtent(ev);
      return ev;
    }
    type Capped = { maxSize: number };
    const labels = this.#labels as unknown as Capped;
    const features = this.#features as unknown as Capped;
    const labelCap = labels.maxSize, featureCap = features.maxSize;
    const labelBudget = Math.min(
      g.maxLabels ?? Infinity,
      this.#labels.size + (g.maxNewLabels ?? Infinity),
    );
    labels.maxSize = Math.min(labelCap, labelBudget);
    if (this.#namedFeatures) features.maxSize = Math.min(featureCap, g.maxFeatures ?? Infinity);
    let ev: Example;
    try {
      ev = parse();
    } catch (e) {
      // A limit at or below the parser's own cap is the one that binds (the cap is usually
      // the same flag): the error names the flag.
      const m = (e as Error).message;
      if (/label vocabulary is full/.test(m) && labelBudget <= labelCap) {
        throw new RangeError(
          this.#labels.size + (g.maxNewLabels ?? Infinity) <= (g.maxLabels ?? Infinity)
            ? `the event adds more than --max-new-labels ${g.maxNewLabels} new labels`
            : `the label vocabulary is full: --max-labels ${g.maxLabels} names`,
        );
      }
      const maxFeatures = g.maxFeatures ?? Infinity;
      if (/feature vocabulary is full/.test(m) && maxFeatures <= featureCap) {
        throw new RangeError(`the feature vocabulary is full: --max-features ${g.maxFeatures}`);
      }
      if (this.#indexKeys) {
        const r = OUT_OF_RANGE.exec(m);
        if (r !== null && maxFeatures <= Number(r[2])) {
          throw new RangeError(this.#aboveMaxFeatures(Number(r[1]), g));
        }
      }
      throw e;
    } finally {
      labels.maxSize = labelCap;
      features.maxSize = featureCap;
    }
    if (this.#indexKeys) {
      const n = ev.x.indices.length;
      const top = n > 0 ? ev.x.indices[n - 1] + 1 : 0;
      if (top > (g.maxFeatures ?? Infinity)) {
        throw new RangeError(this.#aboveMaxFeatures(top - 1, g));
      }
      if (top > this.#featureExtent + (g.maxFeatureGrowth ?? Infinity)) {
        throw new RangeError(
          `feature index ${
            top - 1
          } would widen the feature space from ${this.#featureExtent} to ${top} columns: more than --max-feature-growth ${g.maxFeatureGrowth} in one event`,
        );
      }
    }
    this.#noteExtent(ev);
    return ev;
  }

  /**
   * Why feature index `index` is refused by `--max-features`, naming `--max-feature-growth` too
   * when the event is over it as well: an operator starting a wide stream raised
   * `--max-features` only to find every event refused again, by the growth limit.
   */
  #aboveMaxFeatures(index: number, g: GrowthLimits): string {
    const m =
      `feature index ${index} is out of range [0, ${g.maxFeatures}): above --max-features ${g.maxFeatures}`;
    const extent = this.#featureExtent, growth = g.maxFeatureGrowth ?? Infinity;
    if (index + 1 <= extent + growth) return m;
    return `${m}, and it would widen the feature space from ${extent} to ${
      index + 1
    } columns: more than --max-feature-growth ${growth} in one event (raise both)`;
  }

  #noteExtent(ev: Example): void {
    const n = ev.x.indices.length;
    if (n > 0 && ev.x.indices[n - 1] >= this.#featureExtent) {
      this.#featureExtent = ev.x.indices[n - 1] + 1;
    }
  }
}

/** A growth-limit flag, as the refusals name it. */
export type GrowthFlag =
  | "--max-features"
  | "--max-labels"
  | "--max-feature-growth"
  | "--max-new-labels";

/**
 * The refusals of {@linkcode GrowthGuard}, by their start (which holds no name of the event's:
 * a label named like a flag cannot be taken for one).
 */
const REFUSALS: readonly [RegExp, GrowthFlag][] = [
  [/^the label vocabulary is full: --max-labels /, "--max-labels"],
  [/^the event adds more than --max-new-labels /, "--max-new-labels"],
  [/^the feature vocabulary is full: --max-features /, "--max-features"],
  [/^feature index \d+ is out of range \[0, \d+\): above --max-features /, "--max-features"],
  [
    /^feature index \d+ would widen the feature space [^:]*: more than --max-feature-growth /,
    "--max-feature-growth",
  ],
];

/**
 * The growth-limit flag that refused an event, from the refusal's reason (undefined: the event
 * was refused for something else, e.g. bad JSON).
 *
 * @example
 * ```ts
 * import { growthLimitOf } from "./growth_guard.ts";
 * console.log(growthLimitOf("the label vocabulary is full: --max-labels 65536 names")); // --max-labels
 * console.log(growthLimitOf("invalid JSON")); // undefined
 * ```
 */
export function growthLimitOf(reason: string): GrowthFlag | undefined {
  for (const [re, flag] of REFUSALS) if (re.test(reason)) return flag;
  return undefined;
}

/** What {@linkcode GrowthRefusalLog} holds of one flag's refusals. */
interface FlagRefusals {
  /** Refused since start, and by source. */
  total: number;
  bySource: Map<string, number>;
  /** Logged one by one (the first ones). */
  shown: number;
  /** Refused since the last report (after the first ones), by source, and the last reason. */
  held: number;
  heldBySource: Map<string, number>;
  lastReason: string;
}

/**
 * Tells the operator, on the service's log, about the events its growth limits refuse
 * (`--max-labels`, `--max-features`, `--max-feature-growth`, `--max-new-labels`), which a client
 * sees only as per-line rejects of a 200 (`POST /events`) and a Redis producer not at all: the
 * first `first` refusals of each flag one by one (the source, the reason naming the flag, and
 * what to do), then at most one line per flag every `everyMs` with how many more were refused
 * (by source) and the last reason, and at {@linkcode GrowthRefusalLog.end} the totals. As
 * `RefusedLineLog` (file_source.ts) does for a followed file's refused lines, whose own log
 * reports them: those are counted here without being logged again (`logged: false`).
 *
 * @example
 * ```ts
 * import { GrowthRefusalLog } from "./growth_guard.ts";
 * let t = 0;
 * const r = new GrowthRefusalLog((m) => console.log(m), { first: 1, now: () => t });
 * const full = "the label vocabulary is full: --max-labels 2 names";
 * r.refused("http", full); // http: event refused: the label vocabulary is full: ... (raise --max-labels ...)
 * r.refused("redis", full, "entry 1-0"); // held back: less than 10 s since the last report
 * console.log(r.refused("http", "invalid JSON"), r.counts["--max-labels"]); // false 2
 * t = 10_000;
 * r.tick(); // 1 more event refused by --max-labels (redis 1): the label vocabulary is full: ...
 * r.end(); // events refused by growth limits since start: --max-labels 2 (http 1, redis 1)
 * ```
 */
export class GrowthRefusalLog {
  readonly #log: (message: string) => void;
  readonly #first: number;
  readonly #everyMs: number;
  readonly #now: () => number;
  readonly #flags = new Map<GrowthFlag, FlagRefusals>();
  #reportedAt = 0;

  /**
   * @param log where the reports go (the service's log)
   * @param options `first` refusals of each flag reported one by one (default 3), then one report
   *   per flag every `everyMs` (default 10,000); `now` the clock in milliseconds (default
   *   `performance.now`)
   */
  constructor(
    log: (message: string) => void,
    options: { first?: number; everyMs?: number; now?: () => number } = {},
  ) {
    this.#log = log;
    this.#first = options.first ?? 3;
    this.#everyMs = options.everyMs ?? 10_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Events refused by each growth limit since start (every source, logged or not). */
  get counts(): Record<GrowthFlag, number> {
    const out: Record<GrowthFlag, number> = {
      "--max-features": 0,
      "--max-labels": 0,
      "--max-feature-growth": 0,
      "--max-new-labels": 0,
    };
    for (const [flag, f] of this.#flags) out[flag] = f.total;
    return out;
  }

  /**
   * An event of `source` (`where` in it, e.g. a Redis entry id) was refused for `reason`: when a
   * growth limit refused it, counted and reported now or later (`logged`: false, counted only).
   * Returns whether a growth limit refused it.
   */
  refused(source: string, reason: string, where?: string, logged = true): boolean {
    const flag = growthLimitOf(reason);
    if (flag === undefined) return false;
    let f = this.#flags.get(flag);
    if (f === undefined) {
      f = {
        total: 0,
        bySource: new Map(),
        shown: 0,
        held: 0,
        heldBySource: new Map(),
        lastReason: "",
      };
      this.#flags.set(flag, f);
    }
    f.total++;
    f.bySource.set(source, (f.bySource.get(source) ?? 0) + 1);
    if (!logged) return true;
    if (f.shown < this.#first) {
      f.shown++;
      const more = f.shown === this.#first
        ? `; further refusals by ${flag} are counted: one report every ${this.#everyMs / 1000} s`
        : "";
      this.#log(
        `${source}${where === undefined ? "" : ` ${where}`}: event refused: ${reason} ` +
          `(raise ${flag} to accept such events; it takes effect at a restart${more})`,
      );
      this.#reportedAt = this.#now();
      return true;
    }
    f.held++;
    f.heldBySource.set(source, (f.heldBySource.get(source) ?? 0) + 1);
    f.lastReason = reason;
    this.tick();
    return true;
  }

  /** Reports the refusals held back, once `everyMs` passed since the last report. */
  tick(): void {
    if (this.#now() - this.#reportedAt < this.#everyMs) return;
    let any = false;
    for (const [flag, f] of this.#flags) any = this.#report(flag, f) || any;
    if (any) this.#reportedAt = this.#now();
  }

  /** Reports what is still held back, and the totals (nothing when nothing was refused). */
  end(): void {
    for (const [flag, f] of this.#flags) this.#report(flag, f);
    if (this.#flags.size === 0) return;
    const parts = Array.from(
      this.#flags,
      ([flag, f]) => `${flag} ${f.total} (${bySource(f.bySource)})`,
    );
    this.#log(`events refused by growth limits since start: ${parts.join("; ")}`);
  }

  #report(flag: GrowthFlag, f: FlagRefusals): boolean {
    if (f.held === 0) return false;
    const n = f.held;
    this.#log(
      `${n} more event${n === 1 ? "" : "s"} refused by ${flag} (${bySource(f.heldBySource)}): ` +
        `${n === 1 ? "" : "the last: "}${f.lastReason}`,
    );
    f.held = 0;
    f.heldBySource.clear();
    return true;
  }
}

/** "http 3, redis 1": counts by source. */
function bySource(counts: Map<string, number>): string {
  return Array.from(counts, ([source, n]) => `${source} ${n}`).join(", ");
}
