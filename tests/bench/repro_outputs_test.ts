/**
 * Repro experiments: what they write and what they print.
 *
 * - `repro pop --plot` and `repro sleec-curve --out/--plot` are checked before any work: a path
 *   naming a data file (an SVG or a model written over the test or training file) is refused and
 *   the file kept; they wrote over it at the end of the run.
 * - `repro sleec-curve --edge-bytes` must be a positive integer: 0 or less left every point out
 *   (`best` null, and no `--out` file written, silently).
 * - `repro sleec-curve --members` is checked before the ensemble is trained: an unknown spec is
 *   refused naming it (it failed after the training, as "sleec-pool: unknown member").
 * - `repro sleec` and `repro sleec-curve`: a bare `--weighted` means true, as a bare `--l2` or
 *   `--validation` does (it was refused with "--weighted must be true or false, got 'true'").
 * - `repro coembed`: a bare `--input` (no value) is refused; it was skipped, the run used the
 *   default input and printed it as the setting.
 * - `repro coembed-ablation --variants`: a repeated name is run once (it ran twice into the same
 *   rows: `perRepeat` held twice the repeats and the gains paired the second run with the next
 *   repeat's baseline, NaN, printed as null); an inherited name (`toString`) is an unknown variant
 *   (it failed after the fits with "Cannot read properties of undefined"); an `--extra` entry
 *   that is not an Ablation object is refused (it ran as the reference).
 * - `repro leml`: a flag the chosen protocol does not read is refused, naming it (`--rank` with
 *   `--loss logistic`, `--fractions` or `--mm-steps` without `--loss`), instead of being ignored.
 * - `repro ova --loss Logistic` (a word that is not one of the learner's values) is refused as the
 *   learner refuses it, listing the values (it said "--loss must be a number").
 * - `repro split-check` reads the test file: its `FLAGS` say so, and a data folder without one is
 *   refused before any work, naming `--dataset` (it was declared train-only, so the run loaded and
 *   parsed the training file first and then failed on the test file).
 * - `repro leml --loss logistic --fractions 0.6,0.2`: λ is chosen at the smallest k/L and
 *   `metrics`/`rank` are the largest k/L's, as documented, whatever the order of the list (they
 *   were the first and the last listed); a repeated fraction is fitted once.
 * - `repro leml-stream`: `--rank`, `--batch`, `--replay-steps` and `--replay` must be whole
 *   numbers, refused naming the flag before the selection (`--replay 0.5` failed in its third
 *   round, as "leml: option replay", after the fits of the first two).
 * - `repro leml --cg 1.5` is refused by the experiment's own check, naming `--cg` (it let
 *   fractions through, to be refused by the trainer as "option cgIterations").
 * - `repro leml-missing --iterations 2.5` likewise (its check said ">= 1" and let it through).
 * - `loadTrainTest` checks `<dataset>.labels.txt` when it loads it: a file with another number
 *   of names than labels, or a repeated name, is refused naming the file (the model file written
 *   at the end of the run refused the names, after all the work).
 * - `repro ova --replayRatio Q` without `--replay`: the replay candidate of the selection learns
 *   at ratio Q (it was always 1, and the final model, replay chosen, used 1 whatever Q said).
 */
import { assert, assertEquals } from "../helpers.ts";
import pop from "../../bench/repro/experiments/pop.ts";
import sleecCurve from "../../bench/repro/experiments/sleec-curve.ts";
import coembedAblation from "../../bench/repro/experiments/coembed-ablation.ts";
import leml from "../../bench/repro/experiments/leml.ts";
import ova from "../../bench/repro/experiments/ova.ts";
import coembed from "../../bench/repro/experiments/coembed.ts";
import sleec from "../../bench/repro/experiments/sleec.ts";
import lemlStream from "../../bench/repro/experiments/leml-stream.ts";
import lemlMissing from "../../bench/repro/experiments/leml-missing.ts";
import { syntheticExamples } from "../../src/data/synthetic.ts";
import { runExperiment } from "../../bench/repro/repro.ts";
import { loadTrainTest } from "../../bench/repro/harness.ts";
import { Progress } from "../../src/progress/mod.ts";
import { plantedData } from "../models/estimator_checks.ts";
import { reproContext, TINY_CURVE_FLAGS } from "./repro_context.ts";

/** `numRows` planted rows (8 labels, seed `seed`) in XC text format. */
function plantedText(numRows: number, seed: number): string {
  const data = plantedData(numRows, 8, seed);
  const lines = [`${data.rows.length} ${data.numFeatures} ${data.numLabels}`];
  for (const r of data.rows) {
    const feats = Array.from(r.x.indices, (j, e) => `${j}:${r.x.values[e].toFixed(4)}`);
    lines.push(`${Array.from(r.labels).join(",")} ${feats.join(" ")}`);
  }
  return lines.join("\n") + "\n";
}

/** A folder with `toy.train.txt` and `toy.test.txt` (planted rows). */
async function trainTestFolder(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_repro_" });
  await Deno.writeTextFile(`${dir}/toy.train.txt`, plantedText(150, 3));
  await Deno.writeTextFile(`${dir}/toy.test.txt`, plantedText(40, 4));
  return dir;
}

/** The error `p` rejects with (undefined when it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  return undefined;
}

Deno.test("repro pop --plot naming a data file is refused before the run; the file is kept", async () => {
  const dir = await trainTestFolder();
  try {
    for (const split of ["test", "train"]) {
      const path = `${dir}/toy.${split}.txt`;
      const before = await Deno.readTextFile(path);
      const e = await rejection(pop(reproContext(dir, { plot: path })));
      assert(await Deno.readTextFile(path) === before, `the ${split} file was replaced`);
      assert(e instanceof TypeError, `--plot ${split} file: ${e}`);
      assert(e.message.startsWith(`--plot ${path}`), e.message);
    }
    const e = await rejection(pop(reproContext(dir, { plot: `${dir}/no/such/dir/p.svg` })));
    assert(e instanceof TypeError && e.message.startsWith("--plot "), `${e}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro sleec-curve --out/--plot naming a data file is refused before the run", async () => {
  const dir = await trainTestFolder();
  try {
    const train = `${dir}/toy.train.txt`, before = await Deno.readTextFile(train);
    for (const flag of ["out", "plot"]) {
      const e = await rejection(
        sleecCurve(reproContext(dir, { ...TINY_CURVE_FLAGS, [flag]: train })),
      );
      assert(
        await Deno.readTextFile(train) === before,
        `--${flag}: the training file was replaced`,
      );
      assert(e instanceof TypeError && e.message.startsWith(`--${flag} ${train}`), `${e}`);
    }
    const same = `${dir}/m.tsm`;
    const e = await rejection(
      sleecCurve(reproContext(dir, { ...TINY_CURVE_FLAGS, out: same, plot: same })),
    );
    assert(e instanceof TypeError && e.message.includes("--plot and --out"), `${e}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A training-only folder of dense synthetic rows for coembed-ablation (it reads no test file). */
async function denseTrainFolder(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_coembed_" });
  await Deno.writeTextFile(`${dir}/toy.train.txt`, plantedText(60, 5));
  return dir;
}

Deno.test("repro coembed-ablation runs a repeated variant once, pairs its gains by repeat", async () => {
  const dir = await denseTrainFolder();
  const log = console.log;
  console.log = () => {};
  try {
    const res = await coembedAblation(reproContext(dir, {
      taus: "0.5",
      repeats: "2",
      epochs: "2",
      variants: "reference,alpha0.5,alpha0.5",
    }));
    const rows = res.extra!.rows as Record<string, unknown>[];
    assertEquals(rows.map((r) => r.variant).join(), "reference,alpha0.5");
    for (const row of rows) {
      const per = row.perRepeat as number[], base = row.baselinePerRepeat as number[];
      assertEquals(per.length, 2, `${row.variant}: perRepeat of ${per.length} values`);
      const gain = (per[0] - base[0] + per[1] - base[1]) / 2;
      assert(
        Math.abs(gain - (row.gainOverBaseline as number)) < 1e-12,
        `${row.variant}: gain over baseline ${row.gainOverBaseline}, paired ${gain}`,
      );
    }
  } finally {
    console.log = log;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro coembed-ablation refuses inherited names and --extra entries that are not variants", async () => {
  const dir = await denseTrainFolder();
  const log = console.log;
  console.log = () => {};
  try {
    const base = { taus: "0.5", repeats: "1", epochs: "1" };
    const e1 = await rejection(
      coembedAblation(reproContext(dir, { ...base, variants: "reference,toString" })),
    );
    assert(e1 instanceof RangeError && e1.message.includes("unknown variant toString"), `${e1}`);
    for (
      const extra of ['{"x": 5}', '{"x": [1]}', '{"x": {"what": "a", "confg": {"alpha": 0.5}}}']
    ) {
      const e = await rejection(
        coembedAblation(reproContext(dir, { ...base, variants: "reference", extra })),
      );
      assert(e instanceof TypeError && e.message.includes("--extra variant x"), `${extra}: ${e}`);
    }
  } finally {
    console.log = log;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro leml refuses a flag its protocol does not read, naming it", async () => {
  const dir = await trainTestFolder();
  try {
    const fixed = { iterations: "1", cg: "2", l2: "true", lambda: "1" };
    const cases: [Record<string, string>, string][] = [
      [{ ...fixed, rank: "2", fractions: "0.5" }, "--fractions"],
      [{ ...fixed, rank: "2", "mm-steps": "1" }, "--mm-steps"],
      [{ ...fixed, rank: "2", loss: "squared", fractions: "0.5", "mm-steps": "1" }, "--mm-steps"],
      [{ ...fixed, loss: "logistic", rank: "2", fractions: "0.5", "mm-steps": "1" }, "--rank"],
    ];
    for (const [flags, name] of cases) {
      const e = await rejection(leml(reproContext(dir, flags)));
      assert(
        e instanceof TypeError && e.message.startsWith(`leml: ${name} does not apply`),
        `${JSON.stringify(flags)}: ${e}`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** `rows` rows of the synthetic generator (300 features, 30 labels) in XC text format. */
function syntheticText(rows: number, seed: number): string {
  const lines = [`${rows} 300 30`];
  for (const ex of syntheticExamples({ rows, seed, numFeatures: 300, numLabels: 30 })) {
    const feats = Array.from(ex.x.indices, (j, p) => `${j}:${ex.x.values[p].toFixed(4)}`);
    lines.push(`${Array.from(ex.labels).join(",")} ${feats.join(" ")}`);
  }
  return lines.join("\n") + "\n";
}

Deno.test("repro ova --replayRatio without --replay: the replay candidate uses that ratio", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_ova_" });
  try {
    // more than one minibatch of 1024 fit rows: replay changes the model
    await Deno.writeTextFile(`${dir}/toy.train.txt`, syntheticText(2600, 1));
    await Deno.writeTextFile(`${dir}/toy.test.txt`, syntheticText(100, 2));
    const run = (replayRatio: string) => ova(reproContext(dir, { replayRatio }));
    const [one, three] = [(await run("1")).extra!, (await run("3")).extra!];
    assertEquals(three.replayRatio, 3, `chose replay ${three.replay}`);
    const v1 = one.validation as Record<string, number>;
    const v3 = three.validation as Record<string, number>;
    assertEquals(v3["replay=0"], v1["replay=0"], "the candidate without replay");
    assert(v3["replay=10000"] !== v1["replay=10000"], "the replay candidate ignored --replayRatio");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro split-check without a test file is refused before the run, naming --dataset", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_split_" });
  try {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, plantedText(60, 3));
    const args = { name: "split-check", dataset: "toy", dataDir: dir, seed: 0, flags: {} };
    const e = await rejection(runExperiment(args, Progress.silent()));
    assert(
      e instanceof TypeError &&
        e.message.startsWith(`--dataset toy: ${dir}/toy.test.txt does not exist`),
      `${e}`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadTrainTest refuses a labels file that does not name each label once", async () => {
  const dir = await trainTestFolder();
  try {
    const file = `${dir}/toy.labels.txt`;
    for (const names of [["a", "b", "c"], ["a", "b", "c", "d", "e", "f", "g", "a"]]) {
      await Deno.writeTextFile(file, names.join("\n") + "\n");
      const e = await rejection(loadTrainTest(reproContext(dir, {})));
      assert(e instanceof Error && e.message.startsWith(file), `${names}: ${e}`);
    }
    await Deno.writeTextFile(file, "abcdefgh".split("").join("\n") + "\n");
    const { labelNames } = await loadTrainTest(reproContext(dir, {}));
    assertEquals(labelNames.join(""), "abcdefgh");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro leml --loss logistic: λ at the smallest k/L, metrics of the largest, in any order", async () => {
  const dir = await trainTestFolder();
  try {
    const flags = { loss: "logistic", iterations: "1", "mm-steps": "1", cg: "2" };
    const r = await leml(reproContext(dir, { ...flags, fractions: "0.75,0.25,0.75" }));
    const extra = r.extra!;
    const table = extra.table2 as Record<string, { rank: number; "P@1": number }>;
    assertEquals(Object.keys(table).join(), "k/L=0.25,k/L=0.75");
    assertEquals(extra.rank, 6, "rank of k/L = 0.75 of 8 labels");
    assertEquals(r.metrics["P@1"], table["k/L=0.75"]["P@1"], "metrics of the largest k/L");
    const keys = Object.keys(extra.validation as object);
    assert(keys.length === 3 && keys.every((k) => k.includes(",k=2,")), `λ chosen at ${keys}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro leml-stream refuses a fractional --rank, --batch, --replay-steps or --replay, naming it", async () => {
  const dir = await trainTestFolder();
  try {
    for (const name of ["rank", "batch", "replay-steps", "replay"]) {
      const e = await rejection(lemlStream(reproContext(dir, { [name]: "2.5" })));
      assert(
        e instanceof TypeError && e.message.startsWith(`leml-stream: --${name} must be`),
        `--${name} 2.5: ${e}`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro sleec-curve refuses an --edge-bytes that no file fits", async () => {
  const dir = await trainTestFolder();
  try {
    for (const v of ["0", "-5", "1.5"]) {
      const e = await rejection(
        sleecCurve(reproContext(dir, { ...TINY_CURVE_FLAGS, "edge-bytes": v })),
      );
      assert(
        e instanceof TypeError && e.message.startsWith("sleec-curve: --edge-bytes"),
        `${v}: ${e}`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro sleec-curve checks --members before training the ensemble", async () => {
  const dir = await trainTestFolder();
  try {
    for (const members of ["bogus", "pca:0.5,pca:x", "sleec:1"]) {
      const ctx = reproContext(dir, { ...TINY_CURVE_FLAGS, members });
      const labels: string[] = [];
      ctx.progress.addEventListener("progress", (e) => {
        labels.push((e as CustomEvent<{ label: string }>).detail.label);
      });
      const e = await rejection(sleecCurve(ctx));
      assert(e instanceof TypeError && /^sleec-curve: (unknown )?member '/.test(e.message), `${e}`);
      assert(!labels.some((l) => l.startsWith("train")), `trained first: ${labels}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro ova: a setting's word outside its values is refused listing them, not as a number", async () => {
  const dir = await trainTestFolder();
  try {
    const e = await rejection(ova(reproContext(dir, { loss: "Logistic" })));
    assert(e instanceof Error && /loss must be one of .*logistic/.test(e.message), `${e}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro sleec and sleec-curve: a bare --weighted is true", async () => {
  const dir = await trainTestFolder();
  try {
    const fixed = { k: "5", neighbours: "10", clusters: "1", rank: "6" };
    const a = await sleec({ ...reproContext(dir, fixed), flags: { ...fixed, weighted: true } });
    assertEquals(a.extra!.weighted, true);
    const flags = { ...TINY_CURVE_FLAGS, weighted: true };
    const b = await sleecCurve({ ...reproContext(dir, {}), flags });
    assertEquals(b.extra!.weighted, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro coembed refuses a bare --input", async () => {
  const dir = await trainTestFolder();
  try {
    const flags = {
      input: true,
      repeats: "1",
      epochs: "1",
      "no-stream": true,
      "no-transductive": true,
      "no-baseline": true,
    };
    const e = await rejection(coembed({ ...reproContext(dir, {}), flags }));
    assert(e instanceof TypeError && e.message.includes("--input needs a value"), `${e}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro leml refuses a fractional --cg, naming it", async () => {
  const dir = await trainTestFolder();
  try {
    const flags = { iterations: "1", cg: "1.5", l2: "true", lambda: "1", rank: "2" };
    const e = await rejection(leml(reproContext(dir, flags)));
    assert(e instanceof TypeError && e.message.startsWith("leml: --iterations and --cg"), `${e}`);
    assert(e.message.endsWith("got 1 and 1.5"), e.message);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro leml-missing refuses a fractional --iterations, naming it", async () => {
  const dir = await trainTestFolder();
  try {
    const e = await rejection(lemlMissing(reproContext(dir, { iterations: "2.5" })));
    assert(e instanceof TypeError && e.message.includes("--iterations an integer"), `${e}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
