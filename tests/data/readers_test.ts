// Streaming readers: XC / LIBSVM / NDJSON parsing, malformed input, onError, transforms.
import { readExamples } from "../../src/data/readers.ts";
import { loadXcBytes, loadXcFile } from "../../src/data/dataset.ts";
import type { Example } from "../../src/data/types.ts";
import { Vocabulary } from "../../src/data/vocabulary.ts";
import { TfIdf } from "../../src/data/tfidf.ts";
import { hashBucket, hashIndex, hashName, hashSign } from "../../src/data/feature_hash.ts";
import {
  assert,
  assertEquals,
  assertThrowsMsg,
  bytes,
  DATA_DIR,
  HAS_DATA,
  readAll,
} from "./helpers.ts";
import { gzip } from "../helpers.ts";

function plain(rows: Example[]) {
  return rows.map((e) => ({
    line: e.line,
    labels: [...e.labels],
    idx: [...e.x.indices],
    val: [...e.x.values],
    ...(e.negatives ? { neg: [...e.negatives] } : {}),
    ...(e.id !== undefined ? { id: e.id } : {}),
  }));
}

/** Splits text into byte chunks of pseudo-random sizes 1..max. */
function chunked(text: string, max: number, seed = 1): Uint8Array[] {
  const b = bytes(text);
  const out: Uint8Array[] = [];
  let s = seed;
  for (let p = 0; p < b.length;) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const n = 1 + (s % max);
    out.push(b.slice(p, p + n));
    p += n;
  }
  return out;
}

const TOY = "4 6 3\n0,2 1:1 5:0.25\n \n1 \n 0:2 3:-1.5e1\n";

Deno.test("XC: empty label and feature lists, line numbers, sizes from the header", async () => {
  const { rows, error, reader } = await readAll([TOY], { name: "toy.txt" });
  assert(error === undefined, String(error));
  assertEquals(plain(rows), [
    { line: 2, labels: [0, 2], idx: [1, 5], val: [1, 0.25] },
    { line: 3, labels: [], idx: [], val: [] },
    { line: 4, labels: [1], idx: [], val: [] },
    { line: 5, labels: [], idx: [0, 3], val: [2, -15] },
  ]);
  assert(reader.numFeatures === 6 && reader.numLabels === 3, "header sizes");
  assertEquals(reader.report.header, { numRows: 4, numFeatures: 6, numLabels: 3 });
  assert(reader.report.accepted === 4 && reader.report.skipped === 0, "counts");
  assert(reader.format === "xc" && reader.name === "toy.txt", "name and format");
});

Deno.test("XC: any chunking (1-byte chunks, CRLF, no final newline) gives the same rows", async () => {
  const crlf = TOY.replaceAll("\n", "\r\n").replace(/\r\n$/, "");
  const whole = plain((await readAll([TOY])).rows);
  for (const max of [1, 2, 7, 64]) {
    const r = await readAll(chunked(crlf, max, max));
    assert(r.error === undefined, `chunks of ${max}: ${r.error}`);
    assertEquals(plain(r.rows), whole, `chunks up to ${max}`);
  }
});

Deno.test({
  name: "XC: the streaming reader matches the whole-file loader on the real data",
  ignore: !HAS_DATA,
  fn: async () => {
    for (const name of ["bibtex.test", "yeast.train"]) {
      const path = `${DATA_DIR}/${name}.txt`;
      const ds = await loadXcFile(path);
      const { rows, error, reader } = await readAll(path);
      assert(error === undefined, String(error));
      assert(rows.length === ds.x.numRows, `${name}: ${rows.length} rows`);
      assert(reader.numFeatures === ds.numFeatures && reader.numLabels === ds.numLabels, name);
      let p = 0, q = 0;
      for (const e of rows) {
        for (let k = 0; k < e.x.indices.length; k++, p++) {
          if (e.x.indices[k] !== ds.x.indices[p] || e.x.values[k] !== ds.x.values[p]) {
            throw new Error(`${name}: feature entry ${p} differs`);
          }
        }
        for (let k = 0; k < e.labels.length; k++, q++) {
          if (e.labels[k] !== ds.y.indices[q]) throw new Error(`${name}: label entry ${q}`);
        }
      }
      assert(p === ds.x.indices.length && q === ds.y.indices.length, `${name}: totals`);
    }
  },
});

Deno.test("XC malformed: bad index fails naming source, line and field; earlier rows are delivered", async () => {
  const text = "4 1836 5\n0 1:1\n1 1835:1\n2 1836:1\n3 0:1\n";
  const { rows, error } = await readAll([text], { name: "bibtex.train.txt" });
  assert(error instanceof RangeError, String(error));
  assert(
    error.message ===
      "Cannot parse line 4 of bibtex.train.txt: feature index 1836 is out of range [0, 1836)",
    error.message,
  );
  assertEquals(rows.map((e) => e.line), [2, 3], "rows before the bad line");
});

Deno.test("XC malformed: NaN, missing colon, bad label, decreasing index, empty line", async () => {
  const cases: [string, new (...a: never[]) => Error, string][] = [
    ["1 3 2\n0 1:nan\n", RangeError, "line 2 of m.txt: value 'nan' of feature 1 is not a finite"],
    ["1 3 2\n0 1:NaN\n", RangeError, "is not a finite number"],
    ["1 3 2\n0 1:abc\n", SyntaxError, "value 'abc' of feature 1 is not a number"],
    ["1 3 2\n0 1 2:1\n", SyntaxError, "line 2 of m.txt: missing ':' after feature index 1"],
    ["1 3 2\n0 1:\n", SyntaxError, "missing value after '1:'"],
    ["1 3 2\n0,x 1:1\n", SyntaxError, "expected a label index at column 3"],
    ["1 3 2\n0 2:1 1:1\n", RangeError, "feature indices must be strictly increasing"],
    ["1 3 2\n1:1\n", SyntaxError, "a row with no labels must start with a space"],
    ["2 3 2\n\n0 1:1\n", SyntaxError, "line 2 of m.txt: empty line"],
    ["1 3 2\n0 1:1e999\n", RangeError, "is not a finite 32-bit float"],
  ];
  for (const [text, cls, msg] of cases) {
    const { rows, error } = await readAll([text], { name: "m.txt" });
    assert(rows.length === 0, text);
    assert(error instanceof cls, `${JSON.stringify(text)}: ${error}`);
    assert(error.message.includes(msg), `${JSON.stringify(text)}: ${error.message}`);
  }
});

Deno.test("XC malformed: header mismatches (row count, D, L) and a bad header", async () => {
  const short = await readAll(["3 4 2\n0 1:1\n1 2:1\n"], { name: "h.txt" });
  assert(short.error instanceof RangeError, String(short.error));
  assert(
    short.error.message ===
      "Cannot parse line 4 of h.txt: unexpected end of input after 2 rows, the header declares 3",
    short.error.message,
  );
  assert(short.rows.length === 2, "rows before the shortfall are kept");
  const long = await readAll(["1 4 2\n0 1:1\n1 2:1\n"], { name: "h.txt" });
  assert(
    long.error?.message ===
      "Cannot parse line 3 of h.txt: more rows than the 1 declared in the header",
    String(long.error),
  );
  assert(long.rows.length === 1, "first row kept");
  const d = await readAll(["1 4 2\n0 4:1\n"], { name: "h.txt" });
  assert(d.error?.message.endsWith("feature index 4 is out of range [0, 4)"), String(d.error));
  const l = await readAll(["1 4 2\n0,2 1:1\n"], { name: "h.txt" });
  assert(
    l.error?.message === "Cannot parse line 2 of h.txt: label index 2 is out of range [0, 2)",
    String(l.error),
  );
  const bad = await readAll(["1 4\n0 1:1\n"], { name: "h.txt", onError: "skip" });
  assert(
    bad.error instanceof SyntaxError &&
      bad.error.message.startsWith("Cannot parse line 1 of h.txt: expected the header 'N D L'"),
    String(bad.error),
  );
  const empty = await readAll([""], { name: "e.txt" });
  assert(
    empty.error?.message === "Cannot parse e.txt: empty input, expected the header 'N D L'",
    String(empty.error),
  );
});

Deno.test("XC onError skip: bad lines counted and reported, good rows all kept", async () => {
  const text = "6 5 3\n0 1:1\n0 9:1\n1 2:x\n2 3:1\n0 1 2\n1 4:1\n";
  const { rows, error, reader } = await readAll([text], {
    name: "s.txt",
    onError: "skip",
    maxErrors: 2,
  });
  assert(error === undefined, String(error));
  assertEquals(rows.map((e) => e.line), [2, 5, 7]);
  assert(
    reader.report.accepted === 3 && reader.report.skipped === 3,
    JSON.stringify(reader.report),
  );
  assertEquals(reader.report.errors.map((e) => e.line), [3, 4], "first maxErrors errors kept");
  assert(
    reader.report.errors[0].message ===
      "Cannot parse line 3 of s.txt: feature index 9 is out of range [0, 5)",
    reader.report.errors[0].message,
  );
  // a shortfall against the header is recorded, not thrown, in skip mode
  const short = await readAll(["3 5 3\n0 1:1\n"], { name: "s.txt", onError: "skip" });
  assert(short.error === undefined && short.rows.length === 1, String(short.error));
  assert(
    short.reader.report.errors[0].message.includes("after 1 rows, the header declares 3"),
    "shortfall",
  );
});

Deno.test("gzip: detected by magic bytes (any name), streamed; truncated data is a clear error", async () => {
  const n = 3000;
  const lines = Array.from({ length: n }, (_, i) => `${i % 3} ${i % 5}:${i + 1}`);
  const text = `${n} 5 3\n${lines.join("\n")}\n`;
  const gz = await gzip(text);
  // the magic bytes arrive in two chunks
  const full = await readAll([gz.slice(0, 1), gz.slice(1)], { name: "data.txt" });
  assert(full.error === undefined && full.rows.length === n, String(full.error));
  assert(full.rows[n - 1].x.values[0] === n, "last row intact");
  const cut = await readAll([gz.slice(0, gz.length - 40)], { name: "data.txt.gz" });
  assert(cut.error instanceof TypeError, String(cut.error));
  assert(
    /^Cannot parse line \d+ of data\.txt\.gz: truncated or corrupt gzip data/.test(
      cut.error.message,
    ),
    cut.error.message,
  );
  const at = Number(/line (\d+)/.exec(cut.error.message)![1]);
  assert(
    cut.rows.length === at - 2 && cut.rows.length > n / 2,
    `${cut.rows.length} rows before line ${at}`,
  );
  assertEquals(
    plain(cut.rows),
    plain(full.rows.slice(0, cut.rows.length)),
    "delivered rows are exact",
  );
  const head = await readAll([gz.slice(0, 12)], { name: "tiny.gz" });
  assert(
    head.error?.message.startsWith("Cannot parse line 1 of tiny.gz: truncated"),
    String(head.error),
  );
});

Deno.test("LIBSVM multi-label: 1-based features, rows without labels, qid, comments, growing sizes", async () => {
  const text = "# comment\n1,3 1:0.5 7:1\n\n2:1 4:2\n0 qid:3 1:1\n 3:1\n";
  const { rows, error, reader } = await readAll([text], { name: "a.svm" });
  assert(error === undefined, String(error));
  assert(reader.format === "libsvm", reader.format);
  assertEquals(plain(rows), [
    { line: 2, labels: [1, 3], idx: [0, 6], val: [0.5, 1] },
    { line: 4, labels: [], idx: [1, 3], val: [1, 2] },
    { line: 5, labels: [0], idx: [0], val: [1] },
    { line: 6, labels: [], idx: [2], val: [1] },
  ]);
  assert(
    reader.numFeatures === 7 && reader.numLabels === 4,
    `${reader.numFeatures} ${reader.numLabels}`,
  );
  const zero = await readAll(["0 0:1 3:1\n"], { format: "libsvm", featureIndexBase: 0 });
  assertEquals(plain(zero.rows)[0].idx, [0, 3]);
  const bounded = await readAll(["0 1:1\n1 9:1\n"], {
    format: "libsvm",
    name: "b.svm",
    numFeatures: 5,
  });
  assert(
    bounded.error?.message ===
      "Cannot parse line 2 of b.svm: feature index 9 is out of range [1, 6)",
    String(bounded.error),
  );
  const below = await readAll(["0 0:1\n"], { format: "libsvm", name: "c.svm" });
  assert(
    below.error?.message.includes("feature index 0 is below the index base 1"),
    String(below.error),
  );
});

Deno.test("NDJSON: index keys, names, negatives, ids, blank lines; vocabularies grow mid-stream", async () => {
  const text = [
    '{"id": "a", "features": {"3": 1, "0": 0.5}, "labels": ["cat"]}',
    "",
    '{"id": 7, "features": {"1": 2}, "labels": ["dog", "cat"], "negatives": ["fish"]}',
    '{"features": {}, "labels": []}',
  ].join("\n");
  const { rows, error, reader } = await readAll([text], { format: "ndjson", name: "ev" });
  assert(error === undefined, String(error));
  assertEquals(plain(rows), [
    { line: 1, labels: [0], idx: [0, 3], val: [0.5, 1], id: "a" },
    { line: 3, labels: [0, 1], idx: [1], val: [2], neg: [2], id: "7" },
    { line: 4, labels: [], idx: [], val: [] },
  ]);
  assertEquals(reader.labelVocabulary?.names, ["cat", "dog", "fish"]);
  assert(reader.numFeatures === 4 && reader.numLabels === 3, `${reader.numFeatures}`);

  // names: the vocabulary grows as new names arrive, and is visible while streaming
  const words = [
    '{"features": {"a": 1}, "labels": ["x"]}',
    '{"features": {"b": 1, "a": 1}, "labels": ["y"]}',
  ];
  const named = await readExamples([words.join("\n")], { format: "ndjson", featureKeys: "name" });
  const sizes: number[] = [];
  for await (const e of named.stream) sizes.push(named.numFeatures, e.x.indices.length);
  assertEquals(sizes, [1, 1, 2, 2]);
  assertEquals(named.featureVocabulary?.names, ["a", "b"]);
});

Deno.test("NDJSON: a given vocabulary is reused; a rejected line never grows it; fixed vocabularies", async () => {
  const features = new Vocabulary(["known"]);
  const labels = new Vocabulary(["L0"]);
  const text = [
    '{"features": {"new1": 1}, "labels": ["L1"], "bogus": 1}',
    '{"features": {"new2": 1}, "labels": ["L2", 5]}',
    '{"features": {"new3": "x"}, "labels": ["L3"]}',
  ].join("\n");
  const r = await readAll([text], {
    format: "ndjson",
    featureKeys: "name",
    features,
    labels,
    onError: "skip",
    strictFields: true,
  });
  assert(r.error === undefined && r.rows.length === 1, String(r.error));
  assertEquals(features.names, ["known", "new2"], "only the accepted line added names");
  assertEquals(labels.names, ["L0", "L2", "5"]);
  assert(r.reader.report.skipped === 2, "two lines skipped");
  assert(
    r.reader.report.errors[0].message ===
      'Cannot parse line 1 of <stream>: unknown field "bogus" (allowed: id, features, labels, negatives)',
    r.reader.report.errors[0].message,
  );
  const fixed = await readAll([
    '{"features": {"known": 1, "zzz": 1}, "labels": ["L0"]}',
    '\n{"features": {}, "labels": ["nope"]}',
  ], {
    format: "ndjson",
    featureKeys: "name",
    features,
    labels,
    growFeatures: false,
    growLabels: false,
    name: "t",
  });
  assertEquals(plain(fixed.rows)[0].idx, [0], "unknown feature names are dropped");
  assert(
    fixed.error?.message === 'Cannot parse line 2 of t: labels[0]: unknown label "nope"',
    String(fixed.error),
  );
  assert(features.size === 2 && labels.size === 3, "fixed vocabularies unchanged");
});

Deno.test("NDJSON malformed lines name the line and the field", async () => {
  const cases: [string, new (...a: never[]) => Error, string][] = [
    ["{bad json", SyntaxError, "line 1 of e.ndjson: malformed JSON"],
    ["[1, 2]", TypeError, "an event must be a JSON object"],
    ['{"labels": []}', TypeError, "field 'features' must be an object"],
    ['{"features": {"1": 1}}', TypeError, "field 'labels' is required"],
    [
      '{"features": {"1": null}, "labels": []}',
      TypeError,
      'features["1"]: value must be a number, got null',
    ],
    [
      '{"features": {"-1": 1}, "labels": []}',
      RangeError,
      'features: key "-1" is not a feature index',
    ],
    ['{"features": {"1.5": 1}, "labels": []}', RangeError, "is not a feature index"],
    ['{"features": {"1": 1e300}, "labels": []}', RangeError, "is not a finite 32-bit float"],
    ['{"features": {}, "labels": "a"}', TypeError, "field 'labels' must be an array"],
    ['{"features": {}, "labels": [true]}', TypeError, "labels[0]: a label must be a name"],
    [
      '{"features": {}, "labels": ["a"], "negatives": ["a"]}',
      RangeError,
      `label "a" is both in 'labels' and in 'negatives'`,
    ],
    ['{"features": {}, "labels": [], "id": {}}', TypeError, "field 'id' must be a string"],
  ];
  for (const [line, cls, msg] of cases) {
    const { error } = await readAll([`{"features": {}, "labels": []}\n${line}\n`], {
      name: "e.ndjson",
    });
    assert(error instanceof cls, `${line}: ${error}`);
    assert(error.message.startsWith("Cannot parse line 2 of e.ndjson: "), error.message);
    assert(error.message.includes(msg.replace("line 1", "line 2")), `${line}: ${error.message}`);
  }
  const utf = await readAll([Uint8Array.of(0x7b, 0xff, 0x7d, 10)], { format: "ndjson", name: "u" });
  assert(
    utf.error?.message === "Cannot parse line 1 of u: the line is not valid UTF-8",
    String(utf.error),
  );
  const idx = await readAll(['{"features": {"9": 1}, "labels": [0, 4]}'], {
    format: "ndjson",
    numFeatures: 5,
    name: "i",
  });
  assert(
    idx.error?.message === "Cannot parse line 1 of i: feature index 9 is out of range [0, 5)",
    String(idx.error),
  );
  const labs = await readAll(['{"features": {}, "labels": [4, 1]}'], {
    format: "ndjson",
    labelKeys: "index",
  });
  assertEquals(plain(labs.rows)[0].labels, [1, 4], "label indices sorted");
  assert(labs.reader.numLabels === 5, "label space from the largest index");
});

Deno.test("line length limit: fail names the line; skip counts it and goes on", async () => {
  const long = "0 " + Array.from({ length: 50 }, (_, i) => `${i}:1`).join(" ");
  const text = `3 100 2\n0 1:1\n${long}\n1 2:1\n`;
  const f = await readAll(chunked(text, 9), { name: "l.txt", maxLineBytes: 100 });
  assert(f.error?.message.startsWith("Cannot parse line 3 of l.txt: line is"), String(f.error));
  assert(f.rows.length === 1, "row before kept");
  // skip: the long line still counts as one of the header's rows
  const s = await readAll([text], { name: "l.txt", maxLineBytes: 100, onError: "skip" });
  assert(s.error === undefined && s.rows.length === 2, String(s.error));
  assert(s.reader.report.skipped === 1 && s.reader.report.errors[0].line === 3, "counted");
  const nd = await readAll([
    `{"features": {}, "labels": []}\n{"features": {"${
      "x".repeat(200)
    }": 1}, "labels": []}\n{"features": {}, "labels": []}\n`,
  ], {
    format: "ndjson",
    featureKeys: "name",
    maxLineBytes: 100,
    onError: "skip",
  });
  assert(
    nd.error === undefined && nd.rows.length === 2 && nd.reader.report.skipped === 1,
    String(nd.error),
  );
});

Deno.test("hashing: XC indices and NDJSON keys hash alike; buckets, signs and collisions as documented", async () => {
  const hashing = { dim: 8, seed: 42, signed: true };
  const xc = await readAll(["1 3000 1\n0 5:1 17:2 2999:0.5\n"], { hashing });
  const nd = await readAll(['{"features": {"2999": 0.5, "5": 1, "17": 2}, "labels": ["0"]}'], {
    format: "ndjson",
    hashing,
  });
  assertEquals(plain(xc.rows)[0].idx, plain(nd.rows)[0].idx);
  assertEquals(plain(xc.rows)[0].val, plain(nd.rows)[0].val);
  assert(xc.reader.numFeatures === 8 && nd.reader.numFeatures === 8, "hashed dimension");
  // expected row computed from the documented definition
  const want = new Map<number, number>();
  for (const [j, v] of [[5, 1], [17, 2], [2999, 0.5]]) {
    const h = hashName(String(j), 42);
    assert(h === hashIndex(j, 42), "index hash = hash of the decimal text");
    want.set(hashBucket(h, 8), (want.get(hashBucket(h, 8)) ?? 0) + hashSign(h) * v);
  }
  const expected = [...want].filter(([, v]) => v !== 0).sort((a, b) => a[0] - b[0]);
  assertEquals(plain(xc.rows)[0].idx, expected.map(([j]) => j));
  assertEquals(plain(xc.rows)[0].val, expected.map(([, v]) => Math.fround(v)));
  // many names into 4 buckets: collisions are summed, all in range
  const keys = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`w${i}`, 1]));
  const many = await readAll([JSON.stringify({ features: keys, labels: [] })], {
    format: "ndjson",
    hashing: { dim: 4 },
  });
  const row = many.rows[0];
  assert(row.x.indices.every((j) => j >= 0 && j < 4), "in range");
  assert(row.x.values.reduce((a, b) => a + b, 0) === 40, "unsigned: values sum to the count");
});

Deno.test("tfidf and l2: online IDF (row counted first), then unit norm; a frozen TfIdf is not updated", async () => {
  const text = "3 3 1\n0 0:1 1:1\n0 0:2\n0 0:1 2:3\n";
  const { rows, reader } = await readAll([text], { tfidf: true });
  const idf = (n: number, df: number) => Math.log((1 + n) / (1 + df)) + 1;
  assertEquals(plain(rows)[1].val, [2 * idf(2, 2)].map(Math.fround));
  assertEquals(plain(rows)[2].val, [1 * idf(3, 3), 3 * idf(3, 1)].map(Math.fround));
  assert(reader.tfidf?.numDocs === 3, "three rows counted");
  const both = await readAll([text], { tfidf: true, l2: true });
  for (const e of both.rows) {
    const norm = Math.hypot(...e.x.values);
    assert(Math.abs(norm - 1) < 1e-6, `norm ${norm}`);
  }
  const frozen = TfIdf.fromJSON({ numDocs: 10, df: [10, 1, 5], fit: false });
  const f = await readAll([text], { tfidf: frozen, l2: true });
  assert(frozen.numDocs === 10, "frozen statistics unchanged");
  const r0 = plain(f.rows)[0].val;
  const a = 1 * idf(10, 10), b = 1 * idf(10, 1), nrm = Math.hypot(a, b);
  assertEquals(r0, [a / nrm, b / nrm].map(Math.fround));
  const l2only = await readAll(["1 2 1\n0 0:3 1:4\n"], { l2: true });
  assertEquals(plain(l2only.rows)[0].val, [0.6, 0.8].map(Math.fround));
});

Deno.test("readExamples: unknown format and onError are TypeErrors; loader and reader agree on bytes", async () => {
  await assertThrowsMsg(
    () => readExamples(["x"], { format: "csv" as "xc" }),
    TypeError,
    "unknown format 'csv'",
  );
  await assertThrowsMsg(
    () => readExamples(["x"], { onError: "ignore" as "skip" }),
    TypeError,
    'onError must be "fail" or "skip"',
  );
  const ds = loadXcBytes(bytes(TOY), "toy.txt");
  const { rows } = await readAll([TOY]);
  assert(rows.length === ds.x.numRows, "same row count");
});
