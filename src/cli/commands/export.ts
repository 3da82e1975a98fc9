/**
 * `tagstream export`: writes the model of a state directory (the checkpoint `serve` and
 * `train` keep) as a model file, with label names, the feature vocabulary in name mode, the
 * training metadata and an optional float16/int8 quantisation.
 *
 * @module
 */
import { writeFileAtomic } from "../../service/checkpoint.ts";
import type { StreamLearner } from "../../service/learner.ts";
import { logAfterCheckpoint, openState } from "./state.ts";
import { type Command, parseFlags, requiredFlag, stringFlag } from "./args.ts";
import { checkOutFile, checkStateDir } from "./path_checks.ts";

const USAGE =
  `tagstream export --state-dir DIR --out FILE.tsm [--quantize f32|f16|i8] [--model NAME]

Writes the model of a state directory (its checkpoint) as a model file for the SDK: label names,
the feature vocabulary (name-keyed events) or hashing parameters (hash-keyed events; with a text
model's tokenizer), training metadata (events applied, prequential P@1/P@5). POP-pruned files
come from 'tagstream prune' or from serve's GET /model.

  --state-dir DIR     the state directory of serve / train
  --out FILE          model file to write
  --quantize Q        f32 (default), f16 or i8 tensors
  --model NAME        model family of the checkpoint (default: read from the checkpoint)

Example:
  npx deno task tagstream export --state-dir state --out model.tsm --quantize f16`;

/**
 * The model file of a learner: label names (indices for unnamed labels), the feature
 * vocabulary in name mode, and metadata (events, prequential P@1/P@5 in percent).
 *
 * @example
 * ```ts
 * import { factory } from "../../models/popularity/mod.ts";
 * import { StreamLearner } from "../../service/learner.ts";
 * import { modelFileOf } from "./export.ts";
 * const l = StreamLearner.create(factory, { batchSize: 1 });
 * l.ingestLine('{"features": {"0": 1}, "labels": ["a"]}', "demo", 1);
 * console.log(modelFileOf(l).length > 0); // true
 * ```
 */
export function modelFileOf(
  l: StreamLearner,
  options: { quantize?: "f32" | "f16" | "i8"; meta?: Record<string, unknown> } = {},
): Uint8Array {
  const est = l.estimator;
  const names = l.parser.labels.names;
  const fin = (v: number) => (Number.isFinite(v) ? v : null);
  return est.toModelFile({
    labelNames: Array.from({ length: est.numLabels }, (_, i) => names[i] ?? String(i)),
    featureSpace: l.parser.featureSpace(est.numFeatures),
    quantize: options.quantize,
    meta: {
      modelVersion: l.modelVersion,
      eventsApplied: l.applied,
      eventsLearned: l.learned,
      prequentialP1: fin(l.window.cumulativeP1),
      prequentialP5: fin(l.window.cumulativeP5),
      exportedAt: new Date().toISOString(),
      ...options.meta,
    },
  });
}

/** The `export` command. */
export const exportCommand: Command = {
  name: "export",
  summary: "write the model of a state directory as a model file (optionally quantised)",
  usage: USAGE,
  async run(args) {
    const f = parseFlags("export", args, {
      "state-dir": "string",
      out: "string",
      quantize: "string",
      model: "string",
    }, { maxPositionals: 0 });
    if (f.values.help) {
      console.log(USAGE);
      return 0;
    }
    const stateDir = requiredFlag(f, "state-dir", "export");
    const out = requiredFlag(f, "out", "export");
    const q = stringFlag(f, "quantize", "f32");
    if (q !== "f32" && q !== "f16" && q !== "i8") {
      throw new TypeError(`--quantize must be f32, f16 or i8, got '${q}'`);
    }
    await checkStateDir(stateDir);
    await checkOutFile(out, "out", { kind: "model" });
    const l = await openState(stateDir, stringFlag(f, "model"));
    const bytes = modelFileOf(l, { quantize: q === "f32" ? undefined : q });
    // what the file does not hold, said (it was written silently)
    const warnings: string[] = [];
    // (a log that cannot be read, or a segment a running server releases meanwhile, does not
    // stop the export of the checkpoint: it is said)
    const logged = await logAfterCheckpoint(stateDir, l).then(
      (r) => r.lines.length,
      (e: Error) => e.message,
    );
    if (typeof logged === "string") {
      warnings.push(
        `cannot read the write-ahead log after the checkpoint (${logged}): the events in it, if ` +
          "any, are not in the model",
      );
    } else if (logged > 0) {
      warnings.push(
        `${logged} event(s) in ${stateDir}/wal after the checkpoint are not in the model (a ` +
          "restart replays them: stop serve, which checkpoints, or POST /checkpoint, and export " +
          "again)",
      );
    }
    if (l.learned === 0) {
      warnings.push(
        `the checkpoint of ${stateDir} has learned no events (${l.applied} applied, ${l.pendingCount} ` +
          "queued for the first minibatch): the model knows nothing",
      );
    }
    await writeFileAtomic(out, bytes);
    for (const w of warnings) console.error(`tagstream export: warning: ${w}`);
    console.log(JSON.stringify({
      out,
      bytes: bytes.length,
      model: l.estimator.kind,
      numFeatures: l.estimator.numFeatures,
      numLabels: l.estimator.numLabels,
      eventsApplied: l.applied,
      quantize: q,
      ...(warnings.length > 0 ? { warnings } : {}),
    }));
    return 0;
  },
};
