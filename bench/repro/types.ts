/**
 * Contract of the repro harness: every experiment is a file `bench/repro/experiments/<name>.ts`
 * whose default export is an {@linkcode Experiment}; `deno task repro NAME --dataset D` runs it
 * and prints its {@linkcode ExperimentResult} as one JSON line. Next to it the file exports
 * `FLAGS`, its {@linkcode ExperimentFlags}: the runner refuses, before the run, any flag not
 * listed there.
 *
 * @module
 */
import type { Progress } from "../../src/progress/mod.ts";

/**
 * What an experiment receives from `bench/repro/repro.ts`.
 *
 * @example
 * ```ts
 * import type { ExperimentContext } from "./types.ts";
 * function datasetOf(ctx: ExperimentContext): string { return ctx.dataset; }
 * console.log(typeof datasetOf); // "function"
 * ```
 */
export interface ExperimentContext {
  /** Dataset name, e.g. "bibtex" (files `<dataDir>/<dataset>.train.txt` etc.). */
  dataset: string;
  /** Resolved data directory (`--data-dir`, else `$TAGSTREAM_DATA`, else `./data`). */
  dataDir: string;
  /** Random seed (`--seed`, default 0). */
  seed: number;
  /** Every other command-line flag, e.g. `{ k: "10", quick: true }`. */
  flags: Record<string, string | boolean>;
  /** Progress reporter for long loops (a bar on a terminal, silent otherwise). */
  progress: Progress;
}

/**
 * What an experiment returns. Precision-type metrics in percent (0-100), AUCs and Hamming loss
 * as fractions.
 *
 * @example
 * ```ts
 * import type { ExperimentResult } from "./types.ts";
 * const r: ExperimentResult = {
 *   metrics: { "P@1": 42 },
 *   trainSeconds: 1.5,
 *   predictMsPerRow: 0.2,
 *   modelBytes: 1024,
 * };
 * console.log(r.metrics["P@1"]); // 42
 * ```
 */
export interface ExperimentResult {
  metrics: Record<string, number>;
  /** Standard errors of the ranking metrics over the test rows (`evaluateModel`'s `stdErr`). */
  stdErr?: Record<string, number>;
  trainSeconds: number;
  predictMsPerRow: number;
  modelBytes: number;
  /** Extra keys merged into the printed JSON object (chosen hyper-parameters, ...). */
  extra?: Record<string, unknown>;
}

/**
 * An experiment: the default export of `bench/repro/experiments/<name>.ts`.
 *
 * @example
 * ```ts
 * import type { Experiment } from "./types.ts";
 * const noop: Experiment = () =>
 *   Promise.resolve({ metrics: {}, trainSeconds: 0, predictMsPerRow: 0, modelBytes: 0 });
 * console.log(typeof noop); // "function"
 * ```
 */
export type Experiment = (ctx: ExperimentContext) => Promise<ExperimentResult>;

/**
 * What an experiment reads from the command line, exported as `FLAGS` by
 * `bench/repro/experiments/<name>.ts` next to its default export: `flags`, the flags it accepts
 * (besides `--dataset`, `--data-dir` and `--seed`, which every experiment takes), and `test`,
 * whether it reads `<dataset>.test.txt`: `true`; the name of a flag: unless that flag is given
 * and not `"false"`; absent: never (it reads only the training file).
 *
 * @example
 * ```ts
 * import type { ExperimentFlags } from "./types.ts";
 * export const FLAGS: ExperimentFlags = { flags: ["threshold", "tune"], test: "tune" };
 * console.log(FLAGS.flags, FLAGS.test); // [ "threshold", "tune" ] tune
 * ```
 */
export interface ExperimentFlags {
  /** The flags the experiment accepts, without the runner's `dataset`, `data-dir`, `seed`. */
  readonly flags: readonly string[];
  /**
   * Whether it reads `<dataset>.test.txt`: `true`, or the name of a flag that, given and not
   * `"false"`, means it does not.
   */
  readonly test?: true | string;
}
