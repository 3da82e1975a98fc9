/**
 * Argument handling of the benchmark tasks of deno.json (`deno task bench`, `scale`, `chaos`,
 * `sdk-scale`, `knn-fast-exact`, `topk-fast-exact`, `text`; from an exploratory test): unknown
 * flags, positional arguments, missing values, numbers not in plain decimal (`0x10`) or out of
 * their limits (`1e30`, `0`, `-1`, `1.5`), empty values and entries (`1e3,,1e4`), flags the run
 * would ignore, missing data directories and datasets, and output paths that cannot be written
 * are refused before any work, with one line naming the flag and exit code 2; `--help` prints
 * the usage. Every refusal comes before the data is read, so no case does any work.
 */
import { countFlag, type Flags, listFlag, parseFlags } from "../../src/cli/commands/args.ts";
import { benchOptions, type BenchScript } from "../../bench/args.ts";
import { PARSE_BENCH } from "../../bench/parse_bench.ts";
import { SCALE } from "../../bench/scale.ts";
import { CHAOS } from "../../bench/service_chaos.ts";
import { SDK_SCALE } from "../../bench/sdk_scale.ts";
import { KNN_FAST_EXACT } from "../../bench/knn_fast_exact.ts";
import { TOPK_FAST_EXACT } from "../../bench/topk_fast_exact.ts";
import { TEXT } from "../../bench/text.ts";
import { SERVICE_LOAD } from "../../bench/service_load.ts";
import { SERVICE_CRASH } from "../../bench/service_crash.ts";
import { SERVICE_BAD_INPUT } from "../../bench/service_bad_input.ts";
import { SERVICE_STAGES } from "../../bench/service_stages.ts";
import { LEML_MEMORY } from "../../bench/leml_memory.ts";
import { COEMBED_SPEED } from "../../bench/coembed_speed.ts";
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { assert, assertEquals, runDenoScript, tempDirWith } from "../cli/helpers.ts";
import { assertRefusedEndToEnd, benchScript } from "./script_refusals.ts";

const TRAIN = "4 3 4\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n";
const TEST = "3 3 4\n0 0:1\n1,2 2:1\n 2:1\n";

/** A temporary directory with the XC dataset `tiny` and the training file of `trainonly`. */
function dataDir(): Promise<string> {
  return tempDirWith("tagstream_bench_args_", {
    "tiny.train.txt": TRAIN,
    "tiny.test.txt": TEST,
    "trainonly.train.txt": TRAIN,
    "afile.txt": "x",
  });
}

/** Asserts that `script` refuses each `args` with a TypeError or RangeError matching its pattern. */
async function refuses<T>(
  script: BenchScript<T>,
  cases: readonly (readonly [string[], RegExp])[],
): Promise<void> {
  for (const [args, re] of cases) {
    const what = `${script.task} ${args.join(" ")}`;
    let message: string;
    try {
      await benchOptions(script, args);
      message = "accepted";
    } catch (e) {
      message = e instanceof TypeError || e instanceof RangeError
        ? e.message
        : `${(e as Error).constructor.name}: ${(e as Error).message}`;
    }
    assert(re.test(message), `${what}: ${re} not in: ${message}`);
  }
}

Deno.test("bench args: parseFlags with a program name gives one line pointing to its --help", () => {
  const bad: [string[], RegExp][] = [
    [["--nope"], /^unknown option '--nope' \(see deno task toy --help\)$/],
    [["x"], /^unexpected argument 'x' \(toy takes no positional arguments; see deno task toy/],
    [["--n"], /^--n needs a value$/],
    // parseArgs' three-line "argument is ambiguous"
    [["--n", "--q"], /^--n needs a value \(one starting with '-' is written --n=VALUE\)$/],
  ];
  for (const [args, re] of bad) {
    let message = "";
    try {
      parseFlags("toy", args, { n: "string", q: "boolean" }, {
        maxPositionals: 0,
        program: "deno task toy",
      });
    } catch (e) {
      message = (e as Error).message;
    }
    assert(re.test(message), `${args.join(" ")}: ${re} not in: ${message}`);
  }
  // the CLI's messages keep their prefix
  let cli = "";
  try {
    parseFlags("train", ["--out", "--seed", "1"], { out: "string", seed: "string" });
  } catch (e) {
    cli = (e as Error).message;
  }
  assertEquals(
    cli,
    "tagstream train: --out needs a value (one starting with '-' is written --out=VALUE)",
  );
  const neg = parseFlags("toy", ["--n", "-1"], { n: "string" }, { program: "deno task toy" });
  assertEquals(neg.values.n, "-1");
});

Deno.test("bench args: counts take 1e3 but not 0x10; lists refuse empty entries", () => {
  const f = (v: string): Flags => ({ values: { n: v }, positionals: [] });
  assertEquals(countFlag(f("1e3"), "n", 0, 1, 1e6), 1000);
  assertEquals(countFlag(f("2.5e3"), "n", 0, 1, 1e6), 2500);
  for (const v of ["0x10", "1.5", "", " 5", "1e30", "NaN", "Infinity", "0", "-1"]) {
    let message = "";
    try {
      countFlag(f(v), "n", 0, 1, 1e6);
    } catch (e) {
      message = (e as Error).message;
    }
    assertEquals(message, `--n must be an integer in [1, 1000000], got '${v}'`);
  }
  const read = (g: Flags, n: string) => countFlag(g, n, 0, 1, 1e6)!;
  assertEquals(listFlag(f("1e3, 1e4"), "n", [], read), [1000, 10000]);
  for (
    const [v, re] of [
      ["1e3,,1e4", /^--n has an empty entry: '1e3,,1e4'$/],
      ["1e3,", /^--n has an empty entry/],
      ["", /^--n is empty/],
      ["1e3,0x10", /^--n must be an integer in \[1, 1000000\], got '0x10'$/],
    ] as const
  ) {
    let message = "";
    try {
      listFlag(f(v), "n", [], read);
    } catch (e) {
      message = (e as Error).message;
    }
    assert(re.test(message), `${v}: ${re} not in: ${message}`);
  }
});

Deno.test("bench args: deno task bench checks its counts, --keep and --data-dir first", async () => {
  const dir = await dataDir();
  try {
    const d = ["--data-dir", dir];
    await refuses(PARSE_BENCH, [
      [[...d, "--repeat", "0x10"], /^--repeat must be an integer in \[1, 100\], got '0x10'$/],
      [[...d, "--repeat", "1e30"], /--repeat must be an integer in \[1, 100\]/],
      [[...d, "--repeat", "-1"], /--repeat must be an integer in \[1, 100\], got '-1'/],
      [[...d, "--size-mb", "1e30"], /^--size-mb must be a number in \[0\.001, 4096\]/],
      [[...d, "--size-mb", "NaN"], /--size-mb must be a number/],
      [[...d, "--size-mb", "0x10"], /--size-mb must be a number/],
      // NaN skipped the NDJSON reader without a word
      [[...d, "--ndjson-mb", "abc"], /^--ndjson-mb must be a number in \[0, 500\], got 'abc'$/],
      [[...d, "--ndjson-mb", "1e30"], /--ndjson-mb must be a number in \[0, 500\]/],
      [["--data-dir", `${dir}/none`], /^--data-dir .*none: no such directory$/],
      [["--data-dir", `${dir}/afile.txt`], /afile\.txt is not a directory/],
      [["--data-dir", ""], /^--data-dir is empty/],
      // the generated file was measured after every data file, then could not be written
      [[...d, "--keep", `${dir}/none/kept.txt`], /^--keep .*kept\.txt: directory .*none does not/],
      [[...d, "--keep", dir], /^--keep .* is a directory: give a file path$/],
      [[...d, "--keep", ""], /^--keep is empty/],
      [[...d, "--no-generated", "--size-mb", "3"], /^--size-mb has no effect with --no-generated$/],
      [[...d, "--no-generated", "--keep", `${dir}/k.txt`], /^--keep has no effect/],
    ]);
    const o = await benchOptions(PARSE_BENCH, [
      ...d,
      "--repeat",
      "2",
      "--size-mb",
      "0.5",
      "--ndjson-mb",
      "0",
      "--keep",
      `${dir}/k.txt`,
    ]);
    assertEquals([o.dataDir, o.hasDataDir, o.repeat, o.sizeMb, o.ndjsonMb, o.keep], [
      dir,
      true,
      2,
      0.5,
      0,
      `${dir}/k.txt`,
    ]);
    assertEquals((await benchOptions(PARSE_BENCH, [...d, "--no-generated"])).sizeMb, undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bench args: deno task scale refuses bad sizes, learners, options and datasets before a worker starts", async () => {
  const dir = await dataDir();
  try {
    await refuses(SCALE, [
      [["--sizes", "0x10"], /^--sizes must be an integer in \[1, 2147483647\], got '0x10'$/],
      [["--sizes", "1e30"], /--sizes must be an integer in \[1, 2147483647\], got '1e30'/],
      [["--sizes", "1.5"], /--sizes must be an integer/],
      [["--sizes", "-1"], /--sizes must be an integer in \[1, 2147483647\], got '-1'/],
      [["--sizes", "1e3,,1e4"], /^--sizes has an empty entry: '1e3,,1e4'$/],
      [["--sizes", ""], /^--sizes is empty/],
      [["--rows", "0x10"], /--rows must be an integer/],
      [["--rows", "1,2"], /--rows: give one value or one per size \(4\), got 2/],
      // '' was seed 0, 0x10 seed 16
      [["--seed", ""], /^--seed must be an integer, got ''$/],
      [["--seed", "0x10"], /^--seed must be an integer, got '0x10'$/],
      [["--test-rows", "0"], /--test-rows must be an integer in \[1, 10000000\]/],
      [["--budget-seconds", "1e30"], /--budget-seconds must be a number in \[0\.001, 86400\]/],
      [["--heap-mb", "1e30"], /--heap-mb must be an integer in \[16, 1048576\]/],
      // each worker failed on its own (an error entry per learner, exit 0)
      [["--sizes", "3"], /^--sizes 3: synthetic: avgLabels must be in \[1, numLabels\], got 5$/],
      [["--learners", "leml,nope"], /^--learners: unknown model 'nope'/],
      [["--learners", "leml,leml"], /^--learners names 'leml' twice$/],
      [["--learners", ""], /^--learners is empty/],
      [["--options", "leml:rnak=3"], /^--options: leml: unknown option "rnak"/],
      [["--options", "leml:rank=0x10"], /^--options: leml: option rank must be an integer/],
      [["--options", "leml:"], /^--options: expected key=value, got ''/],
      // flags the run would ignore
      [["--options", "br:bias=false", "--learners", "leml"], /options of 'br' have no effect/],
      [["--options", "leml:numLabels=5"], /leml:numLabels is set by the benchmark/],
      [["--prune-max-bytes", "0", "--prune-eval-rows", "9"], /--prune-eval-rows has no effect/],
      [["--data-dir", dir], /^--data-dir has no effect without --dataset$/],
      [["--dataset", "tiny", "--data-dir", dir, "--rows", "5"], /^--rows has no effect without/],
      // the dataset's files, checked before the workers (each one failed on its own)
      [["--dataset", "trainonly", "--data-dir", dir], /trainonly\.test\.txt does not exist/],
      [["--dataset", "nope", "--data-dir", dir], /nope\.train\.txt does not exist \(datasets/],
      [["--dataset", "tiny", "--data-dir", `${dir}/none`], /^--data-dir .*none: no such dir/],
      [["--dataset", "tiny,,tiny", "--data-dir", dir], /^--dataset has an empty entry/],
    ]);
    const o = await benchOptions(SCALE, [
      "--sizes",
      "1e3,2e3",
      "--rows",
      "500,6e2",
      "--learners",
      "br,leml",
      "--options",
      "leml:rank=8",
      "--seed",
      "-1",
    ]);
    assertEquals([o.sizes, o.rows, o.learners, o.seed], [[1000, 2000], [500, 600], [
      "br",
      "leml",
    ], -1]);
    assertEquals(o.options.leml.rank, 8);
    const ds = await benchOptions(SCALE, ["--dataset", "tiny", "--data-dir", dir]);
    assertEquals([ds.sizes, ds.datasets, ds.dataDir], [[], ["tiny"], dir]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bench args: deno task scale refuses the pruning flags when no learner it runs can be pruned", async () => {
  // before: accepted, and each worker skipped the pruned export without a word
  await refuses(SCALE, [
    [
      ["--learners", "leml", "--prune-eval-rows", "200"],
      /^--prune-eval-rows has no effect with --learners leml: only ova and br can be pruned$/,
    ],
    [["--learners", "leml,knn", "--prune-max-bytes", "1e6"], /^--prune-max-bytes has no effect/],
    [["--learners", "popularity", "--prune-delta", "2"], /^--prune-delta has no effect/],
    [["--learners", "leml", "--prune-max-bytes", "0"], /^--prune-max-bytes has no effect/],
  ]);
  const o = await benchOptions(SCALE, ["--learners", "leml,br", "--prune-delta", "2"]);
  assertEquals([o.learners, o.pruneDelta], [["leml", "br"], 2]);
  assertEquals((await benchOptions(SCALE, ["--prune-eval-rows", "9"])).pruneEvalRows, 9);
  // the flags are taken for exactly the learners the workers prune (a model with toLabelWeights)
  for (const name of MODEL_NAMES) {
    const model = (await loadFactory(name)).create({}) as { toLabelWeights?: unknown };
    const prunable = typeof model.toLabelWeights === "function";
    const taken = await benchOptions(SCALE, ["--learners", name, "--prune-delta", "2"])
      .then(() => true, () => false);
    assertEquals(taken, prunable, `${name}: --prune-delta taken ${taken}, prunable ${prunable}`);
  }
});

Deno.test("bench args: the scripts run by hand check every flag before any work", async () => {
  const dir = await dataDir();
  try {
    await refuses(SERVICE_LOAD, [
      [["--seconds", "0x10"], /^--seconds must be a number in \[0\.1, 86400\], got '0x10'$/],
      [["--event-connections", "0"], /^--event-connections must be an integer in \[1, 1024\]/],
      [["--phases", "events,,predict"], /^--phases has an empty entry/],
      [["--phases", "events,predcit"], /^--phases: unknown 'predcit' \(give events, pred/],
      [["--client", "curl"], /^--client must be wrk or deno, got 'curl'$/],
      [["--predict-form", "list"], /^--predict-form must be one of object, compact, indices/],
      [["--wait-minutes", "5"], /^--wait-minutes has no effect without --max-load$/],
      [["--max-load", "0x1"], /^--max-load must be a number/],
      [["stray"], /^unexpected argument 'stray' \(bench\/service_load\.ts takes no posit/],
      [["--", "--batchsize", "8"], /^serve flags after --: .*unknown option '--batchsize'/],
      [["--dataset", "trainonly", "--data-dir", `${dir}/none`], /^--data-dir .*none: no such/],
      [["--dataset", "nope", "--data-dir", dir], /nope\.train\.txt does not exist/],
    ]);
    const load = await benchOptions(SERVICE_LOAD, [
      "--dataset",
      "trainonly",
      "--data-dir",
      dir,
      "--deno-flag=--cpu-prof",
      "--",
      "--batch-size",
      "64",
    ]);
    assertEquals(
      [load.dataDir, load.seconds, load.phases, load.client, load.predictForm, load.waitMinutes],
      [dir, 10, ["events", "predict", "mixed"], undefined, "object", 10],
    );
    assertEquals([load.serveArgs, load.denoFlags], [["--batch-size", "64"], ["--cpu-prof"]]);
    await refuses(SERVICE_CRASH, [
      [["--kills", "0x10"], /^--kills must be an integer in \[0, 1000\], got '0x10'$/],
      [["--rows", "0"], /^--rows must be an integer in \[1, /],
      [["--rate", "fast"], /^--rate must be an integer/],
      [["--batch-size", "0"], /^--batch-size must be an integer in \[1, 65536\]/],
      [["--dataset", "trainonly", "--data-dir", dir], /trainonly\.test\.txt does not exist/],
    ]);
    const crash = await benchOptions(SERVICE_CRASH, ["--dataset", "tiny", "--data-dir", dir]);
    assertEquals([crash.kills, crash.rate, crash.seed, crash.rows, crash.serveArgs], [
      5,
      1500,
      1,
      undefined,
      [],
    ]);
    const batch = await benchOptions(SERVICE_CRASH, [
      "--data-dir",
      dir,
      "--dataset",
      "tiny",
      "--batch-size",
      "64",
      "--rows",
      "1e3",
    ]);
    assertEquals([batch.serveArgs, batch.rows], [["--batch-size", "64"], 1000]);
    await refuses(SERVICE_BAD_INPUT, [
      [["--rounds", "0x10"], /^--rounds must be an integer in \[1, 1000\], got '0x10'$/],
      [["--fuzz", "-1"], /^--fuzz must be an integer in \[0, 10000000\]/],
      [["--seed", "1.5"], /^--seed must be an integer, got '1\.5'$/],
    ]);
    assertEquals(await benchOptions(SERVICE_BAD_INPUT, []), { rounds: 5, fuzz: 5000, seed: 1 });
    await refuses(SERVICE_STAGES, [
      [["--passes", "0"], /^--passes must be an integer in \[1, 1000\], got '0'$/],
      [["--batch-size", "0x10"], /^--batch-size must be an integer/],
      [["--option", "rnak=8"], /^--option: leml: unknown option "rnak"/],
      [["--option", "rank"], /^--option must be key=value, got 'rank'$/],
      [["--dataset", "nope", "--data-dir", dir], /nope\.train\.txt does not exist/],
    ]);
    const stages = await benchOptions(SERVICE_STAGES, [
      "--dataset",
      "trainonly",
      "--data-dir",
      dir,
      "--option",
      "rank=8",
    ]);
    assertEquals([stages.passes, stages.batchSize, stages.modelOptions], [5, 32, {
      seed: 0,
      rank: "8",
    }]);
    await refuses(LEML_MEMORY, [
      [["--rows", "0x10"], /^--rows must be an integer in \[1, 1000000000000\], got '0x10'$/],
      [["--batch", "0"], /^--batch must be an integer in \[1, 65536\]/],
      [["--replay", "-1"], /^--replay must be an integer in \[0, /],
      [["--replay-steps", "0"], /^--replay-steps must be an integer in \[1, 65536\]/],
      [
        ["--row", "5"],
        /^unknown option '--row' \(see deno run -A bench\/leml_memory\.ts --help\)$/,
      ],
    ]);
    assertEquals(await benchOptions(LEML_MEMORY, ["--rows", "2e6"]), {
      rows: 2_000_000,
      batch: 256,
      replay: 2000,
      replaySteps: 2,
    });
    await refuses(COEMBED_SPEED, [
      [["--variant", "nl"], /^--variant must be NL or L, got 'nl'$/],
      [["--epochs", "0x10"], /^--epochs must be an integer in \[1, 100000\], got '0x10'$/],
      [["--repeats", "0"], /^--repeats must be an integer in \[1, 1000\]/],
      [["--dataset", "trainonly", "--data-dir", dir], /trainonly\.test\.txt does not exist/],
      [["--data-dir", ""], /^--data-dir is empty/],
    ]);
    const coembed = await benchOptions(COEMBED_SPEED, ["--dataset", "tiny", "--data-dir", dir]);
    assertEquals([coembed.variant, coembed.epochs, coembed.repeats], ["NL", 30, 3]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bench args: deno task chaos checks its counts before the service starts", async () => {
  await refuses(CHAOS, [
    [["--events", "0x10"], /^--events must be an integer in \[1, 1000000\], got '0x10'$/],
    [["--events", "1e30"], /--events must be an integer in \[1, 1000000\]/],
    [["--events", "abc"], /--events must be an integer/],
    [["--events", "0"], /--events must be an integer in \[1, 1000000\], got '0'/],
    [["--kills", "-1"], /^--kills must be an integer in \[0, 1000\], got '-1'$/],
    [["--senders", "0"], /^--senders must be an integer in \[1, 64\], got '0'$/],
    [["--seed", "1.5"], /^--seed must be an integer, got '1\.5'$/],
    [["--seed", ""], /--seed must be an integer, got ''/],
  ]);
  assertEquals(await benchOptions(CHAOS, ["--events", "2000", "--seed", "-3", "--kills", "0"]), {
    events: 2000,
    kills: 0,
    senders: 4,
    seed: -3,
  });
});

Deno.test("bench args: deno task sdk-scale checks sizes, counts and kinds, and refuses the flags a run ignores", async () => {
  await refuses(SDK_SCALE, [
    [["--sizes", "0x10"], /^--sizes must be an integer in \[1, 10000000\], got '0x10'$/],
    [["--sizes", "abc"], /--sizes must be an integer/],
    [["--sizes", "1e3,,1e4"], /^--sizes has an empty entry: '1e3,,1e4'$/],
    [["--sizes", "1e30"], /--sizes must be an integer in \[1, 10000000\]/],
    [["--kinds", "nope"], /^--kinds: unknown 'nope' \(give linear-sparse, linear-lowrank,/],
    [["--kinds", "linear-sparse,"], /^--kinds has an empty entry/],
    [["--queries", "0"], /^--queries must be an integer in \[1, 1000000\], got '0'$/],
    [["--dense-queries", "-1"], /--dense-queries must be an integer in \[1, 1000000\]/],
    [["--features", "abc"], /--features must be an integer/],
    [["--knn-points", "10"], /--knn-points must be an integer in \[50, 1000000\]/],
    [["--seed", "0x10"], /--seed must be an integer, got '0x10'/],
    [["--calibrate", "nope"], /^--calibrate must be synthetic or queries, got 'nope'$/],
    [
      ["--kinds", "linear-sparse", "--calibrate", "queries"],
      /^--calibrate has no effect without --kinds linear-lowrank or random-features$/,
    ],
    [["--kinds", "knn-embedding", "--postings", "5"], /--postings has no effect without --kinds/],
    [["--kinds", "linear-lowrank", "--knn-rank", "5"], /--knn-rank has no effect without --kinds/],
    [["--workerd-queries", "3"], /^--workerd-queries has no effect without --workerd$/],
    [["--workerd", "--dense-queries", "3"], /^--dense-queries has no effect with --workerd$/],
  ]);
  const o = await benchOptions(SDK_SCALE, [
    "--sizes",
    "1e3,1e4",
    "--kinds",
    "linear-sparse,knn-embedding",
    "--queries",
    "50",
    "--knn-points",
    "60",
  ]);
  assertEquals([o.sizes, o.kinds, o.queries, o["knn-points"], o.calibrate], [
    [1000, 10000],
    ["linear-sparse", "knn-embedding"],
    50,
    60,
    "synthetic",
  ]);
});

Deno.test("bench args: deno task knn-fast-exact checks --model-dir and the datasets before training", async () => {
  const dir = await dataDir();
  try {
    const d = ["--datasets", "tiny", "--data-dir", dir];
    await refuses(KNN_FAST_EXACT, [
      // the model was trained, then could not be written
      [[...d, "--model-dir", `${dir}/afile.txt`], /^--model-dir .*afile\.txt is not a directory$/],
      [[...d, "--model-dir", `${dir}/afile.txt/m`], /^--model-dir .*afile\.txt\/m: /],
      [[...d, "--model-dir", ""], /^--model-dir is empty/],
      [[...d, "--k", "0x10"], /^--k must be an integer in \[1, 1048576\], got '0x10'$/],
      [[...d, "--clusters", "1.5"], /--clusters must be an integer/],
      [[...d, "--list-size", "0"], /--list-size must be an integer in \[1, 1048576\]/],
      [[...d, "--probes-grid", "1,,2"], /^--probes-grid has an empty entry/],
      [[...d, "--probes-grid", "0x2"], /--probes-grid must be an integer/],
      [[...d, "--seed", "NaN"], /--seed must be an integer/],
      // the first dataset was trained before the second was found missing
      [["--datasets", "tiny,nope", "--data-dir", dir], /nope\.train\.txt does not exist/],
      [["--datasets", "tiny,tiny", "--data-dir", dir], /--datasets names 'tiny' twice/],
      [["--datasets", "", "--data-dir", dir], /^--datasets is empty/],
      [["--datasets", "tiny", "--data-dir", `${dir}/none`], /--data-dir .*none: no such/],
    ]);
    // a missing --model-dir is created before the training (the files are written there after)
    const models = `${dir}/models/knn`;
    const o = await benchOptions(KNN_FAST_EXACT, [
      ...d,
      "--probes-grid",
      "2,4",
      "--model-dir",
      models,
    ]);
    assertEquals([o.datasets, o.probesGrid, o.k, o.clusters, o.modelDir], [
      ["tiny"],
      [2, 4],
      15,
      undefined,
      models,
    ]);
    assert((await Deno.stat(models)).isDirectory, "--model-dir created");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bench args: deno task topk-fast-exact takes true/false switches and refuses the flags a run ignores", async () => {
  const dir = await dataDir();
  try {
    const d = ["--datasets", "tiny", "--data-dir", dir];
    await refuses(TOPK_FAST_EXACT, [
      // anything but "true" was false
      [[...d, "--l2", "yes"], /^--l2 must be true or false, got 'yes'$/],
      [[...d, "--synthetic", "no"], /^--synthetic must be true or false, got 'no'$/],
      // anything but "synthetic" was queries
      [[...d, "--calibrate", "nope"], /^--calibrate must be queries or synthetic, got 'nope'$/],
      [[...d, "--synthetic", "false", "--calibrate", "synthetic"], /--calibrate has no effect/],
      [["--datasets", "", "--synthetic", "false"], /nothing to run/],
      [["--datasets", "", "--l2", "false"], /^--l2 has no effect without datasets/],
      [[...d, "--iterations", "1e30"], /--iterations must be an integer in \[1, 1000\]/],
      [[...d, "--rank-fraction", "abc"], /--rank-fraction must be a number in \[0, 1\]/],
      [[...d, "--lambda", "0x10"], /--lambda must be a number/],
      [[...d, "--probes-grid", "1,,2"], /--probes-grid has an empty entry/],
      [[...d, "--probes-grid", "0"], /--probes-grid must be an integer in \[1, 1048576\]/],
      // the datasets before them were fit first
      [["--datasets", "tiny,nope", "--data-dir", dir], /nope\.train\.txt does not exist/],
      [["--datasets", "trainonly", "--data-dir", dir], /trainonly\.test\.txt does not exist/],
    ]);
    const o = await benchOptions(TOPK_FAST_EXACT, [...d, "--l2", "false", "--probes-grid", "2"]);
    assertEquals([o.datasets, o.l2, o.probesGrid, o.synthetic, o.dataDir], [
      ["tiny"],
      false,
      [2],
      true,
      dir,
    ]);
    assertEquals((await benchOptions(TOPK_FAST_EXACT, ["--datasets", ""])).datasets, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bench args: deno task text checks the model, the batch size and the NDJSON files before learning", async () => {
  const dir = await tempDirWith("tagstream_bench_args_", {
    "t.train.ndjson": '{"text": "a b", "labels": ["x"]}\n',
    "t.test.ndjson": '{"text": "a", "labels": ["x"]}\n',
    "trainonly.train.ndjson": '{"text": "a b", "labels": ["x"]}\n',
  });
  try {
    const d = ["--dataset", "t", "--data-dir", dir];
    await refuses(TEXT, [
      [[...d, "--batch-size", "0x10"], /^--batch-size must be an integer in \[1, 65536\]/],
      [[...d, "--batch-size", "abc"], /--batch-size must be an integer/],
      [[...d, "--model", "nope"], /^--model: unknown model 'nope'/],
      [["--dataset", "", "--data-dir", dir], /^--dataset is empty/],
      [["--dataset", "nope", "--data-dir", dir], /^--dataset .*nope\.train\.ndjson: no such file$/],
      [["--dataset", "trainonly", "--data-dir", dir], /trainonly\.test\.ndjson: no such file/],
      [["--dataset", "t", "--data-dir", `${dir}/none`], /^--data-dir .*none: no such directory$/],
    ]);
    const o = await benchOptions(TEXT, [...d, "--model", "br", "--no-select"]);
    assertEquals([o.dataset, o.factory.kind, o.batchSize, o.select, o.testPath], [
      "t",
      "br",
      256,
      false,
      `${dir}/t.test.ndjson`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bench args: end to end, each task refuses bad input with one line and exit 2; --help exits 0", async () => {
  const dir = await dataDir();
  try {
    const cases: [string, string[], RegExp][] = [
      ["parse_bench.ts", ["--repeat", "0x10"], /^bench: --repeat must be an integer in \[1, 100\]/],
      // parseArgs' three-line "argument is ambiguous", and the usage after every error
      ["scale.ts", ["--sizes", "-1"], /^scale: --sizes must be an integer in \[1, 2147483647\]/],
      ["service_chaos.ts", ["--kills", "-1"], /^chaos: --kills must be an integer in \[0, 1000\]/],
      // a stack trace (exit 1)
      ["sdk_scale.ts", ["--nope"], /^sdk-scale: unknown option '--nope' \(see deno task sdk-scale/],
      // NotADirectory with a stack trace (exit 1); a missing one: trained, then failed to write
      [
        "knn_fast_exact.ts",
        ["--datasets", "tiny", "--data-dir", dir, "--model-dir", `${dir}/afile.txt`],
        /^knn-fast-exact: --model-dir .*afile\.txt is not a directory$/,
      ],
      // --l2 yes was false; nothing ran, exit 0
      [
        "topk_fast_exact.ts",
        ["--datasets", "", "--synthetic", "false", "--l2", "yes"],
        /^topk-fast-exact: --l2 must be true or false, got 'yes'$/,
      ],
      // NotFound with a stack trace
      [
        "text.ts",
        ["--dataset", "nope", "--data-dir", dir],
        /^text: --dataset .*nope\.train\.ndjson: no such file$/,
      ],
    ];
    await assertRefusedEndToEnd(cases);
    for (const [name, task] of [["parse_bench.ts", "bench"], ["service_chaos.ts", "chaos"]]) {
      const help = await runDenoScript(benchScript(name), ["--allow-all"], ["--help"]);
      assertEquals(help.code, 0, help.stderr);
      assert(help.stdout.startsWith(`deno task ${task} [`), help.stdout);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
