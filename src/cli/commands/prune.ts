/**
 * `tagstream prune`: POP pruning of a model file, or of a state directory's model, through the
 * prune CLI of `src/cli/prune.ts` (`deno task prune`): same flags, plus `--state-dir DIR`.
 *
 * @module
 */
import { writeFileAtomic } from "../../service/checkpoint.ts";
import { Progress } from "../../progress/mod.ts";
import { type Command } from "./args.ts";
import { checkStateDir } from "./path_checks.ts";
import { readDatasetLabels } from "./label_names.ts";
import { modelFileOf } from "./export.ts";
import { openState, replayLog } from "./state.ts";

const USAGE =
  `tagstream prune --dataset NAME (--model FILE.tsm | --state-dir DIR | --train br) [options]

POP (Wei and Li, AAAI 2019): labels ranked by propensity-weighted training frequency keep only
their delta largest weights as long as validation PSP@k stays within epsilon, then weights in
[-sqrt(lambda), sqrt(lambda)] are dropped. BR models are pruned directly; LEML models as their
product W·H^T, kept only when smaller and within epsilon; otherwise no file is written
("pruned": false, "out": null, and a reason). "pruned": true beside "withinTolerance": false (BR):
epsilon bounds only the label search, and the lambda thresholding may lose more (see "reason", or
use a smaller --lambda). Writes the pruned file and an SVG size-vs-PSP@k curve with the input
model's PSP@1/3/5; prints one JSON summary. On a terminal, stderr shows the progress of a
--model run (the label cuts evaluated, then the curve's points) with rate and ETA.

Every flag and path is checked before any data is read or anything written: numbers are plain
decimals in range, --ks at most the number of labels, and the validation split (or --valid)
must hold rows; a flag the run would ignore is an error naming it.

  --dataset NAME        label statistics from DATA_DIR/NAME.train.txt (required)
  --model FILE          model file to prune (linear-sparse or linear-lowrank)
  --state-dir DIR       prune the model of a serve/train state directory, as a restart would
                        serve it (the log's events after the checkpoint replayed: "fromLog"; its
                        labels must be in the dataset's label order, as
                        'train --data NAME.train.txt' makes them)
  --train br            train binary relevance and prune it (its settings: --C 1 --eps 0.1
                        --normalize true|false)
  --out FILE            pruned model file (default MODEL.pop.tsm; NAME.br.pop.tsm with
                        --train br; DIR/model.pop.tsm with --state-dir)
  --plot FILE.svg | --no-plot   the size-vs-PSP@k curve (default: the --out path with .svg;
                        the name must end in .svg). It runs the label search again at each
                        --epsilons value and measures a pruned file per point (12 by default):
                        most of a run's time (3/4 of it for a file of 10^5 labels); --no-plot
                        skips it
  --valid FILE          validation rows (XC file) instead of a split of the training file
                        (without it, a split the model may have learned: a warning)
  --val-fraction F      validation share of the training file (default 0.2)
  --epsilon E --lambda L --delta D --ks 1,3,5
  --epsilons LIST --lambdas LIST      sweeps of the curve
  --weights f16|f32 --index u16|i32   storage of the pruned weights
  --test                also report PSP@k on NAME.test.txt
  --data-dir DIR --seed S

Example:
  npx deno task tagstream prune --dataset bibtex --model bibtex.tsm --out bibtex.pop.tsm`;

/** The `prune` command. */
export const pruneCommand: Command = {
  name: "prune",
  summary: "POP-prune a model file or a state directory's model (as deno task prune)",
  usage: USAGE,
  async run(args) {
    if (args.includes("--help") || args.includes("-h")) {
      console.log(USAGE);
      return 0;
    }
    // Loaded on demand: the other commands do not depend on the prune CLI.
    const { checkPruneFiles, parsePruneArgs, runPrune } = await import("../prune.ts");
    // every flag, then every path, before the state is opened or anything is written
    const cmd = parsePruneArgs(args, { stateDir: true });
    const dir = cmd.stateDir;
    if (dir === undefined) {
      console.log(JSON.stringify(await runPrune({ ...cmd, progress: new Progress() })));
      return 0;
    }
    await checkStateDir(dir);
    const run = { ...cmd, stateDir: undefined, out: cmd.out ?? `${dir}/model.pop.tsm` };
    const files = await checkPruneFiles(run);
    const l = await openState(dir);
    // the model a restart would serve: the write-ahead log's events after the checkpoint
    // replayed in memory, as eval and inspect do (nothing is written)
    const log = await replayLog(dir, l);
    for (const w of log.warnings) console.error(`tagstream prune: warning: ${w}`);
    const numLabels = l.estimator.numLabels;
    // only a missing file means "no names": an unreadable or malformed one is an error naming it
    const names = await readDatasetLabels(`${files.dataDir}/${cmd.dataset}.labels.txt`);
    if (names !== undefined && names.length !== numLabels) {
      throw new RangeError(
        `the model of ${dir} has ${numLabels} labels but ${cmd.dataset} has ${names.length} ` +
          `(${cmd.dataset}.labels.txt): is it another dataset?`,
      );
    }
    const model = l.parser.labels.names;
    const aligned = model.every((n, j) =>
      n === String(j) || (names !== undefined && n === names[j])
    );
    if (!aligned) {
      throw new TypeError(
        `the labels of ${dir} are not in ${cmd.dataset}'s label order (e.g. a model learned ` +
          `from events); POP ranks labels by ${cmd.dataset}.train.txt, so prune a model ` +
          `trained with 'tagstream train --data ${cmd.dataset}.train.txt'`,
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = modelFileOf(l);
    } catch (e) {
      throw new TypeError(
        `--state-dir ${dir}: POP prunes linear models (br, leml), and its ${l.estimator.kind} ` +
          `model cannot even be written as a model file (${(e as Error).message})`,
      );
    }
    // the temporary file is removed at the end: the summary and messages name the state
    // directory, whose model stays usable when POP cannot help
    const temp = await Deno.makeTempFile({ prefix: "tagstream-prune-", suffix: ".tsm" });
    try {
      await writeFileAtomic(temp, bytes);
      const summary = await runPrune({
        ...run,
        model: temp,
        source: dir,
        progress: new Progress(),
      });
      console.log(JSON.stringify({ ...summary, fromLog: log.replayed }));
    } finally {
      await Deno.remove(temp).catch(() => {});
      await Deno.remove(`${temp}.tmp`).catch(() => {});
    }
    return 0;
  },
};
