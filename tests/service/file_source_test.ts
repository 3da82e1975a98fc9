import { FileFollower, type FileLine } from "../../src/service/file_source.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

async function drain(f: FileFollower, tries = 5): Promise<FileLine[]> {
  const out: FileLine[] = [];
  for (let i = 0; i < tries; i++) {
    const lines = await f.next();
    if (lines === null) break;
    out.push(...lines);
  }
  return out;
}

Deno.test("FileFollower reads a file once, resuming at an offset; last line without newline", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    await Deno.writeTextFile(path, "a\r\nbb\n\nccc");
    const f = new FileFollower(path);
    const all = await drain(f);
    f.close();
    assertEquals(all.map((l) => [l.line, l.text, l.offset]), [
      [1, "a", 3],
      [2, "bb", 6],
      [3, "", 7],
      [4, "ccc", 11],
    ]);
    const g = new FileFollower(path, { offset: 6, line: 2 });
    assertEquals((await drain(g)).map((l) => l.text), ["", "ccc"]);
    g.close();
  });
});

Deno.test("FileFollower follows appends and waits for the end of a partial line", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    await Deno.writeTextFile(path, "one\ntw");
    const f = new FileFollower(path, undefined, { follow: true, pollMs: 5 });
    assertEquals((await drain(f, 3)).map((l) => l.text), ["one"]);
    await Deno.writeTextFile(path, "o\nthree\n", { append: true });
    assertEquals((await drain(f, 3)).map((l) => [l.text, l.offset]), [["two", 8], ["three", 14]]);
    f.close();
  });
});

Deno.test("FileFollower skips lines that are too long or not UTF-8, keeping offsets", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    const bytes = new Uint8Array([
      ...new TextEncoder().encode("x".repeat(50) + "\nok\n"),
      0xff,
      0xfe,
      10,
      ...new TextEncoder().encode("end\n"),
    ]);
    await Deno.writeFile(path, bytes);
    const f = new FileFollower(path, undefined, { maxLineBytes: 10 });
    const all = await drain(f);
    f.close();
    assertEquals(all.map((l) => l.text ?? l.error), [
      "line is longer than 10 bytes (maxLineBytes; --max-line-bytes raises it)",
      "ok",
      "line is not valid UTF-8",
      "end",
    ]);
    assertEquals(all[all.length - 1].offset, bytes.length);
  });
});

Deno.test("FileFollower starts again when the file is truncated or replaced", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    await Deno.writeTextFile(path, "a\nb\n");
    const logs: string[] = [];
    const f = new FileFollower(path, undefined, {
      follow: true,
      pollMs: 5,
      log: (m) => logs.push(m),
    });
    assertEquals((await drain(f, 3)).map((l) => l.text), ["a", "b"]);
    await Deno.writeTextFile(path, "c\n"); // truncate and rewrite (same inode)
    assertEquals((await drain(f, 4)).map((l) => [l.text, l.line]), [["c", 1]]);
    await Deno.writeTextFile(`${dir}/new`, "d\ne\n");
    await Deno.rename(`${dir}/new`, path); // replaced (new inode)
    assertEquals((await drain(f, 4)).map((l) => l.text), ["d", "e"]);
    f.close();
    assert(logs.some((m) => m.includes("truncated")) && logs.some((m) => m.includes("replaced")));
  });
});

Deno.test("FileFollower: a missing file is an error unless following", async () => {
  await withTempDir(async (dir) => {
    let msg = "";
    await new FileFollower(`${dir}/none`).next().catch((e) => msg = (e as Error).message);
    assert(msg.includes(`${dir}/none`), msg);
    const f = new FileFollower(`${dir}/later`, undefined, { follow: true, pollMs: 5 });
    assertEquals(await f.next(), []);
    await Deno.writeTextFile(`${dir}/later`, "x\n");
    assertEquals((await drain(f, 2)).map((l) => l.text), ["x"]);
    f.close();
  });
});
