// `tagstream eval` without --top scores every label of every row (for the AUCs): at 10⁵ labels
// 2,000 rows took 9 min 41 s without a word, against 3.3 s with --top 5. From 10⁴ labels on it
// says so on stderr before scoring, naming --top and what it changes; with --top, or on fewer
// labels, it says nothing. The help states --k's cap of 1000.
import { encodeModelFile } from "../../src/format/model_file.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { assert, assertEquals, runMain, withTempDir } from "./helpers.ts";

/** A linear-sparse model of `L` labels (label l ← feature l % 4) and a 3-row XC test file. */
async function files(dir: string, L: number): Promise<{ model: string; test: string }> {
  const labelPtr = Int32Array.from({ length: L + 1 }, (_, l) => l);
  const featIdx = Int32Array.from({ length: L }, (_, l) => l % 4);
  const w = {
    numFeatures: 4,
    numLabels: L,
    labelPtr,
    featIdx,
    values: new Float32Array(L).fill(1),
  };
  const model = `${dir}/m${L}.tsm`, test = `${dir}/t${L}.txt`;
  await Deno.writeFile(model, encodeModelFile(linearSparseContent(w)));
  await Deno.writeTextFile(test, `3 4 ${L}\n0 0:1\n1 1:1\n2,6 2:1 3:1\n`);
  return { model, test };
}

async function evalRun(args: string[]): Promise<{ err: string; metrics: Record<string, number> }> {
  const r = await runMain(["eval", ...args]);
  assertEquals(r.code, 0, r.err);
  return { err: r.err, metrics: JSON.parse(r.out.trim().split("\n").at(-1)!).metrics };
}

Deno.test("eval on 10⁴ labels without --top notes on stderr that every label is scored and what --top changes", async () => {
  await withTempDir(async (dir) => {
    const { model, test } = await files(dir, 10_000);
    const all = await evalRun(["--model-file", model, "--data", test, "--k", "3"]);
    const notes = all.err.split("\n").filter((l) => l.startsWith("tagstream eval: note:"));
    assertEquals(notes.length, 1, all.err);
    for (const part of ["10000 labels", "3 test rows", "--top 3", "AUCs", "P@k", "unchanged"]) {
      assert(notes[0].includes(part), `${part}: ${notes[0]}`);
    }
    // the same on NDJSON events
    const events = `${dir}/t.ndjson`;
    await Deno.writeTextFile(events, '{"features":{"0":1},"labels":["0"]}\n');
    const ev = await evalRun(["--model-file", model, "--data", events]);
    assert(
      ev.err.includes("tagstream eval: note: scoring all 10000 labels of each of the 1 test rows"),
      ev.err,
    );
    assert(ev.err.includes("--top 5"), ev.err);
    const top = await evalRun(["--model-file", model, "--data", test, "--k", "3", "--top", "3"]);
    assert(!top.err.includes("note:"), top.err);
    assertEquals(top.metrics["P@1"], all.metrics["P@1"]);
    assertEquals(top.metrics["PSP@3"], all.metrics["PSP@3"]);
  });
});

Deno.test("eval on fewer than 10⁴ labels says nothing about --top", async () => {
  await withTempDir(async (dir) => {
    const { model, test } = await files(dir, 9_999);
    const r = await evalRun(["--model-file", model, "--data", test]);
    assert(!r.err.includes("note:"), r.err);
  });
});

Deno.test("eval --help states that --k is at most 1000", async () => {
  const r = await runMain(["eval", "--help"]);
  assertEquals(r.code, 0, r.err);
  const text = r.out.replace(/\s+/g, " ");
  assert(/--k K largest cut-off, 1 to 1000 \(default 5\)/.test(text), text);
  assert(text.includes("10000 labels or more gets a note on stderr naming --top"), text);
});
