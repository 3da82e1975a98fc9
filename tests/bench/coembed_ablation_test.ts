/**
 * `repro coembed-ablation`: one JSON row per (variant, τ) from validation splits of the training
 * file alone (the directory holds no test file, so reading it would fail), the reference's gain
 * over itself is 0, the gain over the baseline is the paired difference, and unknown variants
 * are refused.
 */
import experiment, { ABLATIONS } from "../../bench/repro/experiments/coembed-ablation.ts";
import { reproContext, trainOnlyFolder } from "./repro_context.ts";
import { synthetic } from "../models/coembed/helpers.ts";

async function trainOnlyDir(): Promise<string> {
  const s = synthetic(60, 6, 3, 5);
  const lines = [`${s.N} ${s.D} ${s.L}`];
  for (let i = 0; i < s.N; i++) {
    const labels: number[] = [];
    for (let j = 0; j < s.L; j++) if (s.y[i * s.L + j]) labels.push(j);
    const feats: string[] = [];
    for (let d = 0; d < s.D; d++) feats.push(`${d}:${s.x[i * s.D + d].toFixed(4)}`);
    lines.push(`${labels.join(",")} ${feats.join(" ")}`);
  }
  return await trainOnlyFolder("tagstream_coembed_ablation_", lines);
}

const ctx = reproContext;

Deno.test("repro coembed-ablation: rows per variant and τ, on the training file only", async () => {
  const dir = await trainOnlyDir();
  const log = console.log, printed: string[] = [];
  console.log = (s: string) => printed.push(s);
  try {
    const res = await experiment(ctx(dir, {
      taus: "0.3,0.8",
      repeats: "2",
      variants: "joint,stream",
      epochs: "2",
      extra: JSON.stringify({ tiny: { what: "k = 2", config: { rankX: 2, numRff: 8 } } }),
    }));
    const rows = res.extra!.rows as Record<string, unknown>[];
    // reference is always run, first; --extra variants after the named ones
    const names = rows.map((r) => `${r.variant}@${r.tau}`).join(",");
    const want = "reference@0.3,joint@0.3,stream@0.3,tiny@0.3," +
      "reference@0.8,joint@0.8,stream@0.8,tiny@0.8";
    if (names !== want) throw new Error(`rows ${names}`);
    if (printed.length !== rows.length) throw new Error(`${printed.length} JSON lines printed`);
    for (const [n, row] of rows.entries()) {
      if (JSON.stringify(JSON.parse(printed[n])) !== JSON.stringify(row)) {
        throw new Error(`printed line ${n} is not row ${n}`);
      }
      const auc = row.validationMacroAUC as number, base = row.baselineMacroAUC as number;
      if (!(auc >= 0 && auc <= 1 && base >= 0 && base <= 1)) throw new Error(`AUCs ${auc} ${base}`);
      const per = row.perRepeat as number[], basePer = row.baselinePerRepeat as number[];
      if (per.length !== 2 || basePer.length !== 2) throw new Error("two repeats");
      const gain = (per[0] - basePer[0] + per[1] - basePer[1]) / 2;
      if (Math.abs(gain - (row.gainOverBaseline as number)) > 1e-12) {
        throw new Error(`gain over baseline ${row.gainOverBaseline}, paired ${gain}`);
      }
      if (row.variant === "reference" && row.gainOverReference !== 0) {
        throw new Error(`reference gains ${row.gainOverReference} over itself`);
      }
    }
    if (res.metrics["joint@0.8"] !== rows[5].validationMacroAUC) throw new Error("metrics");
  } finally {
    console.log = log;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro coembed-ablation refuses unknown variants and bad repeats", async () => {
  const dir = await trainOnlyDir();
  try {
    const bad: Record<string, string>[] = [{ variants: "nope" }, { repeats: "0" }, { taus: "1.5" }];
    for (const flags of bad) {
      let threw = false;
      try {
        await experiment(ctx(dir, flags));
      } catch (e) {
        threw = e instanceof RangeError;
      }
      if (!threw) throw new Error(`accepted ${JSON.stringify(flags)}`);
    }
    if (!("reference" in ABLATIONS && "joint" in ABLATIONS)) throw new Error("grid");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
