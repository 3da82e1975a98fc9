// Options that the input leaves unused, and inputs that were misread, are refused: an NDJSON
// option with XC/LIBSVM input, an index base with NDJSON, sizes with XC (its header gives them),
// a feature vocabulary with indexed or hashed features, an index bound with names; each was
// accepted and silently ignored. A row past a TfIdf's columns is a bad line of its source (it was
// an error without a line that ignored onError); fractional rows, string fractions and negative
// file offsets are refused (they read the wrong rows or offsets).
import { readExamples, type ReadExamplesOptions } from "../../src/data/readers.ts";
import { NdjsonParser } from "../../src/data/ndjson.ts";
import { unusedNdjsonOption } from "../../src/data/ndjson_options.ts";
import { TextRowsParser } from "../../src/data/xc_rows.ts";
import { loadXcBytes } from "../../src/data/dataset_load.ts";
import { labelsOf, rowView } from "../../src/data/dataset_rows.ts";
import { splitRows } from "../../src/data/dataset_subsets.ts";
import { LineSplitter } from "../../src/data/line_splitter.ts";
import { FileLines } from "../../src/data/file_lines.ts";
import { TfIdf } from "../../src/data/tfidf.ts";
import { Vocabulary } from "../../src/data/vocabulary.ts";
import { assert, assertEquals, assertThrowsMsg, readAll, withTempDir } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
const loose = (v: unknown): any => v;
const XC = "1 5 2\n0 3:1\n";
const SVM = "1 4:1\n";
const EVENT = '{"features": {"3": 1}, "labels": ["a"]}\n';
const NAMED = '{"features": {"red": 1}, "labels": ["a"]}\n';
const nd = (o: ReadExamplesOptions): ReadExamplesOptions => ({ format: "ndjson", ...o });

Deno.test("readExamples: a feature vocabulary or growFeatures with indexed or hashed features is refused", async () => {
  const features = new Vocabulary(["x"]);
  for (
    const [options, text] of [
      [
        nd({ features }),
        'readExamples: option features applies to named features only (featureKeys "name"); this input has indexed features',
      ],
      [
        nd({ featureKeys: "index", growFeatures: false }),
        'ndjson: option growFeatures applies to named features only (featureKeys "name"); this input has indexed features',
      ],
      [
        nd({ featureKeys: "name", features, hashing: { dim: 8 } }),
        "readExamples: option features applies to named features only " +
        '(featureKeys "name"); with hashing, feature keys are hashed, not looked up or bounded',
      ],
      [
        nd({ featureKeys: "name", numFeatures: 10 }),
        'ndjson: option numFeatures applies to indexed features only (featureKeys "index"); this input has named features',
      ],
      [
        nd({ numFeatures: 10, hashing: { dim: 8 } }),
        "ndjson: option numFeatures applies to indexed",
      ],
      [
        nd({ labelKeys: "index", labels: new Vocabulary() }),
        'ndjson: option labels applies to named labels only (labelKeys "name"); this input has indexed labels',
      ],
      [nd({ labelKeys: "index", growLabels: true }), "ndjson: option growLabels applies to named"],
      [
        nd({ numLabels: 3 }),
        'ndjson: option numLabels applies to indexed labels only (labelKeys "index"); this input has named labels',
      ],
    ] as const
  ) {
    await assertThrowsMsg(() => readExamples([EVENT], options), TypeError, text);
  }
  // what each mode uses is still taken
  const named = await readAll([NAMED], nd({ featureKeys: "name", features, growFeatures: false }));
  assertEquals(named.rows.length, 1);
  assertEquals(named.rows[0].x.indices.length, 0); // "red" is not in the fixed vocabulary
  const idx = await readAll(
    ['{"features": {"3": 1}, "labels": [1]}\n'],
    nd({ numFeatures: 5, labelKeys: "index", numLabels: 2 }),
  );
  assertEquals([idx.reader.numFeatures, idx.reader.numLabels], [5, 2]);
  const hashed = await readAll([NAMED], nd({ featureKeys: "name", hashing: { dim: 8 } }));
  assertEquals(hashed.reader.numFeatures, 8);
});

Deno.test("NdjsonParser: keeps a shared feature vocabulary in any mode; refuses the other unused options", async () => {
  // the learning service hands its vocabulary whatever the mode: kept, unused
  const v = new Vocabulary();
  const p = new NdjsonParser({ features: v });
  assert(p.features === v);
  assertEquals([...p.parse(EVENT).x.indices], [3]);
  assertEquals(v.size, 0);
  await assertThrowsMsg(
    () => new NdjsonParser({ hashing: { dim: 4 }, growFeatures: true }),
    TypeError,
    "ndjson: option growFeatures applies to named features only",
  );
  assertEquals(unusedNdjsonOption({ features: v }, true), undefined);
  assertEquals(unusedNdjsonOption({ featureKeys: "name", features: v }, false), undefined);
});

Deno.test("readExamples: NDJSON options with XC or LIBSVM input are refused, the file closed", async () => {
  for (
    const [input, options, text] of [
      [
        XC,
        { featureKeys: "name" },
        "option featureKeys applies to NDJSON input only; this input is XC",
      ],
      [XC, { strictFields: true }, "option strictFields applies to NDJSON input only"],
      [XC, { text: {} }, "option text applies to NDJSON input only"],
      [XC, { maxNameLength: 10 }, "option maxNameLength applies to NDJSON input only"],
      [XC, { growLabels: false }, "option growLabels applies to NDJSON input only"],
      [
        SVM,
        { format: "libsvm", labelKeys: "index" },
        "option labelKeys applies to NDJSON input only; this input is LIBSVM",
      ],
      [SVM, { format: "libsvm", maxFeaturesPerEvent: 3 }, "option maxFeaturesPerEvent applies"],
      [SVM, { format: "libsvm", labels: new Vocabulary() }, "option labels applies to NDJSON"],
    ] as const
  ) {
    await assertThrowsMsg(
      () => readExamples([input], options as ReadExamplesOptions),
      TypeError,
      `readExamples: ${text}`,
    );
  }
  await withTempDir(async (dir) => {
    // (the test's resource sanitizer fails on a file left open)
    await Deno.writeTextFile(`${dir}/a.txt`, XC);
    await assertThrowsMsg(
      () => readExamples(`${dir}/a.txt`, { featureKeys: "index" }),
      TypeError,
      "readExamples: option featureKeys applies to NDJSON input only; this input is XC",
    );
    await Deno.writeTextFile(`${dir}/a.ndjson`, EVENT);
    await assertThrowsMsg(
      () => readExamples(`${dir}/a.ndjson`, { features: new Vocabulary() }),
      TypeError,
      "readExamples: option features applies to named features only",
    );
  });
  // hashing and the index bounds are shared
  const svm = await readAll([SVM], { format: "libsvm", numFeatures: 8, hashing: { dim: 4 } });
  assertEquals(svm.rows.length, 1);
});

Deno.test("readExamples: index bases with NDJSON, sizes and featureIndexBase with XC are refused", async () => {
  for (
    const [input, options, text] of [
      [
        EVENT,
        nd({ featureIndexBase: 0 }),
        "option featureIndexBase applies to LIBSVM input only; this input is NDJSON",
      ],
      [
        EVENT,
        nd({ labelIndexBase: 1 }),
        "option labelIndexBase applies to XC/LIBSVM input only; this input is NDJSON",
      ],
      [
        XC,
        { featureIndexBase: 1 },
        "option featureIndexBase applies to LIBSVM input only; XC feature indices are 0-based",
      ],
      [
        XC,
        { numFeatures: 2 },
        "option numFeatures applies to LIBSVM and NDJSON input only; XC input takes its sizes from the header 'N D L'",
      ],
      [XC, { numLabels: 9 }, "option numLabels applies to LIBSVM and NDJSON input only"],
    ] as const
  ) {
    await assertThrowsMsg(
      () => readExamples([input], options as ReadExamplesOptions),
      TypeError,
      `readExamples: ${text}`,
    );
  }
  // the format from the file name
  await assertThrowsMsg(
    () => readExamples([XC], { name: "a.txt", numFeatures: 5 }),
    TypeError,
    "option numFeatures applies to LIBSVM and NDJSON input only",
  );
  const svm = await readAll([SVM], { format: "libsvm", featureIndexBase: 0, numFeatures: 5 });
  assertEquals([...svm.rows[0].x.indices], [4]);
  const xc = await readAll([XC], { labelIndexBase: 0 });
  assertEquals(xc.rows.length, 1);
});

Deno.test("loadXcBytes, TextRowsParser: featureIndexBase and sizes with XC are refused", async () => {
  const bytes = new TextEncoder().encode(XC);
  await assertThrowsMsg(
    () => loadXcBytes(bytes, "t.txt", { featureIndexBase: 1 }),
    TypeError,
    "loadXcBytes: option featureIndexBase applies to LIBSVM input only; XC feature indices are 0-based",
  );
  await assertThrowsMsg(
    () => new TextRowsParser("t.txt", { numFeatures: 3 }),
    TypeError,
    "TextRowsParser: option numFeatures applies to LIBSVM and NDJSON input only",
  );
  const svm = loadXcBytes(new TextEncoder().encode("0 1:1\n"), "t.svm", {
    format: "libsvm",
    featureIndexBase: 1,
  });
  assertEquals([...svm.x.indices], [0]);
});

Deno.test("readExamples tfidf: a TfIdf narrower than the hashed columns is refused", async () => {
  await assertThrowsMsg(
    () => readExamples([XC], { hashing: { dim: 1024 }, tfidf: new TfIdf({ maxFeatures: 100 }) }),
    RangeError,
    "readExamples: option tfidf: the TfIdf's maxFeatures (100) is below hashing.dim (1024)",
  );
  await assertThrowsMsg(
    () =>
      readExamples(
        [NAMED],
        nd({ featureKeys: "name", hashing: { dim: 64 }, tfidf: new TfIdf({ maxFeatures: 8 }) }),
      ),
    RangeError,
    "maxFeatures (8) is below hashing.dim (64)",
  );
  const ok = await readAll([XC], { hashing: { dim: 64 }, tfidf: new TfIdf({ maxFeatures: 64 }) });
  assertEquals(ok.rows.length, 1);
});

Deno.test("readExamples tfidf: a row past the TfIdf's columns is a bad line (fail: named; skip: skipped)", async () => {
  const tfidf = () => new TfIdf({ maxFeatures: 100 });
  const xc = "3 500 2\n0 3:1\n1 300:1\n0 4:1\n";
  const fail = await readAll([xc], { name: "x.txt", tfidf: tfidf() });
  assertEquals(fail.rows.length, 1);
  assertEquals(
    fail.error?.message,
    "Cannot parse line 3 of x.txt: feature index 300 is out of range [0, 100) of the TF-IDF " +
      "weighting (the TfIdf's maxFeatures)",
  );
  assert(fail.error instanceof RangeError);
  const skip = await readAll([xc], { name: "x.txt", tfidf: tfidf(), onError: "skip" });
  assertEquals(skip.rows.map((e) => e.line), [2, 4]);
  assertEquals([skip.reader.report.accepted, skip.reader.report.skipped], [2, 1]);
  assertEquals(skip.reader.report.errors[0].line, 3);
  // LIBSVM: indices as written (1-based); the skipped row does not grow the feature space
  const svm = await readAll(["0 1:1\n1 101:1\n0 2:1\n"], {
    format: "libsvm",
    name: "a.svm",
    tfidf: tfidf(),
    onError: "skip",
  });
  assertEquals(svm.rows.length, 2);
  assertEquals(svm.reader.numFeatures, 2);
  assertEquals(
    svm.reader.report.errors[0].message,
    "Cannot parse line 2 of a.svm: feature index 101 is out of range [1, 101) of the TF-IDF " +
      "weighting (the TfIdf's maxFeatures)",
  );
  // NDJSON: the same, with the line
  const events = '{"features": {"300": 1}, "labels": []}\n{"features": {"3": 1}, "labels": []}\n';
  const ndFail = await readAll([events], nd({ name: "e.ndjson", tfidf: tfidf() }));
  assertEquals(ndFail.rows.length, 0);
  assert(
    ndFail.error?.message.startsWith(
      "Cannot parse line 1 of e.ndjson: TfIdf.observe: feature index 300",
    ),
    ndFail.error?.message,
  );
  const ndSkip = await readAll([events], nd({ tfidf: tfidf(), onError: "skip" }));
  assertEquals(ndSkip.rows.map((e) => e.line), [2]);
  assertEquals(ndSkip.reader.report.skipped, 1);
});

Deno.test("rowView, labelsOf: a fractional or string row is refused (0.5 read the whole matrix)", async () => {
  const ds = loadXcBytes(new TextEncoder().encode("3 4 2\n0 0:1\n1 1:1 2:1\n0,1 3:1\n"), "t");
  await assertThrowsMsg(
    () => rowView(ds.x, 0.5),
    RangeError,
    "rowView: row 0.5 is out of range [0, 3)",
  );
  await assertThrowsMsg(
    () => labelsOf(ds.y, 1.5),
    RangeError,
    "labelsOf: row 1.5 is out of range [0, 3)",
  );
  await assertThrowsMsg(
    () => rowView(ds.x, loose("1")),
    TypeError,
    'rowView: row must be an integer in [0, 3), got "1"',
  );
  await assertThrowsMsg(
    () => labelsOf(ds.y, 3),
    RangeError,
    "labelsOf: row 3 is out of range [0, 3)",
  );
  assertEquals([...rowView(ds.x, 1).indices], [1, 2]);
  assertEquals([...labelsOf(ds.y, 2)], [0, 1]);
});

Deno.test("splitRows: a string fraction is a TypeError, NaN a RangeError", async () => {
  const ds = loadXcBytes(new TextEncoder().encode("2 1 1\n0 0:1\n0 0:2\n"), "t");
  await assertThrowsMsg(
    () => splitRows(ds, loose("0.5"), 1),
    TypeError,
    'splitRows: validationFraction must be a number in [0, 1], got "0.5"',
  );
  await assertThrowsMsg(() => splitRows(ds, NaN, 1), RangeError, "got NaN");
  assertEquals(splitRows(ds, 0.5, 1).valid.x.numRows, 1);
});

Deno.test("LineSplitter, FileLines: typo'd, fractional, string and negative settings are refused", async () => {
  const split = (options: unknown) => new LineSplitter(() => {}, loose(options));
  await assertThrowsMsg(
    () => split({ maxLineBytes: 1.5 }),
    RangeError,
    "LineSplitter: option maxLineBytes must be an integer in [1, 9007199254740991], got 1.5",
  );
  await assertThrowsMsg(() => split({ maxLineBytes: "10" }), TypeError, 'got "10"');
  await assertThrowsMsg(
    () => split({ maxLinebytes: 10 }),
    TypeError,
    'LineSplitter: unknown option "maxLinebytes" (known: maxLineBytes, onTooLong)',
  );
  await assertThrowsMsg(
    () => split({ onTooLong: true }),
    TypeError,
    "option onTooLong must be a function",
  );
  split({ maxLineBytes: Infinity });
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n');
    for (
      const [start, Err, text] of [
        [
          { offset: -5, line: 0 },
          RangeError,
          "FileLines: option start.offset must be an integer in [0, ",
        ],
        [{ offset: NaN, line: 0 }, RangeError, "option start.offset"],
        [{ offset: 8, line: 1.5 }, RangeError, "option start.line"],
        [{ offset: "8", line: 1 }, TypeError, 'got "8"'],
      ] as const
    ) {
      await assertThrowsMsg(() => new FileLines(path, loose(start)), Err, text);
    }
    await assertThrowsMsg(
      () => new FileLines(path, undefined, loose({ maxLinebytes: 10 })),
      TypeError,
      'FileLines: unknown option "maxLinebytes" (known: maxLineBytes, tooLong, log)',
    );
    // the service's start carries the path too
    const f = new FileLines(path, loose({ path, offset: 8, line: 1 }), { maxLineBytes: 100 });
    const got = [];
    for (let l = await f.next(); l !== null; l = await f.next()) got.push(...l);
    f.close();
    assertEquals(got, [{ line: 2, offset: 16, text: '{"b":2}' }]);
  });
});
