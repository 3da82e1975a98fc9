/**
 * Progress of a POP run on a model file ({@linkcode pruneModel} of `./prune_model.ts`), reported
 * through the memo of label cuts the run shares between its searches: every search begins by
 * reading the unpruned model's PSP@k (cut 0) from it, and stores each cut it evaluates in it.
 *
 * @module
 */
import type { Progress } from "../progress/mod.ts";
import type { CutCache } from "./pop.ts";

/**
 * Evaluations of POP's label search at most, on `numLabels` labels: the unpruned model, the
 * binary search over [0, numLabels) and the cut of every label.
 *
 * @example
 * ```ts
 * import { searchEvaluations } from "./search_progress.ts";
 * console.log(searchEvaluations(100000), searchEvaluations(1)); // 19 2
 * ```
 */
export function searchEvaluations(numLabels: number): number {
  return 2 + (numLabels > 1 ? Math.ceil(Math.log2(numLabels)) : 0);
}

/**
 * A memo of label cuts that reports a POP run's progress, from {@linkcode searchProgress}.
 *
 * @example
 * ```ts
 * import type { SearchProgress } from "./search_progress.ts";
 * const s: SearchProgress = { cache: new Map(), done: () => {} };
 * console.log(s.cache.size); // 0
 * ```
 */
export interface SearchProgress {
  /** The memo to pass as `pruneModel`'s `cache`. */
  readonly cache: CutCache;
  /** Ends the report once the run returned (the last point of the curve is then done). */
  done(): void;
}

/**
 * A memo of label cuts (pass its `cache` as `pruneModel`'s `cache`) that reports the run on
 * `progress`: "POP search", of at most {@linkcode searchEvaluations} label cuts, ticked as each
 * is evaluated (info: the `cut`, labels cut to δ weights, and its PSP@k at the first k); then,
 * when the run sweeps ε and λ for the plot, "POP curve" of `curvePoints` points, ticked as each
 * point is done. Call its `done()` after the run.
 *
 * @param ks the cut-offs of the PSP@k the cuts hold (the first names the info)
 *
 * @example
 * ```ts
 * import { searchProgress } from "./search_progress.ts";
 * import { Progress, type ProgressDetail } from "../progress/mod.ts";
 * const p = new Progress({ silent: true, intervalMs: 0 });
 * const seen: string[] = [];
 * p.addEventListener("progress", (e) => {
 *   const d = (e as CustomEvent<ProgressDetail>).detail;
 *   seen.push(`${d.label} ${d.done}/${d.total}`);
 * });
 * const s = searchProgress(p, 4, 1, [1]);
 * s.cache.get(0); // a search begins with the unpruned model
 * s.cache.set(0, [50]);
 * s.cache.get(0); // the curve's search
 * s.done();
 * console.log(seen); // [ "POP search 0/4", "POP search 1/4", "POP search 1/4", "POP curve 0/1", "POP curve 1/1", "POP curve 1/1" ]
 * ```
 */
export function searchProgress(
  progress: Progress,
  numLabels: number,
  curvePoints: number,
  ks: readonly number[],
): SearchProgress {
  let searches = 0;
  const psp = `PSP@${ks[0]}`;
  const cache = new class extends Map<number, number[]> {
    override get(m: number): number[] | undefined {
      if (m === 0) {
        // a label search begins: the run's own, then one per point of the curve
        searches++;
        if (searches === 1) progress.start(searchEvaluations(numLabels), "POP search");
        else if (searches === 2) progress.start(curvePoints, "POP curve");
        else progress.tick();
      }
      return super.get(m);
    }
    override set(m: number, v: number[]): this {
      if (searches === 1) progress.tick(1, { cut: m, [psp]: v[0] });
      return super.set(m, v);
    }
  }();
  return {
    cache,
    done() {
      if (searches >= 2) progress.tick();
      progress.done();
    },
  };
}
