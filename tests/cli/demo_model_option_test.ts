// `deno task demo` could not set a model's settings (`tagstream train` has --option KEY=VALUE):
// it now takes the same repeatable --option, read as train reads it (modelOptionFlags, the seed
// given once), documented in its --help, and `--model NAME --help` lists the model's options.
import { runDemo } from "../../src/cli/demo.ts";
import { Progress } from "../../src/progress/mod.ts";
import { assert, assertEquals, lastJson, runDenoScript, type RunResult } from "./helpers.ts";

const DEMO = new URL("../../src/cli/demo.ts", import.meta.url).pathname;
const demo = (args: string[]): Promise<RunResult> =>
  runDenoScript(DEMO, ["--allow-read", "--allow-env", "--allow-write", "--allow-net"], args);

Deno.test("demo --option KEY=VALUE sets the model's settings, as runDemo's modelOptions do", async () => {
  const base = ["--rows", "400", "--model", "popularity"];
  const r = await demo([...base, "--option", "threshold=0"]);
  assert(r.code === 0, r.stderr);
  const metrics = lastJson(r.stdout).metrics as Record<string, number>;
  const expected = await runDemo({
    rows: 400,
    model: "popularity",
    modelOptions: { threshold: 0 },
    progress: Progress.silent(),
  });
  assertEquals(JSON.stringify(metrics), JSON.stringify(expected.metrics), "--option threshold=0");
  // and the option changed something: at the default threshold (0.5) no label is predicted
  const dflt = await runDemo({ rows: 400, model: "popularity", progress: Progress.silent() });
  assert(metrics.hamming !== dflt.metrics.hamming, `hamming ${metrics.hamming} both times`);
});

Deno.test("demo --option: a bad option is refused naming it, before any row is read", async () => {
  const cases: [string[], RegExp][] = [
    [["--option", "rnak=3"], /^demo: leml: unknown option "rnak" \(known: seed, .*rank/m],
    [
      ["--model", "knn", "--option", "k=0"],
      /knn: option k must be an integer in \[1, 1048576\], got "?0/,
    ],
    [["--option", "rank"], /--option must be key=value, got 'rank'/],
    [["--option", "rank=4", "--option", "rank=8"], /--option rank is given twice \('4' and '8'\)/],
    [["--seed", "2", "--option", "seed=3"], /--seed 2 and --option seed=3 disagree/],
    // the option reaches the model's limits, checked against the synthetic shape (200 labels)
    [["--option", "maxLabels=10"], /--labels 200 is above the leml model's maxLabels 10/],
  ];
  for (const [args, expected] of cases) {
    const r = await demo(["--rows", "200", ...args]);
    assert(r.code !== 0 && expected.test(r.stderr), `${args.join(" ")}: ${r.code} ${r.stderr}`);
    assert(!r.stdout.includes('"prequentialP1"'), `${args.join(" ")} ran: ${r.stdout}`);
  }
});

Deno.test("demo --help documents --option; with --model NAME it lists the model's options", async () => {
  const plain = await demo(["--help"]);
  assert(plain.code === 0, plain.stderr);
  assert(/^\s*--option KEY=VALUE\s+model option, repeatable/m.test(plain.stdout), plain.stdout);
  const knn = await demo(["--model", "knn", "--help"]);
  assert(knn.code === 0, knn.stderr);
  assert(knn.stdout.startsWith(plain.stdout.trimEnd()), knn.stdout);
  assert(knn.stdout.includes("Options of --model knn (--option KEY=VALUE):"), knn.stdout);
  assert(/^\s+k\s+an integer in \[1, 1048576\]; default 10\./m.test(knn.stdout), knn.stdout);
});
