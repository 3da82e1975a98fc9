// FileFollower.next(maxLines) hands a read's lines out a few at a time, each call's position
// (offset, line, tail) that of its last line: a service can stop, or checkpoint, between two
// calls and resume there.
import { FileFollower, type FileLine } from "../../src/service/file_source.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("FileFollower.next(maxLines): the lines of a read a few at a time, each call's position its last line's", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    // ~1.3 MiB: two reads, a line across the first read's end, a last line without newline
    const lines: string[] = [];
    for (let i = 0; i < 9000; i++) lines.push(`{"i":${i},"pad":"${"p".repeat(i % 300)}"}`);
    const text = lines.join("\n");
    await Deno.writeTextFile(path, text);
    const bytes = await Deno.readFile(path);
    const logs: string[] = [];
    const f = new FileFollower(path, undefined, { log: (m) => logs.push(m) });
    const got: FileLine[] = [];
    const positions: { offset: number; line: number; tail: string | undefined }[] = [];
    for (let r = await f.next(7); r !== null; r = await f.next(7)) {
      assert(r.length <= 7, `${r.length} lines from next(7)`);
      got.push(...r);
      if (r.length === 0) continue;
      assertEquals(f.offset, r[r.length - 1].offset);
      assertEquals(f.line, r[r.length - 1].line);
      const at = f.offset;
      const inFile = at < bytes.length || bytes[bytes.length - 1] === 10;
      assertEquals(f.tail, inFile ? hex(bytes.subarray(Math.max(0, at - 64), at)) : undefined);
      positions.push({ offset: at, line: f.line, tail: f.tail });
    }
    f.close();
    assertEquals(got.map((l) => l.text), lines);
    // resuming at any of these positions goes on with the next line (the tail matches)
    for (const p of [positions[3], positions[Math.floor(positions.length / 2)]]) {
      const g = new FileFollower(path, { ...p, tail: p.tail }, { log: (m) => logs.push(m) });
      const r = await g.next(1);
      g.close();
      assertEquals(r!.map((l) => l.line), [p.line + 1]);
    }
    assertEquals(logs, []);
  });
});

Deno.test("FileFollower.next(maxLines): lines not handed out yet come before a look at the file", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/e.ndjson`;
    await Deno.writeTextFile(path, "a\nb\nc\nd\n");
    const f = new FileFollower(path, undefined, { follow: true, pollMs: 5 });
    assertEquals((await f.next(3))!.map((l) => l.text), ["a", "b", "c"]);
    // the file truncated and written again meanwhile: "d" was read before, it comes first
    await Deno.writeTextFile(path, "x\n");
    assertEquals((await f.next(3))!.map((l) => l.text), ["d"]);
    const rest: string[] = [];
    for (let i = 0; i < 5 && rest.length === 0; i++) {
      rest.push(...(await f.next(3))!.map((l) => l.text!));
    }
    f.close();
    assertEquals(rest, ["x"]);
  });
});
