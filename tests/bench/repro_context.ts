/**
 * Shared set-up of the repro experiments' tests: a data folder holding a training file (and a test
 * file), the context an experiment is run with, and a progress reporter that records the work
 * started.
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

/**
 * The context a repro experiment runs with: dataset "toy" in `dataDir`, seed 0, reporting to
 * `progress` (silent by default).
 */
export function reproContext(
  dataDir: string,
  flags: Record<string, string | boolean>,
  progress: Progress = new Progress({ silent: true, intervalMs: 0 }),
) {
  return { dataset: "toy", dataDir, seed: 0, flags, progress };
}

/**
 * A silent progress reporter that records the labels of the tasks started (an experiment's fits
 * begin with one): a flag refused before any work leaves `started` empty.
 */
export class RecordingProgress extends Progress {
  /** The labels of the tasks started, in order. */
  started: string[] = [];
  constructor() {
    super({ silent: true, intervalMs: 0 });
  }
  override start(total: number | undefined, label: string): void {
    this.started.push(label);
    super.start(total, label);
  }
}

/**
 * Runs `fn` on the folder `folder` resolves to (a new temporary one, e.g. from
 * {@linkcode plantedTrainTestFolder}), then removes the folder, whether `fn` passed or threw.
 */
export async function inFolder(
  folder: Promise<string>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await folder;
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
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
 * Writes `numRows` planted rows with 4 labels (`plantedData(numRows, 4, seed)`), in XC text
 * format, into a new temporary folder, returned: the first `numTrain` rows as `toy.train.txt`,
 * the others as `toy.test.txt`.
 */
export async function plantedTrainTestFolder(
  prefix: string,
  seed: number,
  numRows: number,
  numTrain: number,
): Promise<string> {
  const data = plantedData(numRows, 4, seed);
  const line = (r: (typeof data.rows)[number]) =>
    `${Array.from(r.labels).join(",")} ${
      Array.from(r.x.indices, (j, e) => `${j}:${r.x.values[e]}`).join(" ")
    }`;
  const dir = await Deno.makeTempDir({ prefix });
  const write = async (name: string, rows: typeof data.rows) => {
    const head = `${rows.length} ${data.numFeatures} ${data.numLabels}`;
    await Deno.writeTextFile(`${dir}/${name}`, [head, ...rows.map(line)].join("\n") + "\n");
  };
  await write("toy.train.txt", data.rows.slice(0, numTrain));
  await write("toy.test.txt", data.rows.slice(numTrain));
  return dir;
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

/**
 * `repro leml-stream` flags of a tiny run: rank 2, learning rates 0.01, minibatches of 8, L2, no
 * replay (`--replay-steps 1`).
 */
export const TINY_LEML_STREAM_FLAGS: Readonly<Record<string, string>> = Object.freeze({
  rank: "2",
  lr: "0.01",
  lrH: "0.01",
  batch: "8",
  l2: "true",
  "replay-steps": "1",
});
