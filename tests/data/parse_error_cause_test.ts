// A reader's parse error (`Cannot parse line N of SOURCE: DETAIL`) keeps the parser's own error
// as its `cause`, and a skipped line's report entry keeps the error (not enumerable: the report's
// JSON is still `{ line, message }`). A caller (the demo's `--feature-keys` hint) tells an event
// that names its features by the class of the refusal (`NotAFeatureIndexError`), not by
// matching the message text.
import { NotAFeatureIndexError } from "../../src/data/ndjson_features.ts";
import { lineError, newParseReport, recordSkip } from "../../src/data/parse_report.ts";
import { assert, assertEquals } from "../helpers.ts";
import { readAll } from "./helpers.ts";

const NAMED = '{"features":{"fast":1,"json":2},"labels":["lib"]}\n';

Deno.test("lineError keeps its cause; a skipped line's entry keeps the error, unlisted", () => {
  const detail = new RangeError("feature index 9 is out of range [0, 9)");
  const e = lineError(detail, 12, "x.txt");
  assert(e instanceof RangeError && e.cause === detail, String(e.cause));
  assertEquals(e.message, "Cannot parse line 12 of x.txt: feature index 9 is out of range [0, 9)");
  const report = newParseReport("x.txt");
  recordSkip(report, 12, e, 10);
  assert(report.errors[0].error === e, "the entry keeps the error");
  assertEquals(Object.keys(report.errors[0]), ["line", "message"]);
  assertEquals(JSON.stringify(report.errors), JSON.stringify([{ line: 12, message: e.message }]));
});

Deno.test("NDJSON named keys in index mode, fail: the thrown error's cause is NotAFeatureIndexError", async () => {
  const { error } = await readAll([NAMED], { name: "e.ndjson", format: "ndjson" });
  assert(error instanceof RangeError, String(error));
  assertEquals(
    error.message,
    'Cannot parse line 1 of e.ndjson: features: key "fast" is not a feature index (a non-negative integer)',
  );
  const cause = error.cause;
  assert(cause instanceof NotAFeatureIndexError, String(cause));
  assertEquals(cause.key, "fast");
});

Deno.test("NDJSON named keys in index mode, skip: the report entry's error has the class as cause", async () => {
  const { error, reader } = await readAll([NAMED, '{"features":{"3":1},"labels":[1]}\n'], {
    name: "e.ndjson",
    format: "ndjson",
    onError: "skip",
  });
  assert(error === undefined, String(error));
  assertEquals([reader.report.accepted, reader.report.skipped], [1, 1]);
  const entry = reader.report.errors[0];
  assert(entry.error?.cause instanceof NotAFeatureIndexError, String(entry.error?.cause));
  assertEquals(entry.error.message, entry.message);
  assertEquals(Object.keys(entry), ["line", "message"]);
});

Deno.test("XC hashing overflow, skip: the entry the reader inserts keeps the error too", async () => {
  const big = Array.from({ length: 5 }, (_, k) => `${k + 1}:3e38`).join(" ");
  const { reader } = await readAll([`2 8 2\n0 0:1\n1 ${big}\n`], {
    name: "h.txt",
    hashing: { dim: 1, signed: false },
    onError: "skip",
  });
  const entry = reader.report.errors[0];
  assertEquals(entry?.line, 3);
  assert(entry.error instanceof RangeError && entry.error.cause instanceof RangeError, "kept");
  assertEquals(entry.error.message, entry.message);
  assertEquals(Object.keys(entry), ["line", "message"]);
});
