// The benches' `...MB` memory figures and flags are MB (10⁶ bytes), as named: /proc's "kB" are
// KiB and Deno's `rss` is bytes. They used to be MiB (bytes / 2²⁰), 4.9% below the MB they
// claim, and `--max-rss-mb 1000` let a child reach 1,048 MB. A preload module fixes what the process
// reads (/proc/<pid>/status: VmRSS 1,000,000 kB = 1,024 MB, VmHWM 2,000,000 kB = 2,048 MB;
// `Deno.memoryUsage().rss` 5·10⁸ bytes = 500 MB) so the figures are known.
import { assert, assertEquals, runDenoScript, tempDirWith } from "../cli/helpers.ts";

const BENCH = new URL("../../bench/", import.meta.url).pathname;

const PRELOAD = `
const read = Deno.readTextFileSync;
Deno.readTextFileSync = (p) =>
  /^\\/proc\\/(self|\\d+)\\/status$/.test(String(p))
    ? "Name:\\tdeno\\nVmHWM:\\t 2000000 kB\\nVmRSS:\\t 1000000 kB\\n"
    : read(p);
const usage = Deno.memoryUsage;
Deno.memoryUsage = () => ({ ...usage(), rss: 5e8 });
`;

const TINY = {
  "tiny.train.txt": "4 3 3\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n",
  "tiny.test.txt": "2 3 3\n0 0:1\n2 2:1\n",
  "preload.js": PRELOAD,
};

Deno.test("leml_memory: rssMB and peakRssMB are MB", async () => {
  const dir = await tempDirWith("tagstream_rss_units_", TINY);
  try {
    const r = await runDenoScript(
      `${BENCH}leml_memory.ts`,
      ["--allow-all", "--preload", `${dir}/preload.js`],
      ["--rows", "512", "--replay", "0"],
    );
    assertEquals(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim());
    const c = out.checkpoints as { rssMB: number; peakRssMB: number }[];
    assert(c.length >= 2, `checkpoints: ${r.stdout}`);
    for (const p of c) assertEquals([p.rssMB, p.peakRssMB], [500, 2048], JSON.stringify(p));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("scale_worker: baselineRssMB, peakRssMB and the phases' peaks are MB", async () => {
  const dir = await tempDirWith("tagstream_rss_units_", TINY);
  try {
    const job = {
      learner: "popularity",
      options: {},
      source: { kind: "dataset", name: "tiny", dataDir: dir },
      batchSize: 256,
      seed: 0,
      budgetSeconds: 60,
      evalBudgetSeconds: 60,
      f16: false,
      serviceRepetitions: 0,
    };
    const r = await runDenoScript(
      `${BENCH}scale_worker.ts`,
      ["--allow-all", "--preload", `${dir}/preload.js`],
      [JSON.stringify(job)],
    );
    assertEquals(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    assert(result.type === "result" && result.finished === true, r.stdout);
    assertEquals(
      [result.baselineRssMB, result.peakRssMB, result.learnPeakRssMB],
      [1024, 2048, 2048],
    );
    assertEquals(result.phasePeakRssMB, { learn: 2048, modelFile: 2048, evaluate: 2048 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("scale: --max-rss-mb is MB: a child at 1,024 MB passes --max-rss-mb 1000", async () => {
  const dir = await tempDirWith("tagstream_rss_units_", TINY);
  try {
    // only the parent reads the fixed figures: it sees its child at 1,024 MB
    const r = await runDenoScript(
      `${BENCH}scale.ts`,
      ["--allow-all", "--preload", `${dir}/preload.js`],
      [
        "--sizes",
        "200",
        "--rows",
        "1000000",
        "--learners",
        "leml",
        "--budget-seconds",
        "30",
        "--max-rss-mb",
        "1000",
        "--quiet",
      ],
    );
    assertEquals(r.code, 0, r.stderr);
    const [run, summary] = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert(run.finished === false, `not finished: ${JSON.stringify(run)}`);
    assertEquals(run.reason, "killed: RSS 1024 MB passed --max-rss-mb 1000");
    assertEquals(run.peakRssMB, 1024);
    assertEquals(summary.maxRssMB, 1000);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
