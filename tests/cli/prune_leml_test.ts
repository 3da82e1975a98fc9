// The LEML prune path of `deno task prune` (issue 17, part 4): when the pruned linear-sparse file
// would not be smaller than the low-rank one, the run says so and writes no `.pop.tsm`; the plot
// shows the input model's PSP@1/3/5 and a legend inside the SVG; a pruned model outside ε says why.
import { LemlBatch } from "../../src/models/leml/mod.ts";
import { trainBr } from "../../src/models/br/mod.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert, lastJson, runDenoScript, tempDirWith } from "./helpers.ts";

const PRUNE = new URL("../../src/cli/prune.ts", import.meta.url).pathname;
const DATA = plantedData(360, 8, 21);

function xcText(from: number, to: number): string {
  const lines = [`${to - from} ${DATA.numFeatures} ${DATA.numLabels}`];
  for (const r of DATA.rows.slice(from, to)) {
    const feats = [...r.x.indices].map((j, p) => `${j}:${r.x.values[p]}`).join(" ");
    lines.push(`${[...r.labels].join(",")} ${feats}`);
  }
  return lines.join("\n") + "\n";
}

/** Legend texts of an SVG: x, and the text (the ones right of the plot area). */
function legendTexts(svg: string): { x: number; text: string }[] {
  const plotRight = Number(
    svg.match(/<rect x="(\d+)" y="\d+" width="(\d+)"/)!.slice(1, 3)
      .reduce((a, b) => Number(a) + Number(b), 0),
  );
  return [...svg.matchAll(/<text x="([\d.]+)" y="[\d.]+" dominant-baseline="middle">([^<]*)</g)]
    .map((m) => ({ x: Number(m[1]), text: m[2] }))
    .filter((t) => t.x > plotRight);
}

Deno.test("prune of a LEML model that pruning cannot shrink writes nothing and says so", async () => {
  const dir = await tempDirWith("tagstream_prune_leml_", { "tiny.train.txt": xcText(0, 280) });
  try {
    const b = makeBatch(DATA.rows.slice(0, 280), DATA.numFeatures, DATA.numLabels);
    const leml = LemlBatch.fit(b.x, b.y, { rank: 2, iterations: 3, seed: 1, l2Normalize: true });
    await Deno.writeFile(`${dir}/leml.tsm`, leml.toModelFile());
    // λ = 0 and a large δ keep the dense product: 21 × 8 weights, more than (21 + 8) × 2
    const r = await runDenoScript(PRUNE, ["--allow-read", "--allow-write", "--allow-env"], [
      "--dataset=tiny",
      `--data-dir=${dir}`,
      `--model=${dir}/leml.tsm`,
      "--lambda=0",
      "--delta=21",
      "--weights=f32",
      "--index=i32",
      "--lambdas=0,0.01",
      "--epsilons=0,0.1",
    ]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    const s = lastJson(r.stdout);
    assert(s.pruned === false && (s.prunedBytes as number) >= (s.originalBytes as number), "size");
    assert(
      /not smaller than the linear-lowrank original .*pruning cannot help/.test(
        s.reason as string,
      ),
      `reason: ${s.reason}`,
    );
    assert(s.out === null && s.modelBytes === null, `summary out ${s.out}`);
    const exists = await Deno.stat(`${dir}/leml.pop.tsm`).then(() => true, () => false);
    assert(!exists, "a same-size leml.pop.tsm was written");
    // (besides the warning that the model is validated on a split of its training file)
    const msg = r.stderr.split("\n").filter((l) =>
      l.startsWith("prune: ") && !l.startsWith("prune: warning: ")
    );
    assert(
      msg.length === 1 && /cannot help.*Nothing written to .*leml\.pop\.tsm/.test(msg[0]),
      r.stderr,
    );

    // the plot: the input model's three PSP points on its size line, the legend inside the SVG
    const svg = await Deno.readTextFile(`${dir}/leml.pop.svg`);
    const base = s.validationBaseline as number[];
    const inputs = [...svg.matchAll(/<polygon [^>]*><title>input PSP@(\d)<\/title>/g)].map((m) =>
      m[1]
    );
    assert(inputs.join() === "1,3,5", `input points ${inputs} (baseline ${base})`);
    const [, w, h] = svg.match(/viewBox="0 0 (\d+) (\d+)"/)!.map(Number);
    assert(svg.includes(`width="${w}" height="${h}"`), "width/height match the viewBox");
    const legend = legendTexts(svg);
    assert(legend.some((t) => t.text === "input linear-lowrank"), JSON.stringify(legend));
    for (const t of legend) {
      // 7 px per character at font-size 12 (sans-serif averages about 6.5)
      assert(t.x + 7 * t.text.length <= w, `legend '${t.text}' at ${t.x} is cut off at ${w}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prune of BR outside ε (large λ) is pruned: true, withinTolerance: false, and says why", async () => {
  const dir = await tempDirWith("tagstream_prune_br_", { "tiny.train.txt": xcText(0, 280) });
  try {
    const b = makeBatch(DATA.rows.slice(0, 280), DATA.numFeatures, DATA.numLabels);
    await Deno.writeFile(
      `${dir}/br.tsm`,
      trainBr(b.x, b.y, {}, { l2Normalize: true }).toModelFile(),
    );
    const r = await runDenoScript(PRUNE, ["--allow-read", "--allow-write", "--allow-env"], [
      "--dataset=tiny",
      `--data-dir=${dir}`,
      `--model=${dir}/br.tsm`,
      "--lambda=0.9",
      "--delta=1",
      "--lambdas=0,0.9",
      "--epsilons=0",
    ]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    const s = lastJson(r.stdout);
    assert(
      s.pruned === true && s.withinTolerance === false,
      `pruned ${s.pruned} within ${s.withinTolerance}`,
    );
    assert(
      /withinTolerance is false: .*ε bounds only the label search/.test(s.reason as string),
      `${s.reason}`,
    );
    assert(/λ = 0 of the sweep/.test(s.reason as string), `no smaller λ named: ${s.reason}`);
    assert(/prune: .* not within ε/.test(r.stderr), r.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
