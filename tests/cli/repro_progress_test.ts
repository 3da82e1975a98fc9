// Long repro runs show progress (issue 17): hyper-parameter selection in `repro leml` and
// `repro sleec` starts a progress task, ticks it to its total and finishes it, before the final
// fit (itself a progress task), on a small synthetic dataset in a temp directory. On a terminal
// each task draws a bar with rate and ETA (src/progress/mod.ts); here its events are recorded.
import { Progress, type ProgressDetail } from "../../src/progress/mod.ts";
import leml from "../../bench/repro/experiments/leml.ts";
import sleec from "../../bench/repro/experiments/sleec.ts";
import { mulberry32 } from "../mulberry32.ts";
import { assert, tempDirWith } from "./helpers.ts";

/** 120 training and 40 test rows over 30 features and 6 labels, labels tied to features. */
function synthetic(): Record<string, string> {
  const rand = mulberry32(17);
  const rows = (n: number) => {
    const out = [`${n} 30 6`];
    for (let i = 0; i < n; i++) {
      const labels = new Set<number>([Math.floor(rand() * 6)]);
      if (rand() < 0.4) labels.add(Math.floor(rand() * 6));
      const feats = new Map<number, number>();
      for (const l of labels) feats.set(l * 5 + Math.floor(rand() * 5), 1);
      feats.set(Math.floor(rand() * 30), 0.5);
      const fs = [...feats].sort((a, b) => a[0] - b[0]).map(([j, v]) => `${j}:${v}`);
      out.push(`${[...labels].sort().join(",")} ${fs.join(" ")}`);
    }
    return out.join("\n") + "\n";
  };
  return {
    "syn.train.txt": rows(120),
    "syn.test.txt": rows(40),
    "syn.labels.txt": "a\nb\nc\nd\ne\nf\n",
  };
}

/** Runs an experiment with a recording Progress; returns the tasks as [label, done, total]. */
async function tasks(
  run: typeof leml,
  dir: string,
  flags: Record<string, string>,
): Promise<[string, number, number | undefined][]> {
  const progress = new Progress({ silent: true, intervalMs: 0 });
  const last = new Map<string, ProgressDetail>();
  progress.addEventListener("progress", (e) => {
    const d = (e as CustomEvent<ProgressDetail>).detail;
    last.set(d.label, d);
  });
  await run({ dataset: "syn", dataDir: dir, seed: 1, flags, progress });
  return [...last.values()].map((d) => [d.label, d.done, d.total]);
}

Deno.test("repro leml and sleec report progress while selecting hyper-parameters", async () => {
  const dir = await tempDirWith("tagstream_repro_progress_", synthetic());
  try {
    const l = await tasks(leml, dir, { iterations: "2" });
    const select = l.find(([label]) => label.startsWith("leml: select"));
    assert(select, `no leml selection progress: ${JSON.stringify(l)}`);
    // 2 preprocessings × 3 distinct ranks (0.1 and 0.2 of 6 labels are both 1) + 2 λ, 2 ALS
    // iterations each
    assert(select[2] === 16 && select[1] === 16, `leml selection ${JSON.stringify(select)}`);
    const final = l.find(([label]) => label.startsWith("leml: final fit"));
    assert(final && final[1] === 2 && final[2] === 2, `leml final fit ${JSON.stringify(final)}`);

    const s = await tasks(sleec, dir, {
      "k-grid": "1,3",
      "neighbours-grid": "5,10",
      splits: "2",
      rank: "4",
    });
    const sel = s.find(([label]) => label.startsWith("sleec: select"));
    assert(sel, `no sleec selection progress: ${JSON.stringify(s)}`);
    // 2 splits × 1 C × 2 n̄ × (1 fit + 2 k × 2 weightings)
    assert(sel[2] === 20 && sel[1] === 20, `sleec selection ${JSON.stringify(sel)}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
