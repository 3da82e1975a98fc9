// `deno task scale` end to end at tiny sizes (subprocesses): one JSON line per (learner, source)
// with the measured fields, the learning budget, the RSS watchdog, the dataset mode, the pruned export within a byte budget, the
// service's snapshot/checkpoint/publish costs, and a summary line. No timing asserts.
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

/** The `service` record: every step timed (ms ≥ 0) and every file or state non-empty. */
function checkService(line: Record<string, unknown>, reps: number, from: string): void {
  const s = line.service as Record<string, unknown>;
  assert(s !== undefined && s.error === undefined, `service: ${JSON.stringify(s)}`);
  assert(s.repetitions === reps && s.snapshotFrom === from, `service ${JSON.stringify(s)}`);
  for (
    const k of [
      "snapshotMs",
      "replicaRestoreMs",
      "checkpointMs",
      "checkpointStateMs",
      "checkpointEncodeMs",
      "checkpointWriteMs",
      "publishMs",
      "publishBuildMs",
      "publishWriteMs",
    ]
  ) {
    assert(num(s[k], k) >= 0, `${k} = ${s[k]} >= 0`);
  }
  for (const k of ["snapshotBytes", "checkpointBytes", "checkpointStateBytes", "publishBytes"]) {
    assert(num(s[k], k) > 0, `${k} = ${s[k]} > 0`);
  }
  // the checkpoint holds the full state (and more); the replica only what prediction needs
  assert(
    (s.checkpointBytes as number) >= (s.checkpointStateBytes as number) &&
      (s.checkpointStateBytes as number) >= (s.snapshotBytes as number),
    `checkpoint ${s.checkpointBytes} >= state ${s.checkpointStateBytes} >= snapshot ${s.snapshotBytes}`,
  );
}

Deno.test("scale: synthetic L=200 with leml gives every field", async () => {
  const lines = await runScale([
    "--sizes",
    "200",
    "--rows",
    "500",
    "--test-rows",
    "200",
    "--learners",
    "leml",
  ]);
  assert(lines.length === 2, `one result and a summary, got ${lines.length}`);
  const [leml, summary] = lines;
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
  assert(leml.pruned === undefined, "no pruned export for a model without toLabelWeights()");
  checkService(leml, 3, "toReplicaState");

  // (an unknown learner is refused before any worker starts: tests/bench/bench_args_test.ts)
  assert(summary.runs === 1 && summary.finished === 1, `summary ${JSON.stringify(summary)}`);
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

Deno.test("scale: ova's pruned export fits the byte budget and is compared on the same rows; the service's costs", async () => {
  const maxBytes = 200_000;
  const lines = await runScale([
    "--sizes",
    "200",
    "--rows",
    "500",
    "--test-rows",
    "200",
    "--learners",
    "ova",
    "--skip-f16",
    "--prune-max-bytes",
    String(maxBytes),
    "--prune-eval-rows",
    "150",
    "--service-reps",
    "2",
  ]);
  assert(lines.length === 2, "one result and the summary");
  const [r, summary] = lines;
  assert(r.learner === "ova" && r.finished === true, `finished: ${r.reason}`);
  const p = r.pruned as Record<string, unknown>;
  assert(p !== undefined && p.error === undefined, `pruned: ${JSON.stringify(p)}`);
  const bytes = num(p.bytes, "pruned.bytes"), unpruned = num(p.unprunedBytes, "unprunedBytes");
  assert(p.maxBytes === maxBytes && p.needed === true, `the unpruned ${unpruned} B is over budget`);
  assert(p.withinBudget === true && bytes > 0 && bytes <= maxBytes, `${bytes} B <= ${maxBytes} B`);
  assert(bytes <= unpruned, `pruned ${bytes} B <= unpruned ${unpruned} B`);
  const kept = num(p.weights, "weights"), before = num(p.weightsBefore, "weightsBefore");
  assert(kept > 0 && kept < before, `weights pruned: ${kept} of ${before}`);
  assert(num(p.lambda, "lambda") > 0 && p.delta === 1, `lambda ${p.lambda}, delta ${p.delta}`);
  assert(kept >= num(r.labelsSeen, "labelsSeen"), "at least delta = 1 weight per label seen");
  assert(p.weightType === "f16" && p.indexType === "u16", "f16 weights, u16 label indices");
  assert(p.evalRows === 150 && p.evalRowsCap === 150, `rows capped: ${p.evalRows}`);
  for (const which of ["metrics", "unprunedMetrics"]) {
    const m = p[which] as Record<string, number>;
    for (const k of METRICS) assert(num(m[k], k) >= 0 && m[k] <= 100, `${which} ${k} = ${m[k]}`);
  }
  const u5 = (p.unprunedMetrics as Record<string, number>)["PSP@5"];
  const p5 = (p.metrics as Record<string, number>)["PSP@5"];
  const loss = num(p.relativePsp5Loss, "relativePsp5Loss");
  assert(u5 > 0 && Math.abs(loss - (1 - p5 / u5)) < 1e-3, `loss ${loss} = 1 - ${p5}/${u5}`);
  assert(p.withinOnePercent === (loss <= 0.01), "withinOnePercent agrees with the loss");
  checkService(r, 2, "toReplicaState");
  const peaks = r.phasePeakRssMB as Record<string, number>;
  assert(
    num(peaks.learn, "learn peak") <= num(peaks.prune, "prune peak") &&
      peaks.prune <= num(peaks.service, "service peak") && peaks.service <= (r.peakRssMB as number),
    `peak RSS only grows through the phases: ${JSON.stringify(peaks)}, ${r.peakRssMB}`,
  );
  // the published file is the unpruned one with the same label names as the compared file
  assert((r.service as Record<string, unknown>).publishBytes as number >= unpruned - 64, "publish");
  const s = (summary.results as Record<string, unknown>[])[0];
  assert(s.prunedBytes === bytes && s.relativePsp5Loss === loss, "summary has the pruned figures");
});
