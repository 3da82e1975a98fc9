// XC/LIBSVM rows are hashed when the parsed rows are handed out, outside the per-line error
// handling: a row whose values add up past the float32 range in one hashed column (the hasher's
// RangeError) escaped it. The stream died with the hasher's bare message (no file, no line),
// whatever onError said, and the rows parsed with it in the same chunk, accepted and counted,
// were never delivered. It is now a bad line like any other (as it already was for NDJSON).
import { readExamples } from "../../src/data/readers.ts";
import type { Example } from "../../src/data/types.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";

const BIG = Array.from({ length: 5 }, (_, k) => `${k + 1}:3e38`).join(" ");
const TEXT = `4 8 2\n0 0:1\n1 ${BIG}\n0 3:1\n1 6:2\n`;
const HASHING = { dim: 1, signed: false };

Deno.test("hashing overflow, fail: rows before it delivered, then an error naming file and line", async () => {
  for (const chunks of [[TEXT], [...TEXT]]) {
    const r = await readExamples(chunks, { name: "h.txt", hashing: HASHING });
    const lines: number[] = [];
    await assertThrowsMsg(
      async () => {
        for await (const e of r.stream) lines.push(e.line!);
      },
      RangeError,
      "Cannot parse line 3 of h.txt: FeatureHasher.hashIndexed: features",
    );
    assertEquals(lines, [2], "rows delivered before the error");
    assertEquals(r.report.accepted, 1, "accepted rows");
  }
});

Deno.test("hashing overflow, skip: the line is skipped and counted, the others delivered", async () => {
  for (const chunks of [[TEXT], [...TEXT]]) {
    for (const l2 of [false, true]) {
      const r = await readExamples(chunks, {
        name: "h.txt",
        hashing: HASHING,
        onError: "skip",
        l2,
      });
      const rows: Example[] = [];
      for await (const e of r.stream) rows.push(e);
      assertEquals(rows.map((e) => e.line), [2, 4, 5], "lines delivered");
      assertEquals(rows.map((e) => [...e.labels]), [[0], [0], [1]], "labels");
      assert(rows.every((e) => e.x.values.every(Number.isFinite)), "finite values");
      assertEquals(r.report.accepted, 3, "accepted");
      assertEquals(r.report.skipped, 1, "skipped");
      assertEquals(r.report.errors[0].line, 3, "the error's line");
      assert(
        r.report.errors[0].message.startsWith("Cannot parse line 3 of h.txt: FeatureHasher"),
        r.report.errors[0].message,
      );
    }
  }
});

Deno.test("hashing overflow, skip: the report keeps the first errors in line order", async () => {
  const text = `4 8 2\n0 0:1\n1 ${BIG}\n0 9:1\n1 6:2\n`; // line 3: overflow, line 4: bad index
  for (const maxErrors of [1, 5]) {
    const r = await readExamples([text], {
      name: "h.txt",
      hashing: HASHING,
      onError: "skip",
      maxErrors,
    });
    const lines: number[] = [];
    for await (const e of r.stream) lines.push(e.line!);
    assertEquals(lines, [2, 5], "lines delivered");
    assertEquals(r.report.skipped, 2, "skipped");
    assertEquals(
      r.report.errors.map((e) => e.line),
      [3, 4].slice(0, maxErrors),
      `error lines (maxErrors ${maxErrors})`,
    );
  }
});
