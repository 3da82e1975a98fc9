// The XC / LIBSVM byte parser reads only the bytes of its line: a label list ending in ',' and a
// LIBSVM token starting with 'q' at the end of the line must not look past the line's end, where
// a streaming reader's carry buffer holds bytes of an earlier line (and the whole-file loader
// the end of the buffer), so the same file gives the same rows however it is chunked.
import { loadXcBytes } from "../../src/data/dataset.ts";
import { SparseRowBuffer, XcLineParser } from "../../src/data/xc_line.ts";
import { assertEquals, assertThrowsMsg, bytes, readAll } from "./helpers.ts";

Deno.test("xc line: a label list ending in ',' is an error, whatever follows the line", async () => {
  const out = new SparseRowBuffer();
  const p = new XcLineParser(out, { numFeatures: 3, numLabels: 9 });
  const buf = bytes("1,8 0:1"); // the line is "1,"; "8 0:1" is not part of it
  await assertThrowsMsg(
    () => p.parseLine(buf, 0, 2),
    SyntaxError,
    "expected a label index at column 3, found end of line",
  );
  assertEquals(out.numRows, 0);
  assertEquals(out.numLabelEntries, 0);
});

Deno.test("xc line: the last line '1,' of a text without final newline is an error", async () => {
  await assertThrowsMsg(
    () => loadXcBytes(bytes("1 3 2\n1,"), "t.txt"),
    SyntaxError,
    "Cannot parse line 2 of t.txt: expected a label index at column 3, found end of line",
  );
  const skipped = loadXcBytes(bytes("1 3 2\n1,"), "t.txt", { onError: "skip" });
  assertEquals(skipped.x.numRows, 0);
  assertEquals(skipped.report.skipped, 1); // the bad line (it is the header's one row)
  assertEquals(skipped.y.indices.length, 0);
});

Deno.test("xc line: the streaming reader gives the same answer however the bytes are chunked", async () => {
  // one chunk, and chunks that leave "7,8 0:1" then "1," in the splitter's carry buffer
  for (const chunks of [["2 3 9\n7,8 0:1\n1,\n"], ["2 3 9\n7,8 0", ":1\n1", ",\n"]]) {
    const r = await readAll(chunks, { name: "x.txt" });
    assertEquals(r.rows.map((e) => [...e.labels]), [[7, 8]], JSON.stringify(chunks));
    assertEquals(
      r.error?.message,
      "Cannot parse line 3 of x.txt: expected a label index at column 3, found end of line",
    );
  }
});

Deno.test("libsvm line: 'q' at the end of a line is not a qid token", async () => {
  const out = new SparseRowBuffer();
  const p = new XcLineParser(out, { libsvm: true, featureIndexBase: 1 });
  const buf = bytes("0 qid:1"); // the line is "0 q"
  await assertThrowsMsg(
    () => p.parseLine(buf, 0, 3),
    SyntaxError,
    "expected a feature index at column 3, found 'q'",
  );
  assertEquals(out.numRows, 0);
  // a whole qid token is still ignored
  p.parseLine(buf, 0, buf.length);
  assertEquals([out.numRows, out.nnz, out.labels[0]], [1, 0, 0]);
});
