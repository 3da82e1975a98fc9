/**
 * Labelled NDJSON events read as a test set: each line an event `{"text"?, "features"?,
 * "labels"}` (the training events' format), kept as the raw input a model scores (its text and
 * its features) and the names of its true labels. Nothing is indexed here: a test set is scored
 * by a model that maps the input to its own feature space, and its labels are matched to the
 * model's by name.
 *
 * @module
 */
import { LineSplitter } from "./line_splitter.ts";
import { startsWithBom } from "./bom.ts";
import { openSource, type SourceInput } from "./sources.ts";

/**
 * One labelled event of a test set.
 *
 * @example
 * ```ts
 * import type { LabelledEvent } from "./labelled_events.ts";
 * const e: LabelledEvent = { line: 1, text: "a JSON parser", labels: ["devel::lang:c"] };
 * console.log(e.labels.length); // 1
 * ```
 */
export interface LabelledEvent {
  /** Its line number in the file (1-based). */
  line: number;
  /** Its raw text, when it has one. */
  text?: string;
  /** Its `features` object (values checked by whoever maps it), when it has one. */
  features?: Record<string, unknown>;
  /** The names of its true labels (an index label `3` is the name `"3"`), distinct. */
  labels: string[];
}

/**
 * The longest event line {@linkcode readLabelledEvents} reads by default (16 MiB).
 *
 * @example
 * ```ts
 * import { MAX_EVENT_LINE_BYTES } from "./labelled_events.ts";
 * console.log(MAX_EVENT_LINE_BYTES); // 16777216
 * ```
 */
export const MAX_EVENT_LINE_BYTES = 1 << 24;

/**
 * Parses one labelled event line. `where` names the line in errors (e.g. "line 3 of t.ndjson").
 *
 * @throws {SyntaxError} when the line is not a JSON object; {TypeError} naming the field when
 *   `labels` is missing or not an array of names (strings) or indices (integers ≥ 0), `text` is
 *   not a string, `features` is not an object, or the event has neither `text` nor `features`
 *
 * @example
 * ```ts
 * import { parseLabelledEvent } from "./labelled_events.ts";
 * const e = parseLabelledEvent('{"text": "hi", "labels": ["a", 2, "a"]}', 1, "line 1 of t");
 * console.log(e.labels); // [ "a", "2" ]
 * try {
 *   parseLabelledEvent('{"text": "hi"}', 2, "line 2 of t");
 * } catch (e) {
 *   console.log((e as Error).message); // Cannot parse line 2 of t: field 'labels' is missing (a test event needs its true labels)
 * }
 * ```
 */
export function parseLabelledEvent(s: string, line: number, where: string): LabelledEvent {
  const fail = (msg: string, T: typeof TypeError = TypeError): never => {
    throw new T(`Cannot parse ${where}: ${msg}`);
  };
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch (e) {
    fail(`not JSON (${(e as Error).message})`, SyntaxError);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    fail("an event must be a JSON object", SyntaxError);
  }
  const o = v as Record<string, unknown>;
  const { text, features, labels } = o;
  if (labels === undefined) fail("field 'labels' is missing (a test event needs its true labels)");
  if (!Array.isArray(labels)) fail("field 'labels' must be an array of label names or indices");
  const names = new Set<string>();
  (labels as unknown[]).forEach((l, i) => {
    if (typeof l === "string") names.add(l);
    else if (typeof l === "number" && Number.isSafeInteger(l) && l >= 0) names.add(String(l));
    else {
      fail(
        `labels[${i}] must be a label name (a string) or index (an integer >= 0), got ${
          JSON.stringify(l)?.slice(0, 40)
        }`,
      );
    }
  });
  if (text !== undefined && typeof text !== "string") fail("field 'text' must be a string");
  if (
    features !== undefined &&
    (features === null || typeof features !== "object" || Array.isArray(features))
  ) fail("field 'features' must be an object {key: number}");
  if (text === undefined && features === undefined) {
    fail("the event has neither 'text' nor 'features': nothing to score");
  }
  const e: LabelledEvent = { line, labels: [...names] };
  if (text !== undefined) e.text = text as string;
  if (features !== undefined) e.features = features as Record<string, unknown>;
  return e;
}

/**
 * Reads every labelled event of an NDJSON source (a path, `-` for stdin, a URL or a stream;
 * gzip is decompressed), one at a time to `onEvent`, without keeping them: blank lines are
 * skipped, a UTF-8 byte-order mark is dropped at the start only. Returns the number of events.
 *
 * @param input what {@linkcode openSource} opens
 * @param onEvent receives each event, in file order
 * @param name names the source in errors (default: the source's own name)
 * @param maxLineBytes the longest line read (default {@linkcode MAX_EVENT_LINE_BYTES})
 * @throws {SyntaxError} or {TypeError} naming the line and the field of a bad event (see
 *   {@linkcode parseLabelledEvent}), a line that is not UTF-8; {RangeError} for a line longer
 *   than `maxLineBytes`
 *
 * @example
 * ```ts
 * import { forEachLabelledEvent } from "./labelled_events.ts";
 * const body = '{"text": "a", "labels": ["x"]}\n{"text": "b", "labels": ["x", "y"]}\n';
 * let labels = 0;
 * const n = await forEachLabelledEvent([body], (e) => labels += e.labels.length);
 * console.log(n, labels); // 2 3
 * ```
 */
export async function forEachLabelledEvent(
  input: SourceInput,
  onEvent: (e: LabelledEvent) => void,
  name?: string,
  maxLineBytes = MAX_EVENT_LINE_BYTES,
): Promise<number> {
  const src = await openSource(input, name === undefined ? {} : { name });
  let count = 0;
  // (ignoreBOM: a mark that starts a later line is kept, and makes that line bad JSON)
  const dec = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const splitter = new LineSplitter((buf, start, end, lineNo) => {
    if (lineNo === 1 && startsWithBom(buf, start, end)) start += 3;
    if (end > start && buf[end - 1] === 13) end--; // CRLF
    const where = `line ${lineNo} of ${src.name}`;
    let s: string;
    try {
      s = dec.decode(buf.subarray(start, end));
    } catch {
      throw new TypeError(`Cannot parse ${where}: it is not valid UTF-8`);
    }
    if (s.trim() === "") return;
    onEvent(parseLabelledEvent(s, lineNo, where));
    count++;
  }, {
    maxLineBytes,
    onTooLong: (lineNo, length) => {
      throw new RangeError(
        `Cannot parse line ${lineNo} of ${src.name}: it is ${length} bytes long, more than the ` +
          `${maxLineBytes} read`,
      );
    },
  });
  const reader = src.stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      splitter.push(value);
    }
    splitter.end();
  } catch (e) {
    await reader.cancel().catch(() => {});
    throw e;
  } finally {
    reader.releaseLock();
  }
  return count;
}

/**
 * Reads every labelled event of an NDJSON source into an array (see
 * {@linkcode forEachLabelledEvent}, which this calls).
 *
 * @param input what {@linkcode openSource} opens
 * @param name names the source in errors (default: the source's own name)
 * @param maxLineBytes the longest line read (default {@linkcode MAX_EVENT_LINE_BYTES})
 * @throws as {@linkcode forEachLabelledEvent}
 *
 * @example
 * ```ts
 * import { readLabelledEvents } from "./labelled_events.ts";
 * const body = '{"text": "a", "labels": ["x"]}\n\n{"features": {"0": 1}, "labels": []}\n';
 * const events = await readLabelledEvents([body], "mem.ndjson");
 * console.log(events.map((e) => e.line)); // [ 1, 3 ]
 * ```
 */
export async function readLabelledEvents(
  input: SourceInput,
  name?: string,
  maxLineBytes = MAX_EVENT_LINE_BYTES,
): Promise<LabelledEvent[]> {
  const events: LabelledEvent[] = [];
  await forEachLabelledEvent(input, (e) => events.push(e), name, maxLineBytes);
  return events;
}
