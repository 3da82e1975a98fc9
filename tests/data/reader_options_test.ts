// The readers' options at the boundary: readExamples, openSource, the NDJSON parser and the
// XC/LIBSVM row parser refuse unknown keys (naming the known ones) and values of the wrong type
// (TypeError) or out of range (RangeError), before the source is opened or, for the parts
// checked once it is, closing it again; what the CLI and the service pass is still accepted.
import { readExamples } from "../../src/data/readers.ts";
import { openSource } from "../../src/data/sources.ts";
import { NdjsonParser } from "../../src/data/ndjson.ts";
import { TextRowsParser } from "../../src/data/xc_rows.ts";
import { Vocabulary } from "../../src/data/vocabulary.ts";
import { assertEquals, assertThrowsMsg, readAll, withTempDir } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
const loose = (v: unknown): any => v;
const XC = "1 3 2\n1 0:3 2:4\n";

Deno.test("readExamples: l2 'false' and tfidf 'yes' are TypeErrors, not on and ignored", async () => {
  await assertThrowsMsg(
    () => readExamples([XC], loose({ l2: "false" })),
    TypeError,
    'readExamples: option l2 must be true or false, got "false"',
  );
  await assertThrowsMsg(
    () => readExamples([XC], loose({ tfidf: "yes" })),
    TypeError,
    'readExamples: option tfidf must be true, false or a TfIdf, got "yes"',
  );
  // the same rows as before with real booleans
  const { rows } = await readAll([XC], { l2: true, tfidf: false });
  assertEquals([...rows[0].x.values], [0.6, 0.8].map(Math.fround));
});

Deno.test("readExamples: an unknown key is a TypeError naming the known ones", async () => {
  const e = await assertThrowsMsg(
    () => readExamples([XC], loose({ l2Normalize: true })),
    TypeError,
    'readExamples: unknown option "l2Normalize" (known: name, decompress,',
  );
  for (const known of ["featureKeys", "maxErrors", "maxLineBytes", "tfidf", "l2"]) {
    assertEquals(e.message.includes(known), true, known);
  }
  await assertThrowsMsg(() => readExamples([XC], loose("xc")), TypeError, "must be an object");
});

Deno.test("readExamples: maxErrors, maxLineBytes and the index options are checked", async () => {
  for (
    const [options, Err, text] of [
      [
        { maxErrors: -1 },
        RangeError,
        "option maxErrors must be an integer in [0, 2147483647], got -1",
      ],
      [{ maxErrors: NaN }, RangeError, "option maxErrors"],
      [
        { maxErrors: "5" },
        TypeError,
        'option maxErrors must be an integer in [0, 2147483647], got "5"',
      ],
      [
        { maxLineBytes: 0 },
        RangeError,
        "option maxLineBytes must be an integer in [1, 2147483647]",
      ],
      [{ maxLineBytes: 1.5 }, RangeError, "option maxLineBytes"],
      [{ featureIndexBase: -1 }, RangeError, "option featureIndexBase"],
      [
        { numLabels: 2 ** 40 },
        RangeError,
        "option numLabels must be an integer in [0, 2147483648]",
      ],
    ] as const
  ) {
    await assertThrowsMsg(() => readExamples([XC], loose(options)), Err, `readExamples: ${text}`);
  }
  const { rows } = await readAll([XC], { maxErrors: 0, maxLineBytes: 64, onError: "skip" });
  assertEquals(rows.length, 1);
});

Deno.test("readExamples: a bad NDJSON or hashing option closes the opened file", async () => {
  // (the test's resource sanitizer fails on a file left open)
  await withTempDir(async (dir) => {
    const path = `${dir}/ev.ndjson`;
    await Deno.writeTextFile(path, '{"features": {"a": 1}, "labels": ["x"]}\n');
    await assertThrowsMsg(
      () => readExamples(path, loose({ growLabels: "no" })),
      TypeError,
      'ndjson: option growLabels must be true or false, got "no"',
    );
    await assertThrowsMsg(
      () => readExamples(path, { featureKeys: "name", maxNameLength: 0 }),
      RangeError,
      "ndjson: option maxNameLength must be an integer in [1, 2147483647], got 0",
    );
    await assertThrowsMsg(
      () => readExamples(path, { hashing: { dim: 0 } }),
      RangeError,
      "dim",
    );
    await Deno.writeTextFile(`${dir}/a.txt`, XC);
    await assertThrowsMsg(
      () => readExamples(`${dir}/a.txt`, { hashing: { dim: 0 } }),
      RangeError,
      "dim",
    );
    const { rows } = await readAll(path, { featureKeys: "name", hashing: undefined });
    assertEquals(rows.length, 1);
  });
});

Deno.test("readExamples: what the CLI demo and the service pass is accepted", async () => {
  // src/cli/demo.ts: undefined values for flags not given
  const demo = await readAll([XC], {
    format: "xc",
    onError: "fail",
    featureKeys: undefined,
    hashing: { dim: 8, seed: 1 },
    tfidf: undefined,
    l2: undefined,
  });
  assertEquals(demo.rows.length, 1);
  // src/service/events.ts builds an NdjsonParser with these
  const p = new NdjsonParser({
    featureKeys: "index",
    features: new Vocabulary(),
    labels: new Vocabulary(),
    numFeatures: 2 ** 31 - 1,
    hashing: undefined,
    maxNameLength: 256,
    text: undefined,
    strictFields: undefined,
  });
  assertEquals([...p.parse('{"features": {"3": 1}, "labels": ["a"]}').x.indices], [3]);
});

Deno.test("NdjsonParser: unknown keys and mistyped values are refused", async () => {
  await assertThrowsMsg(
    () => new NdjsonParser(loose({ featureKey: "name" })),
    TypeError,
    'ndjson: unknown option "featureKey" (known: featureKeys, labelKeys,',
  );
  await assertThrowsMsg(
    () => new NdjsonParser(loose({ strictFields: "true" })),
    TypeError,
    "ndjson: option strictFields must be true or false",
  );
  await assertThrowsMsg(
    () => new NdjsonParser(loose({ labels: ["a"] })),
    TypeError,
    'ndjson: option labels must be a Vocabulary, got ["a"]',
  );
  await assertThrowsMsg(
    () => new NdjsonParser({ numFeatures: -1 }),
    RangeError,
    "ndjson: option numFeatures must be an integer in [0, 2147483648], got -1",
  );
  await assertThrowsMsg(
    () => new NdjsonParser({ maxFeaturesPerEvent: NaN }),
    RangeError,
    "maxFeaturesPerEvent",
  );
});

Deno.test("openSource: unknown keys, decompress and the other values are checked", async () => {
  await assertThrowsMsg(
    () => openSource(["x"], loose({ nmae: "a" })),
    TypeError,
    'openSource: unknown option "nmae" (known: name, decompress, signal, fetchInit)',
  );
  await assertThrowsMsg(
    () => openSource(["x"], loose({ decompress: "never" })),
    TypeError,
    'openSource: option decompress must be "auto" or "none", got "never"',
  );
  await assertThrowsMsg(
    () => openSource(["x"], loose({ name: 7 })),
    TypeError,
    "openSource: option name must be a string, got 7",
  );
  await assertThrowsMsg(
    () => openSource(["x"], loose({ signal: true })),
    TypeError,
    "option signal must be an AbortSignal",
  );
  const s = await openSource(["abc"], { name: "m", decompress: "none", signal: undefined });
  assertEquals(await new Response(s.stream).text(), "abc");
});

Deno.test("TextRowsParser: unknown keys and bad bounds are refused", async () => {
  await assertThrowsMsg(
    () => new TextRowsParser("x", loose({ maxError: 3 })),
    TypeError,
    'TextRowsParser: unknown option "maxError" (known: format, onError, maxErrors,',
  );
  await assertThrowsMsg(
    () => new TextRowsParser("x", { format: "libsvm", labelIndexBase: 0.5 }),
    RangeError,
    "TextRowsParser: option labelIndexBase must be an integer in [0, 2147483647], got 0.5",
  );
  await assertThrowsMsg(
    () => new TextRowsParser("x", { maxErrors: Infinity }),
    RangeError,
    "maxErrors",
  );
});

Deno.test("an unknown readExamples option lists every known option once", async () => {
  const { readExamples } = await import("../../src/data/readers.ts");
  let message = "";
  try {
    await readExamples(["1 4 2\n0 1:1\n"], { onErorr: "skip" } as never);
  } catch (e) {
    message = (e as Error).message;
  }
  const known = /\(known: (.*)\)$/.exec(message)?.[1].split(", ") ?? [];
  if (!/unknown option "onErorr"/.test(message) || known.length === 0) {
    throw new Error(`unexpected message: ${message}`);
  }
  const twice = known.filter((k, i) => known.indexOf(k) !== i);
  if (twice.length > 0) throw new Error(`named twice: ${twice.join(", ")} in ${message}`);
  if (!known.includes("onError") || !known.includes("numLabels")) throw new Error(message);
});
