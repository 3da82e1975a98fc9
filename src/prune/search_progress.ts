/**
 * Progress of a POP run (e.g. {@linkcode pruneModel} of `./prune_model.ts`), told by its
 * observer ({@linkcode PopObserver} of `./pop.ts`), as ticks of a {@linkcode Progress}.
 *
 * @module
 */
import type { Progress } from "../progress/mod.ts";
import type { PopObserver } from "./pop.ts";

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
 * An observer of a POP run (pass it as `pruneModel`'s `observer`) that reports the run on
 * `progress`: "POP search", of at most {@linkcode searchEvaluations} label cuts, ticked as each
 * is evaluated (info: the `cut`, labels cut to δ weights, and its PSP@k at the first k); then,
 * when the run sweeps ε and λ for the plot, "POP curve" of its points, ticked as each point is
 * done (the searches of the curve's points tick nothing). Call `progress.done()` after the run.
 *
 * @param ks the cut-offs of the PSP@k the run evaluates (the first names the info)
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
 * const o = searchProgress(p, [1]);
 * o.onSearch?.({ numLabels: 4 }); // the run's label search
 * o.onEvaluation?.({ cut: 0, psp: [50] });
 * o.onCurvePoint?.({ done: 0, total: 1 }); // the curve
 * o.onSearch?.({ numLabels: 4 }); // its point's search
 * o.onCurvePoint?.({ done: 1, total: 1 });
 * p.done();
 * console.log(seen); // [ "POP search 0/4", "POP search 1/4", "POP search 1/4", "POP curve 0/1", "POP curve 1/1", "POP curve 1/1" ]
 * ```
 */
export function searchProgress(progress: Progress, ks: readonly number[]): PopObserver {
  let phase: "before" | "search" | "curve" = "before";
  const psp = `PSP@${ks[0]}`;
  return {
    onSearch({ numLabels }) {
      // the run's own search; those of the curve's points are the curve's
      if (phase !== "before") return;
      phase = "search";
      progress.start(searchEvaluations(numLabels), "POP search");
    },
    onEvaluation({ cut, psp: v }) {
      if (phase === "search") progress.tick(1, { cut, [psp]: v[0] });
    },
    onCurvePoint({ done, total }) {
      if (done === 0) {
        phase = "curve";
        progress.start(total, "POP curve");
      } else if (phase === "curve") progress.tick();
    },
  };
}
