// Reader hardening: XC / LIBSVM messages in file terms (indices as written, UTF-8 snippets), a
// leading BOM, blank lines and short files against the XC header, gzip NDJSON files, and
// vocabulary limit messages that say what is full and why.
import type { ReadExamplesOptions } from "../../src/data/readers.ts";
import { loadNames, loadXcBytes, loadXcFile } from "../../src/data/dataset.ts";
import { FileLines, type FileLinesLine, isGzipFile } from "../../src/data/file_lines.ts";
import { Vocabulary, VocabularyError } from "../../src/data/vocabulary.ts";
import { assert, assertEquals, assertThrowsMsg, bytes, readAll, withTempDir } from "./helpers.ts";
import { gzip } from "../helpers.ts";

/** The message of the error ending a read of `text` (fails when the read succeeds). */
async function errorOf(text: string | Uint8Array, options: ReadExamplesOptions): Promise<Error> {
  const r = await readAll([text], options);
  assert(r.error !== undefined, `expected an error reading ${JSON.stringify(text)}`);
  return r.error;
}

const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);

function withBom(text: string): Uint8Array {
  const b = bytes(text);
  const out = new Uint8Array(3 + b.length);
  out.set(BOM);
  out.set(b, 3);
  return out;
}

Deno.test("LIBSVM messages show indices as written in the file (1-based), ranges in file terms", async () => {
  const svm = { format: "libsvm" as const, name: "a.svm" };
  const cases: [string, ReadExamplesOptions, new (...a: never[]) => Error, string][] = [
    [
      "0,1 1:1 3:0.5\n2 4:1 2:1\n",
      svm,
      RangeError,
      "Cannot parse line 2 of a.svm: feature indices must be strictly increasing: 2 comes after 4",
    ],
    ["0 5:NaN\n", svm, RangeError, "line 1 of a.svm: value 'NaN' of feature 5 is not a finite"],
    ["0 5:abc\n", svm, SyntaxError, "value 'abc' of feature 5 is not a number"],
    ["0 1:1 3:\n", svm, SyntaxError, "line 1 of a.svm: missing value after '3:'"],
    [
      "0 1:1\n1 6:1\n",
      { ...svm, numFeatures: 5 },
      RangeError,
      "Cannot parse line 2 of a.svm: feature index 6 is out of range [1, 6)",
    ],
    [
      "2,1 1:1\n",
      { ...svm, labelIndexBase: 1 },
      RangeError,
      "label indices must be strictly increasing: 1 comes after 2",
    ],
    [
      "4 1:1\n",
      { ...svm, labelIndexBase: 1, numLabels: 3 },
      RangeError,
      "line 1 of a.svm: label index 4 is out of range [1, 4)",
    ],
  ];
  for (const [text, options, cls, msg] of cases) {
    const e = await errorOf(text, options);
    assert(e instanceof cls, `${text}: ${e}`);
    assert(e.message.includes(msg), `${JSON.stringify(text)}: ${e.message}`);
  }
  // the whole-file loader shares the parser
  await assertThrowsMsg(
    () => loadXcBytes(bytes("0 1:1 3:1 2:1\n"), "b.svm", { format: "libsvm" }),
    RangeError,
    "Cannot parse line 1 of b.svm: feature indices must be strictly increasing: 2 comes after 3",
  );
  // XC (base 0) keeps its message
  const xc = await errorOf("1 3 2\n0 1:1 3:1\n", { name: "x.txt" });
  assert(
    xc.message === "Cannot parse line 2 of x.txt: feature index 3 is out of range [0, 3)",
    xc.message,
  );
});

Deno.test("a missing value is reported before the index checks", async () => {
  const e = await errorOf("1 5 3\n0,1 0:1 2:0.5 1:\n", { name: "x.txt" });
  assert(
    e instanceof SyntaxError &&
      e.message === "Cannot parse line 2 of x.txt: missing value after '1:'",
    e.message,
  );
  const bad = await errorOf("1 5 3\n0 3:1 2:zz\n", { name: "x.txt" });
  assert(bad.message.endsWith("value 'zz' of feature 2 is not a number"), bad.message);
});

Deno.test("non-ASCII text in messages is decoded as UTF-8", async () => {
  const half = await errorOf("1 5 3\n0 0:½\n", { name: "x.txt" });
  assert(half.message.endsWith("value '½' of feature 0 is not a number"), half.message);
  const idx = await errorOf("1 5 3\n0 1:1 é:1\n", { name: "x.txt" });
  assert(
    idx.message.endsWith("expected a feature index at column 7, found 'é'"),
    idx.message,
  );
  const lab = await errorOf("1 5 3\n0,é 1:1\n", { name: "x.txt" });
  assert(lab.message.endsWith("expected a label index at column 3, found 'é'"), lab.message);
  const header = await errorOf("é 5 3\n", { name: "x.txt" });
  assert(header.message.endsWith("found 'é 5 3'"), header.message);
  // invalid UTF-8 is shown as a byte, not as Latin-1 text
  const raw = await errorOf(Uint8Array.of(0x31, 0x20, 0x35, 0x20, 0x33, 10, 0x20, 0xff, 10), {
    name: "x.txt",
  });
  assert(raw.message.endsWith("found byte 0xff"), raw.message);
});

Deno.test("a leading UTF-8 BOM is skipped by the XC and LIBSVM readers and the loader", async () => {
  const xc = await readAll([withBom("2 5 3\n0,1 0:1 2:0.5\n 4:1\n")], { name: "b.txt" });
  assert(xc.error === undefined, String(xc.error));
  assertEquals(xc.reader.report.header, { numRows: 2, numFeatures: 5, numLabels: 3 });
  assertEquals(xc.rows.map((e) => [...e.x.indices]), [[0, 2], [4]]);
  const ds = loadXcBytes(withBom("1 5 3\n2 1:1\n"), "b.txt");
  assertEquals([...ds.y.indices], [2]);
  const svm = await readAll([withBom("1 1:1\n")], { format: "libsvm" });
  assert(svm.error === undefined && svm.rows.length === 1, String(svm.error));
  assertEquals([...svm.rows[0].labels], [1]);
  const svm2 = await readAll([withBom("3:1\n")], { format: "libsvm" });
  assertEquals([...svm2.rows[0].x.indices], [2], "a BOM before a label-less LIBSVM line");
  // a name list too
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/toy.labels.txt`, withBom("sports\nnews\n"));
    assertEquals(await loadNames(dir, "toy", "labels"), ["sports", "news"]);
  });
  // only the first line: a BOM later on is an error
  const later = await errorOf(
    new Uint8Array([...bytes("2 5 3\n0 1:1\n"), ...BOM, ...bytes("0 1:1\n")]),
    { name: "b.txt" },
  );
  assert(
    later.message ===
      "Cannot parse line 3 of b.txt: expected a label index at column 1, found U+FEFF",
    later.message,
  );
});

Deno.test("XC: trailing blank lines are ignored; a blank line inside is an error and no row", async () => {
  for (const tail of ["\n", "\n\n", "\r\n\r\n", "\n\n\n"]) {
    const r = await readAll([`2 5 3\n0 0:1\n1 1:1\n${tail}`], { name: "t.txt" });
    assert(r.error === undefined && r.rows.length === 2, `${JSON.stringify(tail)}: ${r.error}`);
    assert(loadXcBytes(bytes(`2 5 3\n0 0:1\n1 1:1\n${tail}`), "t.txt").x.numRows === 2, tail);
  }
  // fail: the blank line inside is named; the row before it is delivered
  const mid = await readAll(["2 5 3\n0,1 0:1 2:0.5\n\n1 1:1\n"], { name: "t.txt" });
  assert(
    mid.error instanceof SyntaxError && mid.error.message.startsWith(
      "Cannot parse line 3 of t.txt: empty line",
    ),
    String(mid.error),
  );
  assertEquals(mid.rows.map((e) => e.line), [2]);
  // a truncated file followed by blank lines still says so
  const short = await readAll(["3 5 3\n0 0:1\n\n\n"], { name: "t.txt" });
  assert(
    short.error?.message ===
      "Cannot parse line 5 of t.txt: unexpected end of input after 1 rows, the header declares 3",
    String(short.error),
  );
});

Deno.test("XC skip: a blank line uses no row of the header; a short file is a reported problem", async () => {
  const skip = { name: "t.txt", onError: "skip" as const };
  const mid = await readAll(["2 5 3\n0,1 0:1 2:0.5\n\n1 1:1\n"], skip);
  assert(mid.error === undefined, String(mid.error));
  assertEquals(mid.rows.map((e) => e.line), [2, 4], "the valid line after the blank one is kept");
  assertEquals([mid.reader.report.accepted, mid.reader.report.skipped], [2, 1]);
  assertEquals(mid.reader.report.errors.map((e) => e.line), [3]);
  assert(mid.reader.report.missingRows === undefined, "no rows missing");

  const short = await readAll(["2 5 3\n0,1 0:1 2:0.5\n"], skip);
  assert(short.error === undefined && short.rows.length === 1, String(short.error));
  const rep = short.reader.report;
  assertEquals([rep.accepted, rep.skipped, rep.missingRows], [1, 1, 1]);
  assertEquals(rep.errors, [{
    line: 3,
    message:
      "Cannot parse line 3 of t.txt: unexpected end of input after 1 rows, the header declares 2",
  }]);
  // the whole-file loaders report it the same way (what `tagstream train` summarises)
  const ds = loadXcBytes(bytes("3 5 3\n0 1:1\n\n"), "t.txt", { onError: "skip" });
  assertEquals([ds.x.numRows, ds.report.skipped, ds.report.missingRows], [1, 1, 2]);
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/s.txt`, "2 5 3\n0,1 0:1 2:0.5\n");
    const f = await loadXcFile(`${dir}/s.txt`, { onError: "skip" });
    assertEquals([f.x.numRows, f.report.skipped], [1, 1]);
    assert(
      f.report.errors[0].message.includes("the header declares 2"),
      f.report.errors[0].message,
    );
    await assertThrowsMsg(
      () => loadXcFile(`${dir}/s.txt`),
      RangeError,
      "Cannot parse line 3 of s.txt: unexpected end of input after 1 rows, the header declares 2",
    );
  });
  // an XC file with exactly its rows and a blank tail reports nothing
  const ok = await readAll(["1 5 3\n0 1:1\n\n"], skip);
  assertEquals([ok.reader.report.skipped, ok.reader.report.errors.length], [0, 0]);
});

Deno.test("isGzipFile / FileLines: a gzip NDJSON file is read by content, offsets resume", async () => {
  await withTempDir(async (dir) => {
    const text = '{"features":{"0":1},"labels":["a"]}\n{"a":1}\r\n\n{"b":2}';
    const gz = `${dir}/gz.ndjson.gz`, plain = `${dir}/p.ndjson.gz`, odd = `${dir}/events.log`;
    await Deno.writeFile(gz, await gzip(text));
    await Deno.writeTextFile(plain, text); // a plain file with a .gz name
    await Deno.writeFile(odd, await gzip(text)); // gzip without a .gz name
    assertEquals(
      [await isGzipFile(gz), await isGzipFile(plain), await isGzipFile(odd)],
      [true, false, true],
    );
    assert(!(await isGzipFile(`${dir}/missing`)), "missing file");
    const readLines = async (path: string, start?: { offset: number; line: number }) => {
      const f = new FileLines(path, start);
      const got: FileLinesLine[] = [];
      for (let l = await f.next(); l !== null; l = await f.next()) got.push(...l);
      f.close();
      return got;
    };
    const all = await readLines(gz);
    assertEquals(all, [
      { line: 1, offset: 36, text: '{"features":{"0":1},"labels":["a"]}' },
      { line: 2, offset: 45, text: '{"a":1}' },
      { line: 3, offset: 46, text: "" },
      { line: 4, offset: 53, text: '{"b":2}' },
    ]);
    assertEquals(await readLines(plain), all, "plain text reads the same");
    assertEquals(await readLines(odd), all, "detected by content, not by name");
    assertEquals(await readLines(gz, { offset: 36, line: 1 }), all.slice(1), "resume");
    // not UTF-8, too long: reported per line, reading goes on
    await Deno.writeFile(gz, await gzip(new Uint8Array([0xff, 10, ...bytes("x".repeat(20)), 10])));
    const bad = new FileLines(gz, undefined, { maxLineBytes: 10 });
    assertEquals(await bad.next(), [
      { line: 1, offset: 2, error: "line is not valid UTF-8" },
      { line: 2, offset: 23, error: "line is longer than 10 bytes" },
    ]);
    bad.close();
    // truncated gzip: an error naming the file
    const full = await gzip("x\n".repeat(5000));
    await Deno.writeFile(gz, full.subarray(0, full.length - 12));
    await assertThrowsMsg(() => readLines(gz), TypeError, `Cannot read ${gz}: truncated`);
  });
});

Deno.test("Vocabulary limits: messages say what is full, the limit and its setting; data carried", () => {
  const names = Array.from({ length: 5 }, (_, i) => String(i));
  const e = assertVocabularyError(() => new Vocabulary(names, 3), "full");
  assert(
    e.message === "Vocabulary is full: 5 names given, more than the 3 allowed",
    e.message,
  );
  assertEquals([e.position, e.entry, e.maxSize], [3, "3", 3]);
  const labeled = assertVocabularyError(
    () => new Vocabulary(names, 3, { what: "label", limitName: "--max-labels" }),
    "full",
  );
  assert(
    labeled.message ===
      "the label vocabulary is full: 5 names given, more than the 3 allowed (--max-labels 3)",
    labeled.message,
  );
  const v = new Vocabulary(["a"], 1, { what: "label", limitName: "--max-labels" });
  const grow = assertVocabularyError(() => v.idOf("b", true), "full");
  assert(
    grow.message ===
      "the label vocabulary is full: cannot add 'b' beyond 1 names (--max-labels 1)",
    grow.message,
  );
  assertEquals([grow.position, grow.entry], [-1, "b"]);
  const dup = assertVocabularyError(() => new Vocabulary(["a", "b", "a"]), "duplicate");
  assert(dup.message === "Vocabulary: duplicate name 'a' (names 1 and 3)", dup.message);
  assertEquals([dup.firstPosition, dup.position, dup.entry], [0, 2, "a"]);
  const dupLabel = assertVocabularyError(
    () => new Vocabulary(new Set(["x"]).values(), 0, { what: "label" }),
    "full",
  );
  assert(dupLabel.message.startsWith("the label vocabulary is full: 1 names"), dupLabel.message);
});

function assertVocabularyError(f: () => unknown, reason: "full" | "duplicate"): VocabularyError {
  try {
    f();
  } catch (e) {
    assert(e instanceof VocabularyError && e instanceof RangeError, `got ${e}`);
    assert(e.reason === reason, `reason ${e.reason}`);
    return e;
  }
  throw new Error("expected a VocabularyError, nothing thrown");
}
