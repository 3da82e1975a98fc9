/**
 * A progress reporter for long loops: a bar with rate and ETA on a terminal's stderr (throttled
 * to about 10 Hz), quiet when stderr is not a terminal, and `progress` events for programs.
 *
 * @module
 */

/**
 * Payload of a `progress` event (`CustomEvent<ProgressDetail>`).
 *
 * @example
 * ```ts
 * import type { ProgressDetail } from "./mod.ts";
 * const d: ProgressDetail = { label: "train", done: 5, total: 10, rate: 2.5, etaSeconds: 2 };
 * console.log(d.etaSeconds); // 2
 * ```
 */
export interface ProgressDetail {
  /** Label given to {@linkcode Progress.start}. */
  label: string;
  /** Units done so far. */
  done: number;
  /** Total units, when known. */
  total: number | undefined;
  /** Units per second since `start`. */
  rate: number;
  /**
   * Estimated seconds left: 0 once `done` reaches the total, NaN when the total is unknown or
   * work is left at a rate of 0.
   */
  etaSeconds: number;
  /** Extra numbers passed to {@linkcode Progress.tick} (e.g. `{ "P@1": 0.41 }`). */
  [info: string]: number | string | undefined;
}

/**
 * Options of {@linkcode Progress}.
 *
 * @example
 * ```ts
 * import type { ProgressOptions } from "./mod.ts";
 * const o: ProgressOptions = { silent: true };
 * console.log(o.silent); // true
 * ```
 */
export interface ProgressOptions {
  /** Never draw (events are still dispatched). Default: false. */
  silent?: boolean;
  /** Draw even when stderr is not a terminal (for debugging). Default: false. */
  force?: boolean;
  /**
   * Minimum milliseconds between two redraws and between two `progress` events (default 100,
   * i.e. about 10 Hz); 0 dispatches an event on every tick. `start` and `done` always dispatch.
   */
  intervalMs?: number;
  /** Width of the bar in characters (default 30). */
  barWidth?: number;
}

/** Formats seconds as m:ss or h:mm:ss. */
function formatSeconds(s: number): string {
  if (!Number.isFinite(s) || s < 0) return "?";
  const t = Math.round(s);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = String(t % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

function formatNumber(v: number): string {
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 1 ? v.toFixed(2) : v.toFixed(3);
}

/**
 * Progress reporter. Call `start(total, label)`, then `tick(n, info)` as work gets done, then
 * `done()`. On a terminal (stderr) it draws `label [=====>    ] 45% 450/1000 120.3/s ETA 0:04`
 * plus the `info` numbers; elsewhere it draws nothing. Listeners of the `progress` event receive
 * a {@linkcode ProgressDetail} at most every `intervalMs`, and always on `start` and `done`.
 *
 * @example
 * ```ts
 * import { Progress, type ProgressDetail } from "./mod.ts";
 * const p = new Progress({ silent: true, intervalMs: 0 });
 * const seen: number[] = [];
 * p.addEventListener("progress", (e) => seen.push((e as CustomEvent<ProgressDetail>).detail.done));
 * p.start(3, "demo");
 * p.tick();
 * p.tick(2, { loss: 0.5 });
 * p.done();
 * console.log(seen); // [0, 1, 3, 3]
 * ```
 */
export class Progress extends EventTarget {
  readonly #draw: boolean;
  readonly #intervalMs: number;
  readonly #barWidth: number;
  #label = "";
  #total: number | undefined = undefined;
  #done = 0;
  #startMs = 0;
  #lastEmitMs = -Infinity;
  #lastDrawMs = -Infinity;
  #info: Record<string, number> = {};
  #active = false;
  #encoder = new TextEncoder();

  /**
   * A progress reporter (a bar on a terminal, events for programs).
   *
   * @param options output stream, interval and label (see {@linkcode ProgressOptions})
   */
  constructor(options: ProgressOptions = {}) {
    super();
    let terminal = false;
    try {
      terminal = Deno.stderr.isTerminal();
    } catch {
      terminal = false;
    }
    this.#draw = !options.silent && (options.force === true || terminal);
    this.#intervalMs = Math.max(0, options.intervalMs ?? 100);
    this.#barWidth = Math.max(5, Math.floor(options.barWidth ?? 30));
  }

  /**
   * A reporter that never draws (events are still dispatched), for tests and libraries.
   *
   * @example
   * ```ts
   * import { Progress } from "./mod.ts";
   * const p = Progress.silent();
   * p.start(undefined, "quiet");
   * p.tick(10);
   * p.done();
   * console.log(p.doneCount); // 10
   * ```
   */
  static silent(): Progress {
    return new Progress({ silent: true });
  }

  /** Units done since the last `start`. */
  get doneCount(): number {
    return this.#done;
  }

  /** Whether this reporter draws on stderr. */
  get drawing(): boolean {
    return this.#draw;
  }

  /** Begins a new task of `total` units (undefined when unknown) named `label`. */
  start(total: number | undefined, label: string): void {
    if (total !== undefined && !(total >= 0)) {
      throw new RangeError(`Progress.start: total must be >= 0 or undefined, got ${total}`);
    }
    if (this.#active) this.done();
    this.#label = label;
    this.#total = total;
    this.#done = 0;
    this.#info = {};
    this.#startMs = performance.now();
    this.#lastEmitMs = -Infinity;
    this.#lastDrawMs = -Infinity;
    this.#active = true;
    this.#update(true);
  }

  /**
   * Records `n` more units done; `info` numbers are shown and sent with the event.
   *
   * @throws {RangeError} when `n` is not a finite number (it would make every later count NaN)
   */
  tick(n = 1, info?: Record<string, number>): void {
    if (!Number.isFinite(n)) {
      throw new RangeError(`Progress.tick: n must be a finite number, got ${n}`);
    }
    this.#done += n;
    if (info) Object.assign(this.#info, info);
    this.#update(false);
  }

  /** Finishes the current task: final event, final line and a newline on a terminal. */
  done(): void {
    if (!this.#active) return;
    this.#update(true);
    if (this.#draw) this.#write("\n");
    this.#active = false;
  }

  #detail(now: number): ProgressDetail {
    const elapsed = (now - this.#startMs) / 1000;
    const rate = elapsed > 0 ? this.#done / elapsed : 0;
    const left = this.#total === undefined ? NaN : Math.max(0, this.#total - this.#done);
    const etaSeconds = left === 0 ? 0 : rate > 0 ? left / rate : NaN;
    return {
      ...this.#info,
      label: this.#label,
      done: this.#done,
      total: this.#total,
      rate,
      etaSeconds,
    };
  }

  #update(force: boolean): void {
    const now = performance.now();
    const emit = force || now - this.#lastEmitMs >= this.#intervalMs;
    const draw = this.#draw && (force || now - this.#lastDrawMs >= Math.max(this.#intervalMs, 50));
    if (!emit && !draw) return;
    const detail = this.#detail(now);
    if (emit) {
      this.#lastEmitMs = now;
      this.dispatchEvent(new CustomEvent<ProgressDetail>("progress", { detail }));
    }
    if (draw) {
      this.#lastDrawMs = now;
      this.#write("\r" + this.#render(detail) + "\x1b[K");
    }
  }

  #render(d: ProgressDetail): string {
    const parts: string[] = [d.label];
    if (d.total !== undefined) {
      const frac = d.total > 0 ? Math.min(1, d.done / d.total) : 1;
      const full = Math.floor(frac * this.#barWidth);
      const bar = "=".repeat(full) + (full < this.#barWidth ? ">" : "") +
        " ".repeat(Math.max(0, this.#barWidth - full - 1));
      parts.push(`[${bar}]`, `${(frac * 100).toFixed(0)}%`, `${d.done}/${d.total}`);
    } else {
      parts.push(String(d.done));
    }
    parts.push(`${formatNumber(d.rate)}/s`);
    if (d.total !== undefined) parts.push(`ETA ${formatSeconds(d.etaSeconds)}`);
    for (const [k, v] of Object.entries(this.#info)) parts.push(`${k}=${formatNumber(v)}`);
    return parts.join(" ");
  }

  #write(s: string): void {
    try {
      Deno.stderr.writeSync(this.#encoder.encode(s));
    } catch {
      // stderr closed: drawing is best effort
    }
  }
}
