/**
 * `tagstream train`: learns test-then-train from a file, without a server.
 *
 * - `--data FILE` reads an XC (or LIBSVM) training file or an NDJSON event file once;
 * - `--follow FILE` tails an NDJSON event file (like `tail -F`) until SIGINT/SIGTERM.
 *
 * With `--state-dir` the learner resumes from the directory's checkpoint and saves there (the
 * same state `serve` uses: a followed file resumes at its checkpointed offset); `--out` writes
 * the model file at the end. The last stdout line is one JSON summary: with the rejected count,
 * the first reasons (`rejects`) and the fields the events carried that were ignored
 * (`ignoredFields`). A run that rejects most of its lines says so on stderr; one that learned
 * nothing writes no model and exits with status 1.
 *
 * @module
 */
import { loadXcFile, rowView } from "../../data/dataset.ts";
import type { Example } from "../../data/types.ts";
import { loadFactory } from "../../models/registry.ts";
import { writeFileAtomic } from "../../service/checkpoint.ts";
import { showProgress } from "../../service/live_progress.ts";
import { type Reject, StreamLearner } from "../../service/learner.ts";
import { LearningService } from "../../service/service.ts";
import { Progress } from "../../progress/mod.ts";
import {
  type Command,
  type Flags,
  intFlag,
  LEARNER_FLAGS,
  LEARNER_USAGE,
  learnerOptionFlags,
  numberFlag,
  parseFlags,
  stringFlag,
  usageWithModelOptions,
} from "./args.ts";
import { PUBLISH_FLAGS, PUBLISH_USAGE, publishBuilder } from "./publish.ts";
import { modelFileOf } from "./export.ts";
import { labelsBeside, readLabelsFlag } from "./label_names.ts";

const USAGE =
  `tagstream train (--data FILE | --follow FILE) [--state-dir DIR] [--out FILE.tsm] [options]

Learns test-then-train (each event is scored, then learned) from a file, without a server.

Input:
  --data FILE             one pass over an XC/LIBSVM training file or an NDJSON event file
  --format F              xc, libsvm or ndjson (default: from the extension; .ndjson/.jsonl: ndjson)
  --labels FILE           label names of an XC file, one per line (default: NAME.labels.txt
                          next to NAME.train.txt, else the label indices)
  --follow FILE           tail an NDJSON event file until SIGINT/SIGTERM (needs --state-dir)
  --on-error fail|skip    a malformed line: stop (XC/LIBSVM default: the error names the line)
                          or skip and count it (NDJSON default: rejected lines are counted and
                          the first reasons listed; with fail a run that rejected any line
                          exits with status 2 after keeping what it learned)

Output:
  --state-dir DIR         resume from and save to this state directory (as serve does; an
                          NDJSON file is read on from its checkpointed offset)
  --out FILE              write the (unpruned) model file at the end
  --checkpoint-every N    with --follow: checkpoint after N events (default 5000)
  --checkpoint-seconds T  with --follow: checkpoint at least every T seconds (default 5)
  --quiet                 no progress line

${PUBLISH_USAGE}
  (publishing applies to --follow and NDJSON --data runs with a --state-dir)

${LEARNER_USAGE}

Examples:
  npx deno task tagstream train --data $TAGSTREAM_DATA/bibtex.train.txt --out bibtex.tsm
  npx deno task tagstream train --follow events.ndjson --state-dir state --model leml
  npx deno task tagstream train --data $TAGSTREAM_DATA/debtags.train.ndjson --model ova \\
    --text-only --out debtags-text.tsm`;

function formatOf(path: string, flag: string | undefined): "xc" | "libsvm" | "ndjson" {
  const f = flag ??
    (/\.(ndjson|jsonl)(\.gz)?$/.test(path)
      ? "ndjson"
      : /\.(svm|libsvm)(\.gz)?$/.test(path)
      ? "libsvm"
      : "xc");
  if (f !== "xc" && f !== "libsvm" && f !== "ndjson") {
    throw new TypeError(`--format must be xc, libsvm or ndjson, got '${f}'`);
  }
  return f;
}

/** Label names of an XC file: --labels, else NAME.labels.txt next to NAME.<split>.txt. */
async function labelNamesFor(path: string, flag: string | undefined, L: number): Promise<string[]> {
  if (flag !== undefined) return await readLabelsFlag(flag, L);
  return await labelsBeside(path, L) ?? Array.from({ length: L }, (_, i) => String(i));
}

interface TrainSummary {
  [key: string]: unknown;
}

/** How many rejected lines the summary lists (the first ones). */
const FIRST_REJECTS = 5;

/**
 * Keeps the first rejected lines of `l` (the learner's own list keeps the last ones): wraps the
 * instance's `reject`.
 */
function keepFirstRejects(l: StreamLearner): Reject[] {
  const first: Reject[] = [], reject = l.reject.bind(l);
  l.reject = (source, line, reason) => {
    if (first.length < FIRST_REJECTS) first.push({ source, line, reason });
    reject(source, line, reason);
  };
  return first;
}

function summary(
  l: StreamLearner,
  extra: Record<string, unknown>,
  rejects: readonly Reject[] = [],
): TrainSummary {
  const ignored = l.parser.ignoredFields;
  return {
    model: l.estimator.kind,
    eventsApplied: l.applied,
    eventsLearned: l.learned,
    rejected: l.rejected,
    ...(rejects.length > 0
      ? { rejects: rejects.map(({ line, reason }) => ({ line, reason })) }
      : {}),
    ...(ignored.size > 0 ? { ignoredFields: Object.fromEntries(ignored) } : {}),
    numFeatures: l.estimator.numFeatures,
    numLabels: l.estimator.numLabels,
    prequentialP1: Number.isFinite(l.window.cumulativeP1) ? l.window.cumulativeP1 : null,
    prequentialP5: Number.isFinite(l.window.cumulativeP5) ? l.window.cumulativeP5 : null,
    ...extra,
  };
}

async function writeOut(l: StreamLearner, out: string | undefined): Promise<number | undefined> {
  if (out === undefined) return undefined;
  const bytes = modelFileOf(l, {});
  await writeFileAtomic(out, bytes);
  return bytes.length;
}

/** One pass over an XC/LIBSVM file, rows fed straight to the learner (no JSON). */
async function trainXc(f: Flags, data: string, format: "xc" | "libsvm"): Promise<TrainSummary> {
  const learnerOptions = learnerOptionFlags(f);
  if (learnerOptions.limits?.featureKeys === "name") {
    throw new TypeError("XC and LIBSVM files carry feature indices: use --feature-keys index");
  }
  const ds = await loadXcFile(data, { format, onError: onErrorFlag(f) ?? "fail" });
  const names = await labelNamesFor(data, stringFlag(f, "labels"), ds.numLabels);
  const factory = await loadFactory(stringFlag(f, "model", "leml")!);
  const stateDir = stringFlag(f, "state-dir");
  const quiet = f.values.quiet === true;
  const modelOptions = {
    numFeatures: ds.numFeatures,
    numLabels: ds.numLabels,
    ...learnerOptions.modelOptions,
  };
  const service = stateDir === undefined ? undefined : await LearningService.open({
    ...learnerOptions,
    modelOptions,
    labelNames: names,
    factory,
    stateDir,
    publishEvery: 0,
    log: quiet ? () => {} : (m) => console.error(`[tagstream] ${m}`),
  });
  const l = service?.learner ??
    StreamLearner.create(factory, { ...learnerOptions, modelOptions, labelNames: names });
  // Dataset label index → learner label index (identity for a fresh learner).
  const map = Int32Array.from(names, (n) => l.parser.labels.idOf(n, true));
  const identity = map.every((v, i) => v === i);
  const progress = quiet ? Progress.silent() : new Progress();
  progress.start(ds.x.numRows, `${factory.kind} on ${ds.name}`);
  const t0 = performance.now();
  for (let i = 0; i < ds.x.numRows; i++) {
    const y = ds.y.indices.subarray(ds.y.indptr[i], ds.y.indptr[i + 1]);
    const labels = identity ? y : Int32Array.from(y, (v) => map[v]).sort();
    const e: Example = { id: `${ds.name}:${i + 2}`, x: rowView(ds.x, i), labels };
    l.ingest(e);
    if ((i & 255) === 255) {
      progress.tick(256, { "P@1": l.window.precisionAt1, "P@5": l.window.precisionAt5 });
    }
  }
  l.flush();
  const seconds = (performance.now() - t0) / 1000;
  progress.tick(ds.x.numRows & 255, { "P@1": l.window.precisionAt1 });
  progress.done();
  await service?.stop();
  const modelBytes = await writeOut(l, stringFlag(f, "out"));
  return summary(l, {
    data,
    rows: ds.x.numRows,
    trainSeconds: seconds,
    eventsPerSecond: ds.x.numRows / seconds,
    stateDir: stateDir ?? null,
    out: stringFlag(f, "out") ?? null,
    modelBytes: modelBytes ?? null,
    ...(ds.report.skipped > 0
      ? {
        skipped: ds.report.skipped,
        skippedFirst: ds.report.errors.map((e) => e.message),
      }
      : {}),
  });
}

/** `--on-error fail|skip`, or undefined when not given. */
function onErrorFlag(f: Flags): "fail" | "skip" | undefined {
  const v = stringFlag(f, "on-error");
  if (v !== undefined && v !== "fail" && v !== "skip") {
    throw new TypeError(`tagstream train: --on-error must be fail or skip, got '${v}'`);
  }
  return v;
}

/** An NDJSON file through the service: once (`follow` false) or followed until a signal. */
async function trainEvents(f: Flags, file: string, follow: boolean): Promise<TrainSummary> {
  let stateDir = stringFlag(f, "state-dir");
  if (follow && stateDir === undefined) {
    throw new TypeError("tagstream train: --follow needs --state-dir (where the offset is kept)");
  }
  const temp = stateDir === undefined;
  if (temp) stateDir = await Deno.makeTempDir({ prefix: "tagstream-train-" });
  const quiet = f.values.quiet === true;
  const factory = await loadFactory(stringFlag(f, "model", "leml")!);
  const service = await LearningService.open({
    ...learnerOptionFlags(f),
    ...(temp ? { publishEvery: 0 } : publishBuilder(f)),
    factory,
    stateDir: stateDir!,
    file,
    followFile: follow,
    wal: !temp,
    checkpointEvery: intFlag(f, "checkpoint-every", 5000, 1),
    checkpointSeconds: numberFlag(f, "checkpoint-seconds", 5, 0),
    log: quiet ? () => {} : (m) => console.error(`[tagstream] ${m}`),
  });
  const t0 = performance.now(), applied0 = service.learner.applied;
  const rejected0 = service.learner.rejected, rejects = keepFirstRejects(service.learner);
  const endProgress = quiet ? undefined : showProgress(service, new Progress(), `learning ${file}`);
  let onSignal: (() => void) | undefined;
  try {
    await service.start();
    if (follow) {
      await new Promise<void>((resolve) => {
        onSignal = resolve;
        Deno.addSignalListener("SIGINT", resolve);
        Deno.addSignalListener("SIGTERM", resolve);
      });
    } else {
      await service.fileDone();
      service.learner.flush();
    }
  } finally {
    if (onSignal !== undefined) {
      Deno.removeSignalListener("SIGINT", onSignal);
      Deno.removeSignalListener("SIGTERM", onSignal);
    }
    await service.stop();
    endProgress?.();
    if (temp) await Deno.remove(stateDir!, { recursive: true }).catch(() => {});
  }
  const l = service.learner;
  const seconds = (performance.now() - t0) / 1000;
  const applied = l.applied - applied0, rejected = l.rejected - rejected0;
  const learnedNothing = l.applied === 0 || (applied === 0 && (!follow || rejected > 0));
  if (rejected > applied) {
    console.error(
      `[tagstream] rejected ${rejected} of ${
        rejected + applied
      } lines of ${file}; first reasons:\n${
        rejects.map((r) => `  line ${r.line}: ${r.reason}`).join("\n")
      }`,
    );
  }
  const modelBytes = learnedNothing ? undefined : await writeOut(l, stringFlag(f, "out"));
  if (learnedNothing) {
    console.error(
      `[tagstream] learned nothing from ${file}: no model written${
        stringFlag(f, "out") ? ` to ${stringFlag(f, "out")}` : ""
      }`,
    );
  }
  return summary(l, {
    learnedNothing,
    data: file,
    follow,
    position: l.position.file ?? null,
    trainSeconds: seconds,
    eventsPerSecond: (l.applied - applied0) / seconds,
    stateDir: temp ? null : stateDir,
    out: learnedNothing ? null : stringFlag(f, "out") ?? null,
    modelBytes: modelBytes ?? null,
  }, rejects);
}

/** The `train` command. */
export const trainCommand: Command = {
  name: "train",
  summary: "learn from a data file, or follow an event file (--follow), without a server",
  usage: USAGE,
  async run(args) {
    const f = parseFlags("train", args, {
      ...LEARNER_FLAGS,
      ...PUBLISH_FLAGS,
      data: "string",
      format: "string",
      labels: "string",
      follow: "string",
      "state-dir": "string",
      out: "string",
      "checkpoint-every": "string",
      "checkpoint-seconds": "string",
      "on-error": "string",
      quiet: "boolean",
    });
    if (f.values.help) {
      console.log(await usageWithModelOptions(USAGE, f));
      return 0;
    }
    const data = stringFlag(f, "data"), follow = stringFlag(f, "follow");
    if ((data === undefined) === (follow === undefined)) {
      throw new TypeError("tagstream train: give exactly one of --data FILE or --follow FILE");
    }
    if (f.values.out === undefined && f.values["state-dir"] === undefined) {
      throw new TypeError(
        "tagstream train: give --out FILE and/or --state-dir DIR to keep the model",
      );
    }
    let result: TrainSummary;
    if (follow !== undefined) {
      result = await trainEvents(f, follow, true);
    } else {
      const format = formatOf(data!, stringFlag(f, "format"));
      result = format === "ndjson"
        ? await trainEvents(f, data!, false)
        : await trainXc(f, data!, format);
    }
    console.log(JSON.stringify(result));
    if (result.learnedNothing === true) return 1;
    // NDJSON with --on-error fail: rejected lines fail the run (what was learned is kept)
    if (onErrorFlag(f) === "fail" && typeof result.rejected === "number" && result.rejected > 0) {
      console.error(
        `tagstream train: ${result.rejected} line(s) rejected with --on-error fail (see ` +
          `"rejects" in the summary)`,
      );
      return 2;
    }
    return 0;
  },
};
