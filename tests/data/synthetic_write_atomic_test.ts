// writeSyntheticXc opened (and truncated) its final path before anything else: a failure left a
// partial file under that name, an earlier file there emptied (options refused after the open
// also left the file open). It writes a temporary file beside the path now and renames it once
// complete; a failure leaves the path as it was and removes the temporary file.
import { writeSyntheticXc } from "../../src/data/synthetic.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test("writeSyntheticXc: refused options leave an earlier file as it was", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/syn.txt`;
    await Deno.writeTextFile(path, "earlier\n");
    const e = await writeSyntheticXc(path, { rows: -1 }).then(() => undefined, (e) => e);
    assert(e instanceof RangeError, `not a RangeError: ${e}`);
    assertEquals(await Deno.readTextFile(path), "earlier\n");
    assertEquals(await names(dir), ["syn.txt"]);
  });
});

Deno.test("writeSyntheticXc: a failed rename leaves no temporary file", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/syn.txt`;
    await Deno.mkdir(path); // the rows cannot replace a directory
    const e = await writeSyntheticXc(path, { rows: 5, seed: 1 }).then(() => undefined, (e) => e);
    assert(e instanceof Error, "writing over a directory did not fail");
    assertEquals(await names(dir), ["syn.txt"]);
    assert((await Deno.stat(path)).isDirectory, "the directory was replaced");
  });
});

Deno.test("writeSyntheticXc: replaces an earlier file whole, nothing left beside it", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/syn.txt`;
    await Deno.writeTextFile(path, "earlier\n".repeat(10_000));
    const size = await writeSyntheticXc(path, { rows: 20, numFeatures: 50, numLabels: 4, seed: 3 });
    const text = await Deno.readTextFile(path);
    assertEquals(new TextEncoder().encode(text).length, size);
    assert(text.startsWith("20 50 4\n") && text.split("\n").length === 22, text.slice(0, 40));
    assertEquals(await names(dir), ["syn.txt"]);
  });
});
