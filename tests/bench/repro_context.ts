/**
 * Shared set-up of the repro experiments' tests: a data folder holding only a training file, and
 * the context an experiment is run with.
 *
 * @module
 */
import { Progress } from "../../src/progress/mod.ts";
import { plantedData } from "../models/estimator_checks.ts";

/**
 * Writes `lines` as `toy.train.txt` (XC text format) into a new temporary folder, returned. No
 * test file: an experiment that reads one fails.
 */
export async function trainOnlyFolder(prefix: string, lines: string[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  await Deno.writeTextFile(`${dir}/toy.train.txt`, lines.join("\n") + "\n");
  return dir;
}

/** The context a repro experiment runs with: dataset "toy" in `dataDir`, seed 0, silent. */
export function reproContext(dataDir: string, flags: Record<string, string>) {
  return {
    dataset: "toy",
    dataDir,
    seed: 0,
    flags,
    progress: new Progress({ silent: true, intervalMs: 0 }),
  };
}

/**
 * A training-only folder (see {@linkcode trainOnlyFolder}) of `numRows` planted rows with 8 labels
 * (`plantedData(numRows, 8, seed)`), in XC text format.
 */
export async function plantedTrainFolder(prefix: string, seed: number, numRows = 150) {
  const data = plantedData(numRows, 8, seed);
  const lines = [`${data.rows.length} ${data.numFeatures} ${data.numLabels}`];
  for (const r of data.rows) {
    const feats = Array.from(r.x.indices, (j, e) => `${j}:${r.x.values[e].toFixed(4)}`);
    lines.push(`${Array.from(r.labels).join(",")} ${feats.join(" ")}`);
  }
  return await trainOnlyFolder(prefix, lines);
}

/**
 * `repro sleec-curve` flags of a tiny run on the last 20% of the training file: 2 learners of rank
 * 6, one cluster, n̄ = 10, k = 5, weighted votes.
 */
export const TINY_CURVE_FLAGS: Readonly<Record<string, string>> = Object.freeze({
  validation: "true",
  learners: "2",
  k: "5",
  weighted: "true",
  neighbours: "10",
  clusters: "1",
  rank: "6",
});
