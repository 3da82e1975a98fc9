/**
 * Shared set-up of the repro experiments' tests: a data folder holding only a training file, and
 * the context an experiment is run with.
 *
 * @module
 */
import { Progress } from "../../src/progress/mod.ts";

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
