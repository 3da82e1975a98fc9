// LineSplitter: arbitrary chunking, CRLF left to the parser, long-line limit.
import { LineSplitter } from "../../src/data/line_splitter.ts";
import { assert, assertEquals, assertThrowsMsg, bytes } from "./helpers.ts";

function split(text: string, sizes: number[], max?: number) {
  const dec = new TextDecoder();
  const lines: string[] = [];
  const tooLong: [number, number][] = [];
  const s = new LineSplitter((b, a, e, n) => lines.push(`${n}:${dec.decode(b.subarray(a, e))}`), {
    maxLineBytes: max,
    onTooLong: (n, len) => tooLong.push([n, len]),
  });
  const b = bytes(text);
  let p = 0, k = 0;
  while (p < b.length) {
    const n = sizes[k++ % sizes.length];
    s.push(b.subarray(p, p + n));
    p += n;
  }
  s.end();
  return { lines, tooLong, splitter: s };
}

Deno.test("LineSplitter: any chunking gives the lines of split('\\n'), numbered from 1", () => {
  const text = "alpha\nbé\n\nlonger line here\r\nlast";
  const want = text.split("\n").map((l, i) => `${i + 1}:${l}`);
  for (const sizes of [[1], [2, 3], [7], [1000], [5, 1, 1, 9]]) {
    const { lines, splitter } = split(text, sizes);
    assertEquals(lines, want, `sizes ${sizes}`);
    assert(splitter.bytesRead === bytes(text).length && splitter.lineNo === 5, "counters");
  }
  assertEquals(split("a\nb\n", [3]).lines, ["1:a", "2:b"], "a final newline ends the last line");
  assertEquals(split("", [1]).lines, [], "empty input");
});

Deno.test("LineSplitter: lines over maxLineBytes are reported, not passed, and reading goes on", async () => {
  const text = "short\n" + "x".repeat(30) + "\nok\n" + "y".repeat(12);
  for (const sizes of [[1], [4], [100]]) {
    const { lines, tooLong } = split(text, sizes, 10);
    assertEquals(lines, ["1:short", "3:ok"], `sizes ${sizes}`);
    assertEquals(tooLong, [[2, 30], [4, 12]], `sizes ${sizes}`);
  }
  await assertThrowsMsg(
    () => new LineSplitter(() => {}, { maxLineBytes: 0 }),
    RangeError,
    "LineSplitter: option maxLineBytes must be an integer in [1, 9007199254740991], got 0",
  );
});
