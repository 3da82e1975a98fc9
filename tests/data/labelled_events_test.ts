// Labelled NDJSON events read as a test set (src/data/labelled_events.ts): what is kept, and
// errors that name the line and the field.
import { assert, assertEquals } from "../helpers.ts";
import { parseLabelledEvent, readLabelledEvents } from "../../src/data/labelled_events.ts";

const throwsWith = async (f: () => unknown, T: ErrorConstructor, ...parts: string[]) => {
  try {
    await f();
  } catch (e) {
    assert(e instanceof T, `expected ${T.name}, got ${e}`);
    for (const p of parts) assert((e as Error).message.includes(p), `'${p}' not in: ${e}`);
    return;
  }
  throw new Error(`no ${T.name} thrown`);
};

Deno.test("parseLabelledEvent keeps text, features and distinct label names", () => {
  const e = parseLabelledEvent(
    '{"id": "x", "text": "café", "features": {"a": 2}, "labels": ["t", 3, "t", "3"]}',
    7,
    "line 7 of t.ndjson",
  );
  assertEquals(e.line, 7);
  assertEquals(e.text, "café");
  assertEquals(e.features, { a: 2 });
  assertEquals(e.labels, ["t", "3"]);
  const f = parseLabelledEvent('{"features": {}, "labels": []}', 1, "l");
  assertEquals(f.text, undefined);
  assertEquals(f.labels, []);
});

Deno.test("parseLabelledEvent names the line and the field of a bad event", async () => {
  const where = "line 4 of t.ndjson";
  const bad = (s: string, T: ErrorConstructor, part: string) =>
    throwsWith(() => parseLabelledEvent(s, 4, where), T, `Cannot parse ${where}`, part);
  await bad("{oops", SyntaxError, "not JSON");
  await bad("[1, 2]", SyntaxError, "JSON object");
  await bad('{"text": "a"}', TypeError, "'labels' is missing");
  await bad('{"text": "a", "labels": "x"}', TypeError, "'labels' must be an array");
  await bad('{"text": "a", "labels": ["x", -1]}', TypeError, "labels[1]");
  await bad('{"text": "a", "labels": [1.5]}', TypeError, "labels[0]");
  await bad('{"text": "a", "labels": [null]}', TypeError, "labels[0]");
  await bad('{"text": 3, "labels": []}', TypeError, "'text' must be a string");
  await bad('{"features": [1], "labels": []}', TypeError, "'features' must be an object");
  await bad('{"features": null, "labels": []}', TypeError, "'features' must be an object");
  await bad('{"labels": ["a"]}', TypeError, "neither 'text' nor 'features'");
});

Deno.test("readLabelledEvents: blank lines skipped, CRLF, a BOM only at the start, gzip", async () => {
  const body =
    '\uFEFF{"text": "a", "labels": ["x"]}\r\n\n  \n{"features": {"0": 1}, "labels": [2]}';
  const events = await readLabelledEvents([body], "mem.ndjson");
  assertEquals(events.map((e) => e.line), [1, 4]);
  assertEquals(events[1].labels, ["2"]);
  const gz = new Blob([body]).stream().pipeThrough(new CompressionStream("gzip"));
  assertEquals((await readLabelledEvents(gz, "mem.ndjson.gz")).length, 2);
  // a byte-order mark that starts a later line is data: that line is not JSON
  await throwsWith(
    () => readLabelledEvents(['{"text": "a", "labels": []}\n\uFEFF{"text": "b", "labels": []}\n']),
    SyntaxError,
    "line 2 of",
  );
});

Deno.test("readLabelledEvents refuses a line past the limit and bytes that are not UTF-8, naming the line", async () => {
  const long = `{"text": "${"a".repeat(200)}", "labels": []}`;
  await throwsWith(
    () => readLabelledEvents([`{"text": "a", "labels": []}\n${long}\n`], "t.ndjson", 100),
    RangeError,
    "line 2 of t.ndjson",
    "more than the 100",
  );
  const bytes = new Uint8Array([
    ...new TextEncoder().encode('{"text": "'),
    0xff,
    ...new TextEncoder().encode('", "labels": []}\n'),
  ]);
  await throwsWith(
    () => readLabelledEvents([bytes], "t.ndjson"),
    TypeError,
    "line 1 of t.ndjson",
    "UTF-8",
  );
  await throwsWith(
    () => readLabelledEvents(['{"text": "a", "labels": []}\n{"text": "b"}\n'], "t.ndjson"),
    TypeError,
    "line 2 of t.ndjson",
    "'labels' is missing",
  );
});
