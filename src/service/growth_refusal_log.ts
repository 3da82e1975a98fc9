/**
 * The events the service's growth limits refuse ({@linkcode GrowthRefusalLog}), told on the
 * service's log and counted for `/metrics`: which flag refused an event
 * ({@linkcode growthLimitOf}), by the start of `GrowthGuard`'s refusal (./growth_guard.ts).
 *
 * @module
 */
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
 * import { growthLimitOf } from "./growth_refusal_log.ts";
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
 * import { GrowthRefusalLog } from "./growth_refusal_log.ts";
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
