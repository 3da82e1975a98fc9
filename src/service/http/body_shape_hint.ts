/**
 * What an `/events` body whose every line was rejected looks like when it is not NDJSON at all,
 * said beside the first reason (see `ingest_routes.ts`).
 *
 * @module
 */

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * What a body whose every line was rejected looks like when it is not NDJSON at all: a JSON
 * array of events, a pretty-printed event, or several events on one line (`curl -d @FILE`
 * strips a file's newlines; with the 3000 events of the README it was refused as one line longer
 * than `--max-line-bytes`, which sent the user to raise the wrong limit). Undefined otherwise.
 *
 * @example
 * ```ts
 * import { bodyShapeHint } from "./body_shape_hint.ts";
 * const enc = new TextEncoder();
 * console.log(bodyShapeHint(enc.encode('{"labels":["a"]} {"labels":["b"]}'))!.includes("--data-binary")); // true
 * console.log(bodyShapeHint(enc.encode('{"labels":["a"]}\n'))); // undefined
 * ```
 */
export function bodyShapeHint(body: Uint8Array): string | undefined {
  let i = 0;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) i = 3; // a byte-order mark
  while (i < body.length && isSpace(body[i])) i++;
  if (body[i] === 0x5b) { // [
    return "the body is a JSON array: POST /events takes NDJSON, one event object a line";
  }
  if (body[i] !== 0x7b) return undefined; // {
  let end = body.length;
  while (end > i && isSpace(body[end - 1])) end--;
  const newline = body.indexOf(0x0a, i);
  if (newline >= 0 && newline < end) {
    // `{` alone on the first line: an event written over several lines
    for (let j = i + 1; j < newline; j++) if (!isSpace(body[j])) return undefined;
    return "the body looks like pretty-printed JSON: POST /events takes NDJSON, each event " +
      "on one line";
  }
  // one line: several events on it when the first object closes and another opens after it
  let depth = 0, inString = false;
  for (let j = i; j < end; j++) {
    const b = body[j];
    if (inString) {
      if (b === 0x5c) j++; // \ escapes the next byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) depth++;
    else if ((b === 0x7d || b === 0x5d) && --depth === 0) {
      let k = j + 1;
      while (k < end && isSpace(body[k])) k++;
      if (body[k] !== 0x7b) return undefined;
      return "the body is one line holding several JSON objects: POST /events takes NDJSON, " +
        "one event a line (curl -d/--data strips a file's newlines: send it with " +
        "--data-binary @FILE)";
    }
  }
  return undefined;
}
