// loadNames read names files lossily (Deno.readTextFile: each invalid byte became U+FFFD, so a
// Latin-1 labels file gave "caf\uFFFD"), while the CLI's label-name files were read strictly. Now
// both decode through one strict reader (src/data/name_lines.ts): invalid UTF-8 is a TypeError
// naming the file and the line; good files read as before (BOM, CRLF, blank lines, last line).
import { loadNames } from "../../src/data/dataset.ts";
import { decodeNameLines } from "../../src/data/name_lines.ts";
import { readDatasetLabels, readLabelsFlag } from "../../src/cli/commands/label_names.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const enc = new TextEncoder();
const BOM = [0xef, 0xbb, 0xbf];

/** The bytes of the parts: strings as UTF-8, numbers as raw bytes. */
function raw(...parts: (string | number[])[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => typeof p === "string" ? [...enc.encode(p)] : p));
}

/** The error `fn` rejects with (fails when it resolves). */
async function rejection(fn: () => Promise<unknown>): Promise<Error> {
  let got: unknown;
  try {
    got = await fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error(`expected an error, got ${JSON.stringify(got)}`);
}

Deno.test("loadNames: a names file that is not UTF-8 is a TypeError naming the file and line", async () => {
  await withTempDir(async (dir) => {
    // "é" in Latin-1 (0xe9) on line 2
    await Deno.writeFile(`${dir}/toy.labels.txt`, raw("news\ncaf", [0xe9], "\nsports\n"));
    const e = await rejection(() => loadNames(dir, "toy", "labels"));
    assert(e instanceof TypeError, `expected a TypeError, got ${e}`);
    assertEquals(
      e.message,
      `${dir}/toy.labels.txt line 2: not valid UTF-8 (save the file as UTF-8)`,
    );
    // feature names too; a sequence cut short by the end of the file, after a BOM and CRLF lines
    await Deno.writeFile(`${dir}/toy.features.txt`, raw(BOM, "a\r\nb\r\nc", [0xc3]));
    const f = await rejection(() => loadNames(dir, "toy", "features"));
    assert(f instanceof TypeError, `expected a TypeError, got ${f}`);
    assertEquals(
      f.message,
      `${dir}/toy.features.txt line 3: not valid UTF-8 (save the file as UTF-8)`,
    );
    // the same file in UTF-8 reads
    await Deno.writeTextFile(`${dir}/toy.labels.txt`, "news\ncafé\nsports\n");
    assertEquals(await loadNames(dir, "toy", "labels"), ["news", "café", "sports"]);
  });
});

Deno.test("loadNames: good files read as before (BOM, CRLF, blank lines, the last line)", async () => {
  await withTempDir(async (dir) => {
    const cases: [Uint8Array, string[]][] = [
      [raw(""), []],
      [raw(BOM), []],
      [raw("a\n"), ["a"]],
      [raw("a"), ["a"]],
      [raw("a\nb"), ["a", "b"]],
      [raw(BOM, "a\r\nb\r\n"), ["a", "b"]],
      // a blank line keeps its index: line k is index k
      [raw("a\n\nc\n"), ["a", "", "c"]],
      [raw("a\n\n"), ["a", ""]],
      // a mark that starts a later line is data; a "\r" inside a name is kept
      [raw("a\n", BOM, "b\n"), ["a", "\uFEFFb"]],
      [raw("a\rb\n"), ["a\rb"]],
    ];
    for (const [bytes, names] of cases) {
      await Deno.writeFile(`${dir}/t.labels.txt`, bytes);
      assertEquals(await loadNames(dir, "t", "labels"), names, JSON.stringify([...bytes]));
      assertEquals(decodeNameLines(bytes, "t"), names, JSON.stringify([...bytes]));
    }
  });
});

Deno.test("loadNames: a missing file still rejects with Deno.errors.NotFound", async () => {
  await withTempDir(async (dir) => {
    const e = await rejection(() => loadNames(dir, "none", "labels"));
    assert(e instanceof Deno.errors.NotFound, `expected NotFound, got ${e}`);
  });
});

Deno.test("loadNames and the CLI's label files name the same bad line", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/toy.labels.txt`;
    // line 4 holds a lone continuation byte; lines 1-3 are fine (a BOM, CRLF, a 4-byte char)
    await Deno.writeFile(file, raw(BOM, "a\r\nb\n\u{1F600}\nd", [0x80], "e\nf\n"));
    const want = "line 4: not valid UTF-8 (save the file as UTF-8)";
    assertEquals(
      (await rejection(() => loadNames(dir, "toy", "labels"))).message,
      `${file} ${want}`,
    );
    assertEquals((await rejection(() => readDatasetLabels(file))).message, `${file} ${want}`);
    assertEquals(
      (await rejection(() => readLabelsFlag(file, 6))).message,
      `--labels ${file} ${want}`,
    );
  });
});
