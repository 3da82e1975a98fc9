// `tagstream prune --model FILE`'s progress when POP's search cuts no label (ε = 0, δ = 0 here):
// the search reads its answer, the unpruned model, again, which the report took for a new search
// (it read the progress off the cut memo): without a plot a "POP curve" appeared, and with one
// the curve ticked past its total (13/12 on bibtex). One search, and the curve's points, now.
import { runPrune } from "../../src/cli/prune.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { Progress, type ProgressDetail } from "../../src/progress/mod.ts";
import { assert, assertEquals, withTempDir } from "../helpers.ts";

const L = 12, D = 16;

/** A model of L labels (label l ← feature l) whose every label is needed, and data for it. */
async function toy(dir: string): Promise<void> {
  const labelPtr = Int32Array.from({ length: L + 1 }, (_, l) => l);
  const featIdx = Int32Array.from({ length: L }, (_, l) => l);
  const w = {
    numFeatures: D,
    numLabels: L,
    labelPtr,
    featIdx,
    values: new Float32Array(L).fill(1),
  };
  await Deno.writeFile(`${dir}/m.tsm`, encodeModelFile(linearSparseContent(w)));
  const rows = Array.from({ length: 48 }, (_, i) => `${i % L} ${i % L}:1 ${L + (i % 4)}:1`);
  // label 0, which wins ties of scores, is the most frequent: not the first label cut
  const train = [...rows, "0 0:1", "0 0:1"];
  await Deno.writeTextFile(`${dir}/toy.train.txt`, `50 ${D} ${L}\n${train.join("\n")}\n`);
  await Deno.writeTextFile(`${dir}/v.txt`, `24 ${D} ${L}\n${rows.slice(0, 24).join("\n")}\n`);
}

async function run(dir: string, plot: string | false) {
  const progress = new Progress({ silent: true, intervalMs: 0 });
  const seen: ProgressDetail[] = [];
  progress.addEventListener(
    "progress",
    (e) => seen.push((e as CustomEvent<ProgressDetail>).detail),
  );
  const summary = await runPrune({
    dataset: "toy",
    dataDir: dir,
    model: `${dir}/m.tsm`,
    valid: `${dir}/v.txt`,
    out: `${dir}/m.pop.tsm`,
    epsilon: 0,
    delta: 0,
    plot,
    progress,
    onMessage: () => {},
  });
  return { seen, summary };
}

Deno.test("prune --model whose search cuts no label: one POP search, and a curve that ends at its total", async () => {
  await withTempDir(async (dir) => {
    await toy(dir);
    const bare = await run(dir, false);
    assertEquals(bare.summary.numPrunedLabels, 0);
    assertEquals([...new Set(bare.seen.map((d) => d.label))], ["POP search"]);
    for (const d of bare.seen) assert(d.done <= d.total!, `${d.label} ${d.done}/${d.total}`);

    const { seen } = await run(dir, `${dir}/c.svg`);
    assertEquals([...new Set(seen.map((d) => d.label))], ["POP search", "POP curve"]);
    const curve = seen.filter((d) => d.label === "POP curve");
    for (const d of curve) assertEquals(d.total, 12);
    assertEquals(curve.map((d) => d.done).filter((n, i, a) => n !== a[i - 1]), [
      ...Array(13).keys(),
    ]);
  });
});
