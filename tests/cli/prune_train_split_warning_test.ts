// `deno task prune --model M` without `--valid` validates on a split of the training file, which
// the model may have learned (a BR model on bibtex: validation PSP@1 79 against test P@1 49), so
// POP's ε was measured on memorised rows without a word. Now stderr warns (one line) and the
// summary's `validation` says so; not with `--valid`, nor with `--train br` (its split is held
// out of the fit).
import { runPrune } from "../../src/cli/prune.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { assert, assertEquals, withTempDir } from "../helpers.ts";

/** A 3-label toy dataset and a linear-sparse model of it in `dir`. */
async function toy(dir: string): Promise<void> {
  const w = {
    numFeatures: 7,
    numLabels: 3,
    labelPtr: Int32Array.of(0, 3, 6, 9),
    featIdx: Int32Array.of(0, 3, 4, 1, 5, 6, 2, 3, 6),
    values: Float32Array.of(1, 0.1, 0.2, 1, 0.2, 0.1, 1, 0.1, 0.2),
  };
  await Deno.writeFile(`${dir}/m.tsm`, encodeModelFile(linearSparseContent(w)));
  const rows = Array.from({ length: 30 }, (_, i) => `${i % 3} ${i % 3}:1 ${3 + (i % 4)}:1`);
  await Deno.writeTextFile(`${dir}/toy.train.txt`, `30 7 3\n${rows.join("\n")}\n`);
  await Deno.writeTextFile(`${dir}/v.txt`, `6 7 3\n${rows.slice(0, 6).join("\n")}\n`);
}

/** Runs the prune with `extra`, returning the summary and the stderr messages. */
async function prune(dir: string, extra: Record<string, unknown>) {
  const messages: string[] = [];
  const summary = await runPrune({
    dataset: "toy",
    dataDir: dir,
    out: `${dir}/out.tsm`,
    plot: false,
    delta: 1,
    onMessage: (m) => messages.push(m),
    ...extra,
  });
  return { summary, messages };
}

Deno.test("prune --model without --valid warns that the model may have learned the split", async () => {
  await withTempDir(async (dir) => {
    await toy(dir);
    const { summary, messages } = await prune(dir, { model: `${dir}/m.tsm`, valFraction: 0.3 });
    const warned = messages.filter((m) => m.startsWith("warning: "));
    assertEquals(warned.length, 1, messages.join("\n"));
    assert(!warned[0].includes("\n"), "one line");
    assert(
      warned[0].includes(`${dir}/m.tsm is validated on 0.3 of toy.train.txt`) &&
        /may have learned/.test(warned[0]) && /give --valid FILE/.test(warned[0]),
      warned[0],
    );
    assertEquals(summary.warnings, [warned[0].replace(/^warning: /, "")]);
    assertEquals(
      summary.validation,
      "train split (0.3 of toy.train.txt; the model may have learned these rows): give --valid",
    );
  });
});

Deno.test("prune with --valid, or --train br, does not warn about the training split", async () => {
  await withTempDir(async (dir) => {
    await toy(dir);
    const given = await prune(dir, { model: `${dir}/m.tsm`, valid: `${dir}/v.txt` });
    assertEquals(given.messages.filter((m) => m.startsWith("warning: ")), []);
    assertEquals(given.summary.warnings, undefined);
    assertEquals(given.summary.validation, `${dir}/v.txt`);
    const trained = await prune(dir, { train: "br" });
    assertEquals(trained.messages.filter((m) => m.startsWith("warning: ")), []);
    assertEquals(trained.summary.warnings, undefined);
  });
});

Deno.test("prune says its warnings when it finds them, before the search: a run that fails later has said them", async () => {
  await withTempDir(async (dir) => {
    await toy(dir);
    // a test file of another label count fails the run after the validation split is chosen
    await Deno.writeTextFile(`${dir}/toy.test.txt`, `1 7 4\n3 0:1\n`);
    const messages: string[] = [];
    let failed: Error | undefined;
    try {
      await runPrune({
        dataset: "toy",
        dataDir: dir,
        out: `${dir}/out.tsm`,
        plot: false,
        model: `${dir}/m.tsm`,
        test: true,
        onMessage: (m) => messages.push(m),
      });
    } catch (e) {
      failed = e as Error;
    }
    assert(failed !== undefined && /toy\.test\.txt/.test(failed.message), String(failed));
    const warned = messages.filter((m) => m.startsWith("warning: "));
    assertEquals(warned.length, 1, messages.join("\n"));
    assert(/may have learned/.test(warned[0]), warned[0]);
  });
});
