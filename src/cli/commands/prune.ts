/**
 * `tagstream prune`: POP pruning of a model file, or of a state directory's model, through the
 * prune CLI of `src/cli/prune.ts` (`deno task prune`): same flags, plus `--state-dir DIR`.
 *
 * @module
 */
import { resolveDataDir } from "../../data/data_dir.ts";
import { loadNames } from "../../data/dataset.ts";
import { writeFileAtomic } from "../../service/checkpoint.ts";
import { Progress } from "../../progress/mod.ts";
import type { Command } from "./args.ts";
import { modelFileOf } from "./export.ts";
import { openState } from "./state.ts";

const USAGE =
  `tagstream prune --dataset NAME (--model FILE.tsm | --state-dir DIR | --train br) [options]

POP (Wei and Li, AAAI 2019): labels ranked by propensity-weighted training frequency keep only
their delta largest weights as long as validation PSP@k stays within epsilon, then weights in
[-sqrt(lambda), sqrt(lambda)] are dropped. BR models are pruned directly; LEML models as their
product W·H^T, kept only when smaller and within epsilon; otherwise no file is written
("pruned": false, "out": null, and a reason). "pruned": true beside "withinTolerance": false (BR):
epsilon bounds only the label search, and the lambda thresholding may lose more (see "reason", or
use a smaller --lambda). Writes the pruned file and an SVG size-vs-PSP@k curve with the input
model's PSP@1/3/5; prints one JSON summary.

  --dataset NAME        label statistics from DATA_DIR/NAME.train.txt (required)
  --model FILE          model file to prune (linear-sparse or linear-lowrank)
  --state-dir DIR       prune the model of a serve/train state directory (its labels must be
                        in the dataset's label order, as 'train --data NAME.train.txt' makes them)
  --train br            train binary relevance and prune it
  --out FILE            pruned model file (default MODEL.pop.tsm)
  --plot FILE.svg | --no-plot
  --valid FILE          validation rows (XC file) instead of a split of the training file
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
    const rest = [...args];
    let temp: string | undefined, source: string | undefined;
    const i = rest.indexOf("--state-dir");
    if (i >= 0) {
      const dir = rest[i + 1];
      if (dir === undefined) throw new TypeError("--state-dir needs a value");
      rest.splice(i, 2);
      if (rest.includes("--model")) throw new TypeError("give --state-dir or --model, not both");
      const l = await openState(dir);
      const d = rest.indexOf("--dataset");
      const dataset = d >= 0 ? rest[d + 1] : undefined;
      if (dataset === undefined) throw new TypeError("--dataset is required");
      const dd = rest.indexOf("--data-dir");
      const names = await loadNames(
        resolveDataDir(dd >= 0 ? rest[dd + 1] : undefined),
        dataset,
        "labels",
      ).catch(() => undefined);
      const model = l.parser.labels.names;
      const aligned = model.every((n, j) =>
        n === String(j) || (names !== undefined && n === names[j])
      );
      if (!aligned) {
        throw new TypeError(
          `the labels of ${dir} are not in ${dataset}'s label order (the model learned from ` +
            `events); POP ranks labels by ${dataset}.train.txt, so prune a model trained with ` +
            `'tagstream train --data ${dataset}.train.txt'`,
        );
      }
      temp = await Deno.makeTempFile({ prefix: "tagstream-prune-", suffix: ".tsm" });
      await writeFileAtomic(temp, modelFileOf(l));
      // the temporary file is removed at the end: the summary and messages name the state
      // directory, whose model stays usable when POP cannot help
      source = dir;
      rest.push("--model", temp);
      if (!rest.includes("--out")) rest.push("--out", `${dir}/model.pop.tsm`);
    }
    try {
      // Loaded on demand: the other commands do not depend on the prune CLI.
      const { parsePruneArgs, runPrune } = await import("../prune.ts");
      const summary = await runPrune({
        ...parsePruneArgs(rest),
        ...(source !== undefined ? { source } : {}),
        progress: new Progress(),
      });
      console.log(JSON.stringify(summary));
    } finally {
      if (temp !== undefined) await Deno.remove(temp).catch(() => {});
    }
    return 0;
  },
};
