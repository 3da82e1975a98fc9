// `deno task prune` end to end (a subprocess on a tiny planted dataset): training BR itself,
// pruning BR and LEML model files, the SVG curve, storage flags, and clear errors.
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { trainBr } from "../../src/models/br/mod.ts";
import { LemlBatch } from "../../src/models/leml/mod.ts";
import { labelWeightsOfContent } from "../../src/prune/model_weights.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert, lastJson, runDenoScript, type RunResult, tempDirWith } from "./helpers.ts";

const PRUNE = new URL("../../src/cli/prune.ts", import.meta.url).pathname;

const runPrune = (args: string[]): Promise<RunResult> =>
  runDenoScript(PRUNE, ["--allow-read", "--allow-write", "--allow-env"], args);

const DATA = plantedData(360, 8, 21);

/** Writes rows [from, to) of the planted data as an XC text file. */
function xcText(from: number, to: number): string {
  const lines = [`${to - from} ${DATA.numFeatures} ${DATA.numLabels}`];
  for (const r of DATA.rows.slice(from, to)) {
    const feats = [...r.x.indices].map((j, p) => `${j}:${r.x.values[p]}`).join(" ");
    lines.push(`${[...r.labels].join(",")} ${feats}`);
  }
  return lines.join("\n") + "\n";
}

function tinyDir(): Promise<string> {
  const names = Array.from({ length: DATA.numLabels }, (_, l) => `tag_${l}`);
  return tempDirWith("tagstream_prune_", {
    "tiny.train.txt": xcText(0, 280),
    "tiny.test.txt": xcText(280, 360),
    "tiny.labels.txt": names.join("\n") + "\n",
  });
}

Deno.test("prune --train br writes the pruned model, the SVG curve and the summary", async () => {
  const dir = await tinyDir();
  try {
    const out = `${dir}/tiny.br.pop.tsm`;
    const r = await runPrune([
      "--dataset",
      "tiny",
      "--data-dir",
      dir,
      "--train",
      "br",
      "--delta",
      "2",
      "--epsilons",
      "0,0.05,0.3",
      "--lambdas",
      "0,0.01,0.1",
      "--test",
      "--out",
      out,
    ]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    const s = lastJson(r.stdout);
    const bytes = await Deno.readFile(out);
    assert(s.out === out && s.modelBytes === bytes.length, "summary names the written file");
    const file = decodeModelFile(bytes);
    assert(file.kind === "linear-sparse" && file.labelNames?.[3] === "tag_3", "kind and names");
    assert(
      file.tensors.weights.dtype === "f16" && file.tensors.labelIdx.dtype === "u16",
      "storage",
    );
    const w = labelWeightsOfContent(file);
    assert(w.labelPtr[8] === s.nnzAfter && (s.nnzAfter as number) < (s.nnzBefore as number), "nnz");
    for (let l = 0; l < 8; l++) assert(w.labelPtr[l + 1] - w.labelPtr[l] >= 2, `label ${l} < δ`);
    assert((s.prunedBytes as number) < (s.originalBytes as number), "smaller than unpruned BR");
    const test = s.testPruned as number[], base = s.testBaseline as number[];
    assert(test.length === 3 && base.length === 3 && test[0] > 50, `test PSP ${test} / ${base}`);
    const svg = await Deno.readTextFile(`${dir}/tiny.br.pop.svg`);
    assert(s.plot === `${dir}/tiny.br.pop.svg`, `plot ${s.plot}`);
    assert((svg.match(/<polyline/g) ?? []).length === 7, "6 PSP lines + the reference");
    assert((svg.match(/<title>input PSP@\d<\/title>/g) ?? []).length === 3, "unpruned PSP@1/3/5");
    assert((s.curve as unknown[]).length === 6, "3 ε + 3 λ points");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prune --model prunes a BR file and keeps or replaces a LEML file", async () => {
  const dir = await tinyDir();
  try {
    const b = makeBatch(DATA.rows.slice(0, 280), DATA.numFeatures, DATA.numLabels);
    const br = trainBr(b.x, b.y, {}, { l2Normalize: true });
    await Deno.writeFile(`${dir}/br.tsm`, br.toModelFile());
    let r = await runPrune([
      "--dataset=tiny",
      `--data-dir=${dir}`,
      `--model=${dir}/br.tsm`,
      "--no-plot",
      "--weights=f32",
      "--index=i32",
      "--lambda=0.05",
    ]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    let s = lastJson(r.stdout);
    assert(s.pruned === true && s.sourceKind === "linear-sparse" && s.plot === null, "summary");
    const file = decodeModelFile(await Deno.readFile(`${dir}/br.pop.tsm`));
    assert(file.tensors.weights.dtype === "f32" && file.tensors.labelIdx.dtype === "i32", "flags");
    assert(file.preprocess?.l2Normalize === true, "preprocessing carried over");
    let svgExists = true;
    await Deno.stat(`${dir}/br.pop.svg`).catch(() => (svgExists = false));
    assert(!svgExists, "--no-plot still wrote a plot");

    const leml = LemlBatch.fit(b.x, b.y, { rank: 4, iterations: 3, seed: 1, l2Normalize: true });
    const input = leml.toModelFile();
    await Deno.writeFile(`${dir}/leml.tsm`, input);
    r = await runPrune(["--dataset", "tiny", "--data-dir", dir, "--model", `${dir}/leml.tsm`]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    s = lastJson(r.stdout);
    assert(s.sourceKind === "linear-lowrank" && typeof s.reason === "string", "summary");
    const within = s.withinTolerance as boolean;
    const smaller = (s.prunedBytes as number) < (s.originalBytes as number);
    assert(s.pruned === (smaller && within), `decision ${s.pruned} (${s.reason})`);
    if (s.pruned) {
      const written = await Deno.readFile(`${dir}/leml.pop.tsm`);
      assert(decodeModelFile(written).kind === "linear-sparse", "replaced");
    } else {
      // not pruned: no copy of the input is written, and the run says so
      const exists = await Deno.stat(`${dir}/leml.pop.tsm`).then(() => true, () => false);
      assert(!exists && s.out === null && s.modelBytes === null, "kept: no .pop.tsm written");
      assert(/prune: POP cannot help .*Nothing written/.test(r.stderr), `stderr: ${r.stderr}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prune reports bad input clearly with exit code 2", async () => {
  const dir = await tinyDir();
  try {
    await Deno.writeFile(`${dir}/junk.tsm`, new TextEncoder().encode("not a model file at all"));
    const knn = encodeModelFile({
      kind: "knn-embedding",
      numFeatures: DATA.numFeatures,
      numLabels: DATA.numLabels,
      params: {},
      tensors: {},
    });
    await Deno.writeFile(`${dir}/knn.tsm`, knn);
    const base = ["--dataset", "tiny", "--data-dir", dir];
    const cases: [string[], RegExp][] = [
      [["--train", "br"], /--dataset is required/],
      [[...base], /exactly one of --model FILE and --train br/],
      [[...base, "--train", "br", "--model", "x.tsm"], /exactly one of/],
      [[...base, "--train", "leml"], /--train must be one of br/],
      [[...base, "--train", "br", "--epsilon", "2"], /--epsilon must be in \[0, 1\)/],
      [[...base, "--train", "br", "--ks", "1,x"], /--ks must be a comma-separated list/],
      [[...base, "--model", `${dir}/none.tsm`], /--model .*none\.tsm: no such file/],
      [[...base, "--model", `${dir}/junk.tsm`], /Cannot read model file .*junk\.tsm \(bad-magic\)/],
      [[...base, "--model", `${dir}/knn.tsm`], /POP prunes linear models .* knn-embedding/],
      [["--dataset", "nope", "--data-dir", dir, "--train", "br"], /nope\.train\.txt/],
    ];
    for (const [args, re] of cases) {
      const r = await runPrune(args);
      assert(r.code !== 0, `${args.join(" ")}: exit 0`);
      assert(re.test(r.stderr), `${args.join(" ")}: stderr "${r.stderr.trim()}"`);
      if (!/nope/.test(args.join(" "))) assert(r.code === 2, `${args.join(" ")}: exit ${r.code}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
