// `deno task scale` end to end at tiny sizes (subprocesses): one JSON line per (learner, source)
// with the measured fields, a per-learner error entry for an unknown learner, the learning
// budget, the RSS watchdog, the dataset mode, and a summary line. No timing asserts.
import { assert, lastJson, runDenoScript, tempDirWith } from "../cli/helpers.ts";

const SCALE = new URL("../../bench/scale.ts", import.meta.url).pathname;

async function runScale(args: string[]): Promise<Record<string, unknown>[]> {
  const r = await runDenoScript(SCALE, ["--allow-all"], [...args, "--quiet"]);
  assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  assert(lines.length >= 2, `at least one result and the summary: ${r.stdout}`);
  assert(lastJson(r.stdout).summary === true, "the last line is the summary");
  return lines;
}

const num = (v: unknown, what: string): number => {
  assert(typeof v === "number" && Number.isFinite(v), `${what} is a finite number: ${v}`);
  return v as number;
};

const METRICS = ["P@1", "P@3", "P@5", "PSP@1", "PSP@3", "PSP@5"];

Deno.test("scale: synthetic L=200 with leml gives every field; an unknown learner is an error entry", async () => {
  const lines = await runScale([
    "--sizes",
    "200",
    "--rows",
    "500",
    "--test-rows",
    "200",
    "--learners",
    "leml,no-such-learner",
  ]);
  assert(lines.length === 3, `two results and a summary, got ${lines.length}`);
  const [leml, unknown, summary] = lines;
  assert(leml.bench === "scale" && leml.learner === "leml" && leml.kind === "leml", "names");
  assert(leml.source === "synthetic" && leml.numLabels === 200, "source");
  assert(leml.finished === true && leml.reason === undefined, `finished: ${leml.reason}`);
  assert(leml.rowsPlanned === 500 && leml.rowsLearned === 500, "every row learned");
  assert(leml.testRows === 200 && leml.testRowsEvaluated === 200, "every held-out row evaluated");
  assert(num(leml.eventsPerSecond, "eventsPerSecond") > 0, "a rate");
  assert(num(leml.learnSeconds, "learnSeconds") > 0, "learning time");
  num(leml.learnCpuSeconds, "learnCpuSeconds");
  const base = num(leml.baselineRssMB, "baselineRssMB");
  const peak = num(leml.peakRssMB, "peakRssMB");
  assert(base > 0 && peak >= base, `peak ${peak} MiB >= baseline ${base} MiB`);
  const bytes = num(leml.modelBytes, "modelBytes");
  const f16 = num(leml.modelBytesF16, "modelBytesF16");
  assert(bytes > 0 && f16 > 0 && f16 < bytes, `f16 file ${f16} smaller than f32 file ${bytes}`);
  const m = leml.metrics as Record<string, number>;
  for (const k of METRICS) {
    assert(num(m[k], k) >= 0 && m[k] <= 100, `${k} = ${m[k]} in [0, 100]`);
  }
  // the planted structure is learned: far better than nothing (label 0 alone would get few)
  assert(m["P@1"] > 20, `P@1 ${m["P@1"]}`);
  assert(num(leml.labelsPerRow, "labelsPerRow") > 3, "about 5 labels per row");
  assert((leml.options as Record<string, unknown>).rank === 64, "default leml rank 64");

  assert(unknown.learner === "no-such-learner" && unknown.finished === false, "unknown learner");
  assert(String(unknown.reason).includes("Unknown model 'no-such-learner'"), `${unknown.reason}`);

  assert(summary.runs === 2 && summary.finished === 1, `summary ${JSON.stringify(summary)}`);
  assert((summary.rowsPerSize as Record<string, number>)["200"] === 500, "rows used are reported");
});

Deno.test("scale: the learning budget stops a long stream and the line says how far it got", async () => {
  const [r] = await runScale([
    "--sizes",
    "300",
    "--rows",
    "1000000",
    "--test-rows",
    "50",
    "--learners",
    "leml",
    "--options",
    "leml:rank=8",
    "--budget-seconds",
    "0.05",
    "--skip-f16",
  ]);
  assert(r.finished === false, "not finished");
  assert(String(r.reason).includes("budget"), `reason: ${r.reason}`);
  const learned = num(r.rowsLearned, "rowsLearned");
  assert(learned > 0 && learned < 1_000_000, `rows learned ${learned}`);
  assert(num(r.projectedSeconds, "projectedSeconds") > 0, "a projection");
  assert((r.options as Record<string, unknown>).rank === 8, "--options overrides the default");
  assert(r.modelBytesF16 === undefined, "--skip-f16");
  assert(r.metrics !== undefined, "the partial model is evaluated");
});

Deno.test("scale: a child over --max-rss-mb is killed and reported as not finished", async () => {
  const [r] = await runScale([
    "--sizes",
    "200",
    "--rows",
    "1000000",
    "--learners",
    "leml",
    "--budget-seconds",
    "30",
    "--max-rss-mb",
    "1",
  ]);
  assert(r.finished === false, "not finished");
  assert(String(r.reason).startsWith("killed: RSS"), `reason: ${r.reason}`);
  assert(num(r.peakRssMB, "peakRssMB") > 1, "the RSS the parent saw");
});

Deno.test("scale: --dataset learns the training file in order and evaluates on the test file", async () => {
  const dir = await tempDirWith("tagstream_scale_", {
    "tiny.train.txt": "4 3 3\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n",
    "tiny.test.txt": "2 3 3\n0 0:1\n2 2:1\n",
  });
  try {
    const lines = await runScale(["--dataset", "tiny", "--data-dir", dir, "--learners", "br"]);
    assert(lines.length === 2, "one result and the summary");
    const r = lines[0];
    assert(r.source === "dataset" && r.dataset === "tiny", "dataset named");
    assert(r.finished === true && r.rowsLearned === 4 && r.testRowsEvaluated === 2, "all rows");
    assert(r.numLabels === 3 && r.numFeatures === 3, "sizes from the header");
    num(r.cpuSeconds, "cpuSeconds");
    num(r.wallSeconds, "wallSeconds");
    const m = r.metrics as Record<string, number>;
    for (const k of METRICS) assert(m[k] >= 0 && m[k] <= 100, `${k} = ${m[k]}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
