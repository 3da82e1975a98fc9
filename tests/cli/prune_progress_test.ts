// `tagstream prune --model FILE` gave no progress: at 10⁵ labels it ran minutes under a
// "POP search" of no total that never ticked. Its label search now ticks each cut evaluated,
// out of at most 2 + ⌈log₂ L⌉, and the plot's ε and λ sweeps each point done, with rate and
// ETA on a terminal (the `progress` events are what the bar draws).
import { runPrune } from "../../src/cli/prune.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { Progress, type ProgressDetail } from "../../src/progress/mod.ts";
import { assert, assertEquals, withTempDir } from "../helpers.ts";

const L = 20, D = 24;

/** A model of L labels (label l ← features l and l + 4, weaker) and data for it in `dir`. */
async function toy(dir: string): Promise<void> {
  const labelPtr = Int32Array.from({ length: L + 1 }, (_, l) => 2 * l);
  const featIdx = Int32Array.from({ length: 2 * L }, (_, p) => (p >> 1) + 4 * (p & 1));
  const values = Float32Array.from({ length: 2 * L }, (_, p) => p & 1 ? 0.05 : 1);
  const w = { numFeatures: D, numLabels: L, labelPtr, featIdx, values };
  await Deno.writeFile(`${dir}/m.tsm`, encodeModelFile(linearSparseContent(w)));
  const row = (i: number) => `${i % L} ${i % L}:1 ${L + (i % 4)}:1`;
  const rows = Array.from({ length: 80 }, (_, i) => row(i * 7));
  await Deno.writeTextFile(`${dir}/toy.train.txt`, `80 ${D} ${L}\n${rows.join("\n")}\n`);
  await Deno.writeTextFile(`${dir}/v.txt`, `40 ${D} ${L}\n${rows.slice(0, 40).join("\n")}\n`);
}

async function events(dir: string, extra: Record<string, unknown>): Promise<ProgressDetail[]> {
  const progress = new Progress({ silent: true, intervalMs: 0 });
  const seen: ProgressDetail[] = [];
  progress.addEventListener(
    "progress",
    (e) => seen.push((e as CustomEvent<ProgressDetail>).detail),
  );
  await runPrune({
    dataset: "toy",
    dataDir: dir,
    model: `${dir}/m.tsm`,
    valid: `${dir}/v.txt`,
    out: `${dir}/m.pop.tsm`,
    delta: 1,
    progress,
    onMessage: () => {},
    ...extra,
  });
  return seen;
}

/** The events of one phase: they all have its total, and `done` never decreases. */
function phase(seen: ProgressDetail[], label: string, total: number): ProgressDetail[] {
  const of = seen.filter((d) => d.label === label);
  assert(of.length > 0, `no ${label} event: ${JSON.stringify(seen.map((d) => d.label))}`);
  for (const d of of) assertEquals(d.total, total, label);
  for (let i = 1; i < of.length; i++) assert(of[i].done >= of[i - 1].done, label);
  return of;
}

Deno.test("prune --model ticks the label search's cuts and the curve's points, out of known totals", async () => {
  await withTempDir(async (dir) => {
    await toy(dir);
    const seen = await events(dir, { plot: `${dir}/c.svg` });
    const search = phase(seen, "POP search", 2 + Math.ceil(Math.log2(L)));
    const last = search.at(-1)!;
    // the unpruned model, then a binary search over [0, L): at least ⌊log₂ L⌋ cuts
    assert(last.done >= 1 + Math.floor(Math.log2(L)) && last.done <= last.total!, `${last.done}`);
    assert(search.some((d) => typeof d.cut === "number" && typeof d["PSP@1"] === "number"));
    const curve = phase(seen, "POP curve", 12); // 6 ε and 6 λ by default
    assertEquals(curve.at(-1)!.done, 12);
    assertEquals(curve.at(-1)!.etaSeconds, 0);
    assertEquals(seen.at(-1)!.label, "POP curve");
  });
});

Deno.test("prune --model: the curve's total is its sweeps' points, and no curve without a plot", async () => {
  await withTempDir(async (dir) => {
    await toy(dir);
    const seen = await events(dir, { plot: `${dir}/c.svg`, epsilons: [0, 0.1], lambdas: [0.01] });
    assertEquals(phase(seen, "POP curve", 3).at(-1)!.done, 3);
    const bare = await events(dir, { plot: false });
    phase(bare, "POP search", 2 + Math.ceil(Math.log2(L)));
    assertEquals(bare.filter((d) => d.label !== "POP search"), []);
  });
});
