/**
 * The checks of a decoded checkpoint's fields before a learner is restored from it: a checkpoint
 * that decodes (right format and checksum) but whose fields are missing, of the wrong type or do
 * not hold together (counters, queued events, label counts, sizes) is damaged or foreign, and is
 * refused with a {@linkcode CheckpointFieldError} naming the field instead of restoring a learner
 * with undefined metadata. An incremental checkpoint (a delta) is checked the same way, and
 * against the learner it is applied to (its counters must not go backwards, its names must be
 * new). Every check is O(1) or one pass over an array.
 *
 * @module
 */
import { isPlainObject, shown } from "../data/option_check.ts";
import type { Vocabulary } from "../data/vocabulary.ts";
import type { LearnerCheckpoint } from "./learner_types.ts";
import type { CheckpointDelta } from "./checkpoint_delta.ts";
import { checkLabelCounts, newNames } from "./learner_checks.ts";

/**
 * A checkpoint field that is missing, of the wrong type or does not agree with the others.
 *
 * @example
 * ```ts
 * import { CheckpointFieldError } from "./checkpoint_fields.ts";
 * const e = new CheckpointFieldError("applied", "must be a non-negative integer, got undefined");
 * console.log(e.message, e.field); // checkpoint: field applied must be a non-negative integer, got undefined applied
 * ```
 */
export class CheckpointFieldError extends SyntaxError {
  /** The field (dotted path, e.g. `options.batchSize`). */
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`checkpoint: field ${field} ${problem}`);
    this.name = "CheckpointFieldError";
    this.field = field;
  }
}

/**
 * Decoded checkpoint data that is not a Tagstream checkpoint (a model file or another program's
 * msgpack copied to `checkpoint.msgpack`), with why: the message is `Not a Tagstream checkpoint
 * (REASON)`; callers that name the file use {@linkcode NotACheckpointError.reason} rather than
 * the message's text.
 *
 * @example
 * ```ts
 * import { NotACheckpointError } from "./checkpoint_fields.ts";
 * const e = new NotACheckpointError("format field missing");
 * console.log(e instanceof TypeError, e.reason); // true format field missing
 * console.log(e.message); // Not a Tagstream checkpoint (format field missing)
 * ```
 */
export class NotACheckpointError extends TypeError {
  /** Why it is not one (e.g. `format field missing`). */
  readonly reason: string;

  constructor(reason: string) {
    super(`Not a Tagstream checkpoint (${reason})`);
    this.name = "NotACheckpointError";
    this.reason = reason;
  }
}

/**
 * A checkpoint of another model kind than the one asked for: the two kinds, so that a caller can
 * say how to go on (`--model FOUND` resumes it) without reading them out of the message.
 *
 * @example
 * ```ts
 * import { CheckpointKindError } from "./checkpoint_fields.ts";
 * const e = new CheckpointKindError("leml", "br");
 * console.log(e instanceof TypeError, e.found, e.asked); // true leml br
 * console.log(e.message); // Checkpoint holds a 'leml' model but 'br' was asked for
 * ```
 */
export class CheckpointKindError extends TypeError {
  /** The model kind the checkpoint holds. */
  readonly found: string;
  /** The model kind that was asked for. */
  readonly asked: string;

  constructor(found: string, asked: string) {
    super(`Checkpoint holds a '${found}' model but '${asked}' was asked for`);
    this.name = "CheckpointKindError";
    this.found = found;
    this.asked = asked;
  }
}

/**
 * Runs `restore` (the part of a restore that reads `field`), turning what it throws into a
 * {@linkcode CheckpointFieldError} naming the field.
 *
 * @example
 * ```ts
 * import { checkpointPart } from "./checkpoint_fields.ts";
 * import { Vocabulary } from "../data/vocabulary.ts";
 * try {
 *   checkpointPart("labels", () => Vocabulary.fromJSON({ names: ["a", "a"] }));
 * } catch (e) {
 *   console.log((e as Error).message); // checkpoint: field labels is damaged: Vocabulary: duplicate name 'a' (names 1 and 2)
 * }
 * ```
 */
export function checkpointPart<T>(field: string, restore: () => T): T {
  try {
    return restore();
  } catch (e) {
    if (e instanceof CheckpointFieldError) throw e;
    throw new CheckpointFieldError(field, `is damaged: ${(e as Error).message}`);
  }
}

function fail(field: string, what: string, v: unknown): never {
  // a typed array by its type and length, anything else as the option checks show it
  const got = ArrayBuffer.isView(v)
    ? `${v.constructor.name}(${(v as Uint8Array).length})`
    : shown(v).slice(0, 80);
  throw new CheckpointFieldError(field, `must be ${what}, got ${got}`);
}

function count(field: string, v: unknown, optional = false): number {
  if (optional && v === undefined) return 0;
  if (!(Number.isSafeInteger(v) && (v as number) >= 0)) {
    fail(field, "a non-negative integer", v);
  }
  return v as number;
}

function ints(field: string, v: unknown, below: number): void {
  if (!(v instanceof Int32Array)) return fail(field, "an Int32Array", v);
  for (let i = 0; i < v.length; i++) {
    if (!(v[i] >= 0 && v[i] < below)) fail(`${field}[${i}]`, `in [0, ${below})`, v[i]);
  }
}

/** The fields a full checkpoint and a delta share. */
type SharedFields = Pick<
  LearnerCheckpoint,
  | "state"
  | "pending"
  | "applied"
  | "learned"
  | "rejected"
  | "duplicates"
  | "idDigest"
  | "window"
  | "position"
  | "modelVersion"
  | "savedAt"
>;

/** Checks the shared fields; `queueLeftOut`: a replica's snapshot (its queue is left out). */
function checkShared(ck: SharedFields, numLabels: number, queueLeftOut: boolean): void {
  if (!isPlainObject(ck.state)) fail("state", "an object", ck.state);
  if (!Array.isArray(ck.pending)) fail("pending", "an array", ck.pending);
  for (let i = 0; i < ck.pending.length; i++) {
    const p = ck.pending[i], at = `pending[${i}]`;
    if (!isPlainObject(p)) fail(at, "an object", p);
    if (p.id !== undefined && typeof p.id !== "string") fail(`${at}.id`, "a string", p.id);
    ints(`${at}.indices`, p.indices, 2 ** 31 - 1);
    if (!(p.values instanceof Float32Array && p.values.length === p.indices.length)) {
      fail(`${at}.values`, `a Float32Array of ${p.indices.length} values`, p.values);
    }
    ints(`${at}.labels`, p.labels, numLabels);
    if (p.negatives !== undefined) ints(`${at}.negatives`, p.negatives, numLabels);
  }
  const applied = count("applied", ck.applied), learned = count("learned", ck.learned);
  count("rejected", ck.rejected);
  count("duplicates", ck.duplicates, true);
  // every applied event is learned or queued (a replica's snapshot leaves the queue out)
  if (queueLeftOut ? learned > applied : learned !== applied - ck.pending.length) {
    const what = queueLeftOut ? "at most applied" : "applied less the queued events";
    fail("learned", `${what} (${applied} - ${ck.pending.length})`, learned);
  }
  const d = ck.idDigest;
  if (!(Array.isArray(d) && d.length === 2 && d.every((x) => x >>> 0 === x))) {
    fail("idDigest", "two 32-bit unsigned integers", d);
  }
  if (!isPlainObject(ck.window)) fail("window", "an object", ck.window);
  if (ck.position !== undefined && !isPlainObject(ck.position)) {
    fail("position", "an object", ck.position);
  }
  checkDeadLetters(ck.position?.redis);
  count("modelVersion", ck.modelVersion, true);
  if (typeof ck.savedAt !== "string") fail("savedAt", "a string", ck.savedAt);
}

/**
 * Checks the rejected Redis entries waiting for their dead-letter copy (`position.redis
 * .deadLetter`, written by the service): an array of `{id, line, reason}` strings.
 */
function checkDeadLetters(redis: unknown): void {
  if (!isPlainObject(redis)) return;
  const list = (redis as { deadLetter?: unknown }).deadLetter;
  if (list === undefined) return;
  const field = "position.redis.deadLetter";
  if (!Array.isArray(list)) fail(field, "an array", list);
  for (let i = 0; i < list.length; i++) {
    const r = list[i];
    if (
      !isPlainObject(r) || typeof r.id !== "string" || typeof r.line !== "string" ||
      typeof r.reason !== "string"
    ) fail(`${field}[${i}]`, "an object of strings id, line and reason", r);
  }
}

/** Checks that every label count of `counts` is a count. */
function checkCounts(field: string, counts: Float64Array): void {
  for (let i = 0; i < counts.length; i++) {
    if (!(counts[i] >= 0 && counts[i] < Infinity)) fail(`${field}[${i}]`, "a count", counts[i]);
  }
}

/**
 * Checks the fields of a checkpoint whose `format` and `version` are right, except the parts
 * a restore reads with their own checks (`state`, `features`, `labels`, `window`, `ids`: run
 * those in {@linkcode checkpointPart}). `numLabels` is the size of the checkpoint's label
 * vocabulary (queued events' labels and the label counts must be within it).
 *
 * @throws {CheckpointFieldError} naming the first field that is wrong
 *
 * @example
 * ```ts
 * import { factory } from "../models/popularity/mod.ts";
 * import { StreamLearner } from "./learner.ts";
 * import { checkCheckpointFields } from "./checkpoint_fields.ts";
 * const ck = StreamLearner.create(factory).toCheckpoint();
 * checkCheckpointFields(ck, 0);
 * try {
 *   checkCheckpointFields({ ...ck, learned: 3 }, 0);
 * } catch (e) {
 *   console.log((e as Error).message); // checkpoint: field learned must be applied less the queued events (0 - 0), got 3
 * }
 * ```
 */
export function checkCheckpointFields(ck: LearnerCheckpoint, numLabels: number): void {
  if (typeof ck.kind !== "string") fail("kind", "a string", ck.kind);
  const o = ck.options;
  if (!isPlainObject(o)) fail("options", "an object", o);
  if (!(Number.isSafeInteger(o.batchSize) && o.batchSize >= 1)) {
    fail("options.batchSize", "a positive integer", o.batchSize);
  }
  if (!(Number.isSafeInteger(o.windowSize) && o.windowSize >= 1)) {
    fail("options.windowSize", "a positive integer", o.windowSize);
  }
  if (!isPlainObject(o.limits)) fail("options.limits", "an object", o.limits);
  checkShared(ck, numLabels, ck.replicaSeq !== undefined);
  const lc = ck.labelCounts;
  if (!(lc instanceof Float64Array && lc.length <= numLabels)) {
    fail("labelCounts", `a Float64Array of at most ${numLabels} counts`, lc);
  }
  checkCounts("labelCounts", lc);
  count("replicaSeq", ck.replicaSeq, true);
  if (ck.chain !== undefined && typeof ck.chain !== "string") fail("chain", "a string", ck.chain);
  count("chainSeq", ck.chainSeq, true);
}

/**
 * What a delta is checked against: the learner it is applied to, as it is before the delta.
 *
 * @example
 * ```ts
 * import type { DeltaTarget } from "./checkpoint_fields.ts";
 * const applied = (t: DeltaTarget) => t.applied;
 * console.log(typeof applied); // "function"
 * ```
 */
export interface DeltaTarget {
  /** The vocabularies. */
  parser: { features: Vocabulary; labels: Vocabulary };
  /** The counters (a delta's must not be smaller). */
  applied: number;
  learned: number;
  rejected: number;
  duplicates: number;
  modelVersion: number;
}

const DELTA_COUNTERS = ["applied", "learned", "rejected", "duplicates", "modelVersion"] as const;

/**
 * Checks the fields of an incremental checkpoint (`StreamLearner.toCheckpointDelta`) whose
 * `format`, `kind`, `chain` and `base` are right for `at`, except the parts the learner reads
 * with their own checks (`state`, `window`, `ids.window`: run those in
 * {@linkcode checkpointPart}): the same rules as {@linkcode checkCheckpointFields} for the
 * fields they share, and against `at`: `seq` follows `base`, the vocabularies' names follow
 * and are new strings, the counters do not go backwards. Returns the feature and label names
 * the delta adds.
 *
 * @throws {CheckpointFieldError} naming the first field that is wrong
 *
 * @example
 * ```ts
 * import { factory } from "../models/popularity/mod.ts";
 * import { StreamLearner } from "./learner.ts";
 * import { checkCheckpointDeltaFields } from "./checkpoint_fields.ts";
 * import type { CheckpointDelta } from "./checkpoint_delta.ts";
 * const at = StreamLearner.create(factory);
 * at.ingestLine('{"features": {"0": 1}, "labels": ["a"]}', "demo", 1);
 * const d = {
 *   base: 0, seq: 1, state: {}, pending: [], applied: 0, learned: 0, rejected: 0, duplicates: 0,
 *   features: { from: 0, names: [] }, labels: { from: 1, names: ["b"] },
 *   labelCounts: { labels: new Int32Array(0), counts: new Float64Array(0) },
 *   idDigest: [0, 0], ids: { hashes: new Uint32Array(0) }, window: {}, position: {},
 *   modelVersion: 0, savedAt: "",
 * } as unknown as CheckpointDelta;
 * try {
 *   checkCheckpointDeltaFields(d, at);
 * } catch (e) {
 *   console.log((e as Error).message); // checkpoint: field applied must be at least 1 (as before the delta), got 0
 * }
 * ```
 */
export function checkCheckpointDeltaFields(
  d: CheckpointDelta,
  at: DeltaTarget,
): { features: string[]; labels: string[] } {
  if (d.seq !== d.base + 1) fail("seq", `${d.base + 1} (the one after base)`, d.seq);
  const { features: fv, labels: lv } = at.parser;
  const features = checkpointPart("features", () => newNames(fv, d.features, "feature"));
  const labels = checkpointPart("labels", () => newNames(lv, d.labels, "label"));
  const numLabels = lv.size + labels.length;
  const lc = d.labelCounts;
  checkpointPart("labelCounts", () => checkLabelCounts(lc, numLabels, "delta"));
  checkCounts("labelCounts.counts", lc.counts);
  checkShared(d, numLabels, false);
  for (const f of DELTA_COUNTERS) {
    const now = count(f, d[f], f === "modelVersion");
    if (now < at[f]) fail(f, `at least ${at[f]} (as before the delta)`, now);
  }
  const ids = d.ids;
  if (
    !isPlainObject(ids) ||
    (ids.window !== undefined
      ? !isPlainObject(ids.window)
      : !(ids.hashes instanceof Uint32Array && ids.hashes.length % 2 === 0))
  ) {
    fail("ids", "a window or a Uint32Array of hash pairs", ids);
  }
  return { features, labels };
}
