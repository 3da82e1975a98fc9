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
 * nothing writes no model and exits with status 1. SIGINT or SIGTERM during a `--data` run
 * stops it cleanly (status 130 / 143, `"interrupted"` in the summary): no model file (it would
 * hold part of the data), no temporary state left behind; with `--state-dir` an NDJSON run
 * saves a last checkpoint and resumes from it.
 *
 * @module
 */
import { loadXcFile, rowView } from "../../data/dataset.ts";
import { formatFromName } from "../../data/readers.ts";
import type { Example } from "../../data/types.ts";
import { loadFactory } from "../../models/registry.ts";
import { writeFileAtomic } from "../../service/checkpoint.ts";
import { showProgress } from "../../service/live_progress.ts";
import { type Reject, StreamLearner } from "../../service/learner.ts";
import { LearningService } from "../../service/service.ts";
import { MAX_TIMER_MS } from "../../service/option_rules.ts";
import { Progress } from "../../progress/mod.ts";
import { type Command, type Flags, intFlag, numberFlag, parseFlags, stringFlag } from "./args.ts";
import {
  checkSizeOptions,
  DEFAULT_MODEL,
  LEARNER_FLAGS,
  LEARNER_USAGE,
  learnerOptionFlags,
  TRAIN_LIMITS,
  TRAIN_LIMITS_USAGE,
  usageWithModelOptions,
} from "./learner_flags.ts";
import {
  checkEventFile,
  checkFollowFile,
  checkInputFile,
  checkOutFile,
  checkStateDir,
} from "./path_checks.ts";
import type { LearnerOptions } from "../../service/learner.ts";
import type { EstimatorFactory } from "../../models/estimator.ts";
import { PUBLISH_FLAGS, PUBLISH_USAGE, publishBuilder } from "./publish.ts";
import { modelFileOf } from "./export.ts";
import { labelsBeside, readLabelsFlag } from "./label_names.ts";
import { refuseChangedSettings } from "./resume_settings.ts";
import { namedCheckpointError, namedStateDirError } from "./state.ts";
import { noteAlsoFailed } from "./stop_steps.ts";
import { trainCheckpointError } from "./train_damage.ts";
import { lockStateDir, type StateDirLock } from "../state_lock.ts";

const USAGE =
  `tagstream train (--data FILE | --follow FILE) [--state-dir DIR] [--out FILE.tsm] [options]

Learns test-then-train (each event is scored, then learned) from a file, without a server.

Input:
  --data FILE             one pass over an XC/LIBSVM training file or an NDJSON event file
  --format F              xc, libsvm or ndjson (default: from the extension, .gz aside:
                          .ndjson/.jsonl ndjson, .svm/.libsvm libsvm, else xc)
  --labels FILE           label names of an XC file, one per line (default: NAME.labels.txt
                          next to NAME.train.txt, else the label indices)
  --follow FILE           tail an NDJSON event file until SIGINT/SIGTERM (needs --state-dir;
                          a file that does not exist yet is waited for; a gzip file cannot be
                          followed: give it as --data)
  --on-error fail|skip    a malformed line: stop (XC/LIBSVM default: the error names the line)
                          or skip and count it (NDJSON default: rejected lines are counted and
                          the first reasons listed; with fail a run that rejected any line
                          exits with status 2 after keeping what it learned)

Output:
  --state-dir DIR         resume from and save to this state directory (as serve does; an
                          NDJSON file is read on from its checkpointed offset)
  --out FILE              write the (unpruned) model file at the end (checked first: it must
                          be writable, and an existing file there must be a model file, not
                          an input)
  --checkpoint-every N    NDJSON with --state-dir: checkpoint after N events (default 5000)
  --checkpoint-seconds T  NDJSON with --state-dir: checkpoint at least every T seconds
                          (default 5)
  --quiet                 no progress line

${PUBLISH_USAGE}
  (publishing applies to --follow and NDJSON --data runs with a --state-dir; a --data run
  also publishes at the end of the file, so STATE_DIR/model.tsm holds every event read)

Ctrl-C (SIGINT) or SIGTERM during a --data run stops it cleanly (exit status 130 / 143): no
model file is written (it would hold part of the data); an NDJSON run with --state-dir saves
what it learned there and resumes after the last line read when run again.

Every flag is checked before any data is read; a flag the run would ignore (publishing and
checkpoint flags of an XC/LIBSVM run or of a run without --state-dir, --labels of an NDJSON
run) is an error naming it.

${LEARNER_USAGE}

${TRAIN_LIMITS_USAGE}

Examples:
  npx deno task tagstream train --data $TAGSTREAM_DATA/bibtex.train.txt --out bibtex.tsm
  npx deno task tagstream train --follow events.ndjson --state-dir state --model leml
  npx deno task tagstream train --data $TAGSTREAM_DATA/debtags.train.ndjson --model ova \\
    --text-only --out debtags-text.tsm`;

function formatOf(path: string, flag: string | undefined): "xc" | "libsvm" | "ndjson" {
  // the readers' rule (case-insensitive: EVENTS.NDJSON, data.SVM.gz), as demo and the library
  const f = flag ?? formatFromName(path);
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

/** SIGINT and SIGTERM as a `train` run sees them (see {@linkcode interruptions}). */
interface Interruptions {
  /** The first signal received, if any. */
  readonly signal: Deno.Signal | undefined;
  /** Resolves when a signal arrives (at once if one did). */
  next(): Promise<void>;
  /** Stops listening: the signals end the process again. */
  dispose(): void;
}

/**
 * SIGINT and SIGTERM, listened for until `dispose()`: the default action, ending the process at
 * once, is off meanwhile, so that a run stops cleanly, says what it kept and never dies in the
 * middle of writing a checkpoint or a model file (a signal then is held until the write ends).
 */
function interruptions(): Interruptions {
  let signal: Deno.Signal | undefined;
  let wake = () => {};
  const arrived = new Promise<void>((resolve) => wake = resolve);
  const added: [Deno.Signal, () => void][] = [];
  for (const s of ["SIGINT", "SIGTERM"] as const) {
    const handler = () => {
      if (signal !== undefined) return;
      signal = s;
      wake();
    };
    try {
      Deno.addSignalListener(s, handler);
      added.push([s, handler]);
    } catch {
      // a signal this platform does not deliver (SIGTERM on Windows)
    }
  }
  return {
    get signal() {
      return signal;
    },
    next: () => arrived,
    dispose() {
      for (const [s, h] of added) Deno.removeSignalListener(s, h);
    },
  };
}

/** The exit status of a run ended by `signal`: 128 + its number, as a shell reports it. */
function signalStatus(signal: string): number {
  return signal === "SIGINT" ? 130 : 143;
}

/** Lets pending events (a signal) run: the XC loop is otherwise synchronous. */
function yieldToEvents(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** What a run did itself (the learner's counts include earlier runs of a --state-dir). */
interface RunCounts {
  /** Lines this run rejected (skipped by the loader, or refused by the learner). */
  rejected: number;
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
  // what the model says its user should know (e.g. knn's k above the rows it learnt)
  const note = l.estimator.trainingNote?.();
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
    ...(note !== undefined ? { note } : {}),
    ...extra,
  };
}

/**
 * At the end of an NDJSON --data file, waits for the published model of every event read (the
 * service publishes it when the file ends; `service.publish()` hands back that publish while it
 * runs), unless publishing is off (`every` 0), and says what was published.
 */
async function publishAtEnd(
  service: LearningService,
  every: number,
): Promise<Record<string, unknown> | null> {
  const l = service.learner;
  if (every === 0 || l.applied === 0) return null;
  let m = service.published;
  // (a publish in flight when the file ended may hold fewer events: publish again after it)
  while (m === undefined || m.applied < l.applied) m = await service.publish();
  return {
    path: service.modelPath,
    applied: m.applied,
    bytes: m.bytes.length,
    pruned: m.pruned,
    ...(m.note !== undefined ? { note: m.note } : {}),
  };
}

async function writeOut(l: StreamLearner, out: string | undefined): Promise<number | undefined> {
  if (out === undefined) return undefined;
  const bytes = modelFileOf(l, {});
  await writeFileAtomic(out, bytes);
  return bytes.length;
}

/**
 * Refuses an XC/LIBSVM file whose feature or label space is over `--max-features` /
 * `--max-labels`, before a model of that size is allocated: the error names the file, its
 * header (or, without one, the largest index) and the flag that raises the limit.
 */
function checkDataSizes(
  data: string,
  format: "xc" | "libsvm",
  ds: { numFeatures: number; numLabels: number; report: { header?: unknown } },
  limits: { maxFeatures: number; maxLabels: number },
): void {
  const header = ds.report.header !== undefined;
  // the index as the file writes it: LIBSVM's features count from 1 (it said 4 for a '5:2')
  const base = format === "libsvm" ? 1 : 0;
  const sizes = [
    [ds.numFeatures, "features", "feature", "max-features", limits.maxFeatures, base],
    [ds.numLabels, "labels", "label", "max-labels", limits.maxLabels, 0],
  ] as const;
  for (const [n, what, one, flag, max, first] of sizes) {
    if (n <= max) continue;
    throw new RangeError(
      `${data}: ${
        header
          ? `the header declares ${n} ${what}`
          : `${one} index ${n - 1 + first} needs ${n} ${what}`
      }, above --${flag} ${max} (raise the limit with --${flag} N)`,
    );
  }
}

/** The size limits of a `train` run: `--max-features`, `--max-labels` or their defaults. */
function sizeLimits(o: LearnerOptions): { maxFeatures: number; maxLabels: number } {
  return {
    maxFeatures: o.limits?.maxFeatures ?? TRAIN_LIMITS.maxFeatures,
    maxLabels: o.limits?.maxLabels ?? TRAIN_LIMITS.maxLabels,
  };
}

/** One pass over an XC/LIBSVM file, rows fed straight to the learner (no JSON). */
async function trainXc(
  f: Flags,
  data: string,
  format: "xc" | "libsvm",
  learnerOptions: LearnerOptions,
  factory: EstimatorFactory,
  sig: Interruptions,
  run: RunCounts,
  lock: RunLock,
): Promise<TrainSummary> {
  const onError = onErrorFlag(f) ?? "fail", skipping = onError !== "fail";
  const ds = await loadXcFile(data, { format, onError });
  checkDataSizes(data, format, ds, sizeLimits(learnerOptions));
  const names = await labelNamesFor(data, stringFlag(f, "labels"), ds.numLabels);
  const quiet = f.values.quiet === true;
  const modelOptions = {
    numFeatures: ds.numFeatures,
    numLabels: ds.numLabels,
    ...learnerOptions.modelOptions,
  };
  // a file without rows teaches nothing: no model, no state directory
  const stateDir = ds.x.numRows === 0 ? undefined : stringFlag(f, "state-dir");
  if (stateDir !== undefined) await lock.take();
  const service = stateDir === undefined ? undefined : await LearningService.open({
    ...learnerOptions,
    modelOptions,
    labelNames: names,
    factory,
    stateDir,
    publishEvery: 0,
    log: quiet ? () => {} : (m) => console.error(`[tagstream] ${m}`),
  }).catch((e) => {
    throw trainCheckpointError(namedCheckpointError(e, stateDir), stateDir, data, false);
  });
  try {
    const l = service?.learner ??
      StreamLearner.create(factory, { ...learnerOptions, modelOptions, labelNames: names });
    const applied0 = l.applied, rejected0 = l.rejected;
    const first = keepFirstRejects(l);
    // Dataset label index → learner label index (identity for a fresh learner).
    const map = Int32Array.from(names, (n) => l.parser.labels.idOf(n, true));
    const identity = map.every((v, i) => v === i);
    const progress = quiet ? Progress.silent() : new Progress();
    progress.start(ds.x.numRows, `${factory.kind} on ${ds.name}`);
    const t0 = performance.now();
    // Ctrl-C / SIGTERM end the pass cleanly: nothing written from a partial pass
    let rowsDone = 0, yieldedAt = t0;
    for (let i = 0; i < ds.x.numRows && sig.signal === undefined; i++) {
      const y = ds.y.indices.subarray(ds.y.indptr[i], ds.y.indptr[i + 1]);
      const labels = identity ? y : Int32Array.from(y, (v) => map[v]).sort();
      const e: Example = { id: `${ds.name}:${i + 2}`, x: rowView(ds.x, i), labels };
      const refusal = l.refusal(e);
      if (refusal !== undefined) {
        // rows are lines (after XC's header) unless bad lines were skipped: then name the row
        const where = skipping ? `row ${i + 1}` : `line ${i + (format === "xc" ? 2 : 1)}`;
        // the model counts columns from 0; a LIBSVM file numbers its features from 1
        const why = format === "libsvm"
          ? refusal.replace(/^feature (\d+)/, (_, j) => `feature ${Number(j) + 1}`)
          : refusal;
        throw new RangeError(`Cannot learn ${where} of ${data}: ${why}; nothing written`);
      }
      l.ingest(e);
      rowsDone = i + 1;
      if ((i & 255) === 255) {
        progress.tick(256, { "P@1": l.window.precisionAt1, "P@5": l.window.precisionAt5 });
      }
      // a signal is seen within ~50 ms whatever the learner's speed (every 256 rows was seconds
      // of a slow one: leml rank 256 with 5,000 labels takes ~20 ms a row)
      if (performance.now() - yieldedAt > 50) {
        await yieldToEvents();
        yieldedAt = performance.now();
      }
    }
    const out = stringFlag(f, "out");
    if (sig.signal !== undefined) {
      progress.done();
      // the state directory keeps its checkpoint from before the run: a partial pass is not
      // saved (a new run passes over the whole file again)
      console.error(
        `[tagstream] interrupted by ${sig.signal} after ${rowsDone} of ${ds.x.numRows} rows of ` +
          `${data}: nothing written${out ? ` to ${out}` : ""}${
            stateDir ? `; ${stateDir} keeps the state it had before this run` : ""
          }`,
      );
      return {
        ...summary(l, {}),
        interrupted: sig.signal,
        data,
        rows: ds.x.numRows,
        rowsLearned: rowsDone,
        stateDir: stateDir ?? null,
        out: null,
        modelBytes: null,
      };
    }
    l.flush();
    const seconds = (performance.now() - t0) / 1000;
    progress.tick(ds.x.numRows & 255, { "P@1": l.window.precisionAt1 });
    progress.done();
    await service?.stop();
    const applied = l.applied - applied0;
    // lines the loader skipped (--on-error skip) are rejected lines too, listed first
    const skipped = ds.report.skipped;
    const rejected = skipped + (l.rejected - rejected0);
    run.rejected = rejected;
    const rejects: Reject[] = [
      ...ds.report.errors.map((e) => ({ source: data, line: e.line, reason: e.message })),
      ...first,
    ].slice(0, FIRST_REJECTS);
    if (rejected > applied) {
      console.error(
        `[tagstream] rejected ${rejected} of ${rejected + applied} lines of ${data}; first ` +
          `reasons:\n${rejects.map((r) => `  line ${r.line}: ${r.reason}`).join("\n")}`,
      );
    }
    const learnedNothing = applied === 0;
    if (learnedNothing) {
      console.error(
        `[tagstream] learned nothing from ${data}: no model written${out ? ` to ${out}` : ""}`,
      );
    }
    const modelBytes = learnedNothing ? undefined : await writeOut(l, out);
    return {
      ...summary(l, {}, rejects),
      rejected: l.rejected + skipped,
      learnedNothing,
      data,
      rows: ds.x.numRows,
      trainSeconds: seconds,
      eventsPerSecond: ds.x.numRows / seconds,
      stateDir: stateDir ?? null,
      out: learnedNothing ? null : out ?? null,
      modelBytes: modelBytes ?? null,
      ...(skipped > 0
        ? {
          skipped,
          skippedFirst: ds.report.errors.map((e) => e.message),
        }
        : {}),
    };
  } finally {
    // an interrupted or refused pass saves nothing (a full one has stopped with its checkpoint
    // already): the service stops without its last checkpoint, its write-ahead log closed
    await service?.stop({ checkpoint: false }).catch((e) =>
      noteAlsoFailed("stopping the service", namedStateDirError(e, stateDir!))
    );
  }
}

/** `--on-error fail|skip`, or undefined when not given. */
function onErrorFlag(f: Flags): "fail" | "skip" | undefined {
  const v = stringFlag(f, "on-error");
  if (v !== undefined && v !== "fail" && v !== "skip") {
    throw new TypeError(`tagstream train: --on-error must be fail or skip, got '${v}'`);
  }
  return v;
}

/**
 * The lock of a `train` run's state directory ({@linkcode lockStateDir}), taken once, when first
 * asked for, and held until `release()`.
 */
class RunLock {
  #held: StateDirLock | undefined;
  constructor(readonly stateDir: string | undefined) {}
  /** Takes the lock (once; nothing without a state directory). */
  async take(): Promise<void> {
    if (this.stateDir !== undefined) this.#held ??= await lockStateDir(this.stateDir, "train");
  }
  /** Releases it, if taken. */
  release(): void {
    this.#held?.release();
  }
}

/**
 * An error met while a run used `stateDir` (a full disk failing its last checkpoint or publish),
 * naming the state directory and the file as {@linkcode namedStateDirError} does, but as a plain
 * Error: the run failed, its input was not bad (exit status 1, not 2).
 */
function runError(e: unknown, stateDir: string): unknown {
  const named = namedStateDirError(e, stateDir);
  return named === e ? e : new Error((named as Error).message, { cause: e });
}

/** An NDJSON file through the service: once (`follow` false) or followed until a signal. */
async function trainEvents(
  f: Flags,
  file: string,
  follow: boolean,
  learnerOptions: LearnerOptions,
  factory: EstimatorFactory,
  sig: Interruptions,
  run: RunCounts,
): Promise<TrainSummary> {
  let stateDir = stringFlag(f, "state-dir");
  const temp = stateDir === undefined;
  // validated before the (temporary) state directory exists
  const publishing = temp ? { publishEvery: 0 } : publishBuilder(f);
  // a temporary state directory is never resumed from: no checkpoints (nor write-ahead log, nor
  // published models), which cost up to a tenth of the run
  const checkpointEvery = temp ? 0 : intFlag(f, "checkpoint-every", 5000, 1);
  const checkpointSeconds = numberFlag(f, "checkpoint-seconds", 5, 0, MAX_TIMER_MS / 1000);
  if (temp) stateDir = await Deno.makeTempDir({ prefix: "tagstream-train-" });
  const quiet = f.values.quiet === true;
  let service: LearningService;
  try {
    service = await LearningService.open({
      ...learnerOptions,
      ...publishing,
      factory,
      stateDir: stateDir!,
      file,
      followFile: follow,
      wal: !temp,
      checkpointEvery,
      checkpointSeconds,
      log: quiet ? () => {} : (m) => console.error(`[tagstream] ${m}`),
    });
  } catch (e) {
    if (temp) await Deno.remove(stateDir!, { recursive: true }).catch(() => {});
    throw trainCheckpointError(namedCheckpointError(e, stateDir!), stateDir!, file, true);
  }
  if (!temp) {
    // a resumed state directory keeps its learner's settings: a flag asking for others is refused
    try {
      refuseChangedSettings(f, service.learner, stateDir!);
    } catch (e) {
      await service.stop().catch((stopError) =>
        noteAlsoFailed("stopping the service", namedStateDirError(stopError, stateDir!))
      );
      throw e;
    }
  }
  // the file the state directory had read when this run began (a rerun on it: see readBefore)
  const resumedFile = service.learner.position.file?.path;
  const t0 = performance.now(), applied0 = service.learner.applied;
  const rejected0 = service.learner.rejected, rejects = keepFirstRejects(service.learner);
  const endProgress = quiet ? undefined : showProgress(service, new Progress(), `learning ${file}`);
  let interrupted: Deno.Signal | undefined;
  let published: Record<string, unknown> | null = null, learnedAt: number | undefined;
  // (a failed run's error, thrown once the service stopped)
  let runFailure: { error: unknown } | undefined;
  try {
    await service.start();
    // --follow: until a signal; --data: until the end of the file, or a signal
    await (follow ? sig.next() : Promise.race([service.fileDone(), sig.next()]));
    interrupted = follow ? undefined : sig.signal;
    if (!follow && interrupted === undefined) {
      // (the service learnt the queued events when the file ended, and publishes them: the
      // rate leaves that publish out)
      learnedAt = performance.now();
      published = await publishAtEnd(service, temp ? 0 : publishing.publishEvery ?? 5000);
    }
  } catch (e) {
    runFailure = { error: e };
  }
  // with --state-dir, the last checkpoint (a signal now waits for it): an interrupted --data
  // run resumes where it stopped
  let stopFailure: { error: unknown } | undefined;
  try {
    await service.stop();
  } catch (e) {
    stopFailure = { error: e };
  }
  endProgress?.();
  if (temp) await Deno.remove(stateDir!, { recursive: true }).catch(() => {});
  if (runFailure !== undefined) {
    // the run's error is the one reported; a failed stop after it is a note beside it
    if (stopFailure !== undefined) {
      noteAlsoFailed(
        "stopping the service",
        temp ? stopFailure.error : namedStateDirError(stopFailure.error, stateDir!),
      );
    }
    throw temp ? runFailure.error : runError(runFailure.error, stateDir!);
  }
  // after a good run, a failed stop fails it: the last checkpoint may not be saved (a full
  // disk: the error names the state directory's file, not only the OS's reason)
  if (stopFailure !== undefined) {
    throw temp ? stopFailure.error : runError(stopFailure.error, stateDir!);
  }
  const l = service.learner;
  const seconds = ((learnedAt ?? performance.now()) - t0) / 1000;
  const applied = l.applied - applied0, rejected = l.rejected - rejected0;
  run.rejected = rejected;
  // the same command again after a run that read the whole file (killed after its last
  // checkpoint, before --out was written): the state directory holds the file, nothing is new
  // (only on the file the state directory had read: another file with no event learned nothing)
  const readBefore = !follow && applied === 0 && rejected === 0 && l.applied > 0 &&
    resumedFile === file;
  const learnedNothing = l.applied === 0 ||
    (applied === 0 && (!follow || rejected > 0) && !readBefore);
  if (readBefore && !quiet) {
    console.error(
      `[tagstream] ${stateDir} holds ${file} to its end already (line ${
        l.position.file?.line ?? 0
      }, ${l.applied} events): nothing new to learn`,
    );
  }
  if (rejected > applied) {
    console.error(
      `[tagstream] rejected ${rejected} of ${
        rejected + applied
      } lines of ${file}; first reasons:\n${
        rejects.map((r) => `  line ${r.line}: ${r.reason}`).join("\n")
      }`,
    );
  }
  if (interrupted !== undefined) {
    const out = stringFlag(f, "out");
    const at = l.position.file?.line;
    console.error(
      `[tagstream] interrupted by ${interrupted} after ${applied} events of ${file}: no model ` +
        `written${out ? ` to ${out}` : ""} (it would hold part of the file)${
          temp
            ? "; give --state-dir DIR to keep what was learned and resume"
            : `; ${stateDir} keeps what was learned${
              at !== undefined ? ` and resumes after line ${at}` : ""
            }: run the same command again`
        }`,
    );
    return summary(l, {
      interrupted,
      data: file,
      follow,
      position: l.position.file ?? null,
      trainSeconds: seconds,
      stateDir: temp ? null : stateDir,
      out: null,
      modelBytes: null,
    }, rejects);
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
    published,
    out: learnedNothing ? null : stringFlag(f, "out") ?? null,
    modelBytes: modelBytes ?? null,
  }, rejects);
}

/** The flags of `train`. */
const TRAIN_FLAGS = {
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
} as const;

/** Model families whose model cannot be written as a model file (`--out`). */
const NOT_EXPORTABLE = new Set(["knn"]);

/**
 * Refuses the flags of `names` that were given: the run would ignore them (a TypeError naming
 * them and `why`).
 */
function refuseIgnored(f: Flags, names: readonly string[], why: string): void {
  const given = names.filter((k) => f.values[k] !== undefined);
  if (given.length === 0) return;
  throw new TypeError(
    `tagstream train: ${given.map((k) => `--${k}`).join(", ")} ${
      given.length > 1 ? "have" : "has"
    } no effect ${why}`,
  );
}

/** The `train` command. */
export const trainCommand: Command = {
  name: "train",
  summary: "learn from a data file, or follow an event file (--follow), without a server",
  usage: USAGE,
  async run(args) {
    const f = parseFlags("train", args, TRAIN_FLAGS, { maxPositionals: 0 });
    if (f.values.help) {
      console.log(await usageWithModelOptions(USAGE, f));
      return 0;
    }
    // Every flag is checked here, before any data is read or anything is written.
    const data = stringFlag(f, "data"), follow = stringFlag(f, "follow");
    if ((data === undefined) === (follow === undefined)) {
      throw new TypeError("tagstream train: give exactly one of --data FILE or --follow FILE");
    }
    const out = stringFlag(f, "out"), stateDir = stringFlag(f, "state-dir");
    // checked first: --out alone does not do for --follow
    if (follow !== undefined && stateDir === undefined) {
      throw new TypeError("tagstream train: --follow needs --state-dir (where the offset is kept)");
    }
    if (out === undefined && stateDir === undefined) {
      throw new TypeError(
        "tagstream train: give --out FILE and/or --state-dir DIR to keep the model",
      );
    }
    const format = follow !== undefined ? "ndjson" : formatOf(data!, stringFlag(f, "format"));
    if (
      follow !== undefined && f.values.format !== undefined && format !== stringFlag(f, "format")
    ) {
      throw new TypeError("tagstream train: --follow reads NDJSON events: drop --format");
    }
    onErrorFlag(f);
    const learnerOptions = learnerOptionFlags(f);
    const limits = sizeLimits(learnerOptions);
    checkSizeOptions(learnerOptions.modelOptions ?? {}, limits);
    const factory = await loadFactory(stringFlag(f, "model", DEFAULT_MODEL)!);
    // unknown keys and bad values of --option, named now rather than after reading the data
    factory.settings?.resolve(learnerOptions.modelOptions);
    if (out !== undefined && NOT_EXPORTABLE.has(factory.kind)) {
      throw new TypeError(
        `tagstream train: --model ${factory.kind} cannot be written as a model file: drop --out ` +
          `(keep it in --state-dir and evaluate it with tagstream eval --state-dir)`,
      );
    }
    const publishAndCheckpoint = [
      ...Object.keys(PUBLISH_FLAGS),
      "checkpoint-every",
      "checkpoint-seconds",
    ];
    if (format !== "ndjson") {
      if (learnerOptions.limits?.text !== undefined) {
        throw new TypeError(
          `tagstream train: --${
            f.values["text-only"] === true ? "text-only" : "text"
          } reads the "text" of NDJSON events: an XC/LIBSVM file has none (its features are indices)`,
        );
      }
      if (learnerOptions.limits?.featureKeys === "name") {
        throw new TypeError(
          "XC and LIBSVM files carry feature indices: use --feature-keys index",
        );
      }
      refuseIgnored(
        f,
        publishAndCheckpoint,
        "on an XC/LIBSVM --data run (it checkpoints once, at the end, and publishes nothing)",
      );
      if (stateDir === undefined) {
        refuseIgnored(
          f,
          ["strict-fields", "max-line-bytes"],
          "on an XC/LIBSVM --data run without --state-dir (they bound NDJSON event lines)",
        );
      }
    } else {
      refuseIgnored(
        f,
        ["labels"],
        "on NDJSON events (they carry label names; --labels names an XC/LIBSVM file's labels)",
      );
      if (stateDir === undefined) {
        refuseIgnored(f, publishAndCheckpoint, "without --state-dir (the run keeps no state)");
      } else publishBuilder(f);
    }
    intFlag(f, "checkpoint-every", 5000, 1);
    numberFlag(f, "checkpoint-seconds", 5, 0);
    if (follow !== undefined) {
      const exists = await checkFollowFile(follow);
      if (!exists && f.values.quiet !== true) {
        console.error(`[tagstream] ${follow} does not exist yet: waiting for it`);
      }
    } else await checkInputFile(data!, "data");
    if (format === "ndjson") await checkEventFile(follow ?? data!, follow ? "follow" : "data");
    if (stateDir !== undefined) await checkStateDir(stateDir);
    const labels = stringFlag(f, "labels");
    if (labels !== undefined) await checkInputFile(labels, "labels");
    if (out !== undefined) {
      const inputs = [
        follow !== undefined
          ? { what: `--follow ${follow}`, path: follow }
          : { what: `--data ${data}`, path: data! },
        ...(labels !== undefined ? [{ what: `--labels ${labels}`, path: labels }] : []),
      ];
      await checkOutFile(out, "out", { inputs, kind: "model" });
    }

    // one process at a time writes a state directory: one in use is refused now, before any
    // data is read (a new one is locked as it is created: an XC file without rows makes none)
    const lock = new RunLock(stateDir);
    const exists = stateDir !== undefined &&
      await Deno.stat(stateDir).then(() => true, () => false);
    if (format === "ndjson" || exists) await lock.take();

    let result: TrainSummary;
    const run: RunCounts = { rejected: 0 };
    // from here to the summary, SIGINT / SIGTERM stop the run cleanly (see interruptions)
    const sig = interruptions();
    try {
      if (follow !== undefined) {
        result = await trainEvents(f, follow, true, learnerOptions, factory, sig, run);
      } else {
        result = format === "ndjson"
          ? await trainEvents(f, data!, false, learnerOptions, factory, sig, run)
          : await trainXc(f, data!, format, learnerOptions, factory, sig, run, lock);
      }
    } finally {
      sig.dispose();
      lock.release();
    }
    console.log(JSON.stringify(result));
    if (typeof result.interrupted === "string") return signalStatus(result.interrupted);
    if (result.learnedNothing === true) return 1;
    // NDJSON with --on-error fail: rejected lines of this run fail it (what was learned is
    // kept); the summary's "rejected" also counts those of earlier runs of a --state-dir
    if (onErrorFlag(f) === "fail" && run.rejected > 0) {
      console.error(
        `tagstream train: ${run.rejected} line(s) rejected with --on-error fail (see ` +
          `"rejects" in the summary)`,
      );
      return 2;
    }
    return 0;
  },
};
