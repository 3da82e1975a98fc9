/**
 * Argument handling of `deno task repro` (from an exploratory test): every flag an experiment
 * does not read, a repeated or empty flag, a number not in plain decimal (`0x10`), a bad
 * `--seed`, an unexpected positional argument, a `--data-dir` that is not a directory and a
 * dataset without its files are errors naming the flag (exit 2) before any work; `--help`
 * prints the usage; the experiments' own number flags refuse `0x10`, empty entries and counts
 * below 1.
 */
import {
  checkDataFiles,
  checkExperimentFlags,
  listExperiments,
  loadExperiment,
  parseReproArgs,
  runExperiment,
} from "../../bench/repro/repro.ts";
import { intList, numberFlag } from "../../bench/repro/harness.ts";
import coembed from "../../bench/repro/experiments/coembed.ts";
import coembedAblation from "../../bench/repro/experiments/coembed-ablation.ts";
import { FLAGS as KNN_FLAGS } from "../../bench/repro/experiments/knn.ts";
import { FLAGS as OVA_FLAGS } from "../../bench/repro/experiments/ova.ts";
import { FLAGS as POPULARITY_FLAGS } from "../../bench/repro/experiments/popularity.ts";
import { Progress } from "../../src/progress/mod.ts";
import { HAS_DATA } from "../data/helpers.ts";
import {
  assert,
  assertEquals,
  runDenoScript,
  type RunResult,
  tempDirWith,
} from "../cli/helpers.ts";
import { reproContext } from "./repro_context.ts";

const REPRO = new URL("../../bench/repro/repro.ts", import.meta.url).pathname;
const runRepro = (args: string[]): Promise<RunResult> =>
  runDenoScript(REPRO, ["--allow-all"], args);

const TRAIN = "4 3 4\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n";
const TEST = "3 3 4\n0 0:1\n1,2 2:1\n 2:1\n";

/** The error `fn` throws (or rejects with); fails when it returns. */
async function errorOf(fn: () => unknown): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("no error thrown");
}

/** Asserts that `fn` throws a `cls` whose message matches `re`. */
async function expectError(
  fn: () => unknown,
  cls: typeof TypeError | typeof RangeError,
  re: RegExp,
): Promise<void> {
  const e = await errorOf(fn);
  assert(e instanceof cls, `${e.constructor.name} instead of ${cls.name}: ${e.message}`);
  assert(re.test(e.message), `${re} not in: ${e.message}`);
}

Deno.test("repro args: flags, values, negative numbers and --", () => {
  const a = parseReproArgs(["knn", "--dataset", "t", "--seed", "-1", "--threshold=-0.5", "--q"]);
  assertEquals([a.name, a.dataset, a.seed, a.flags], ["knn", "t", -1, {
    threshold: "-0.5",
    q: true,
  }]);
  const b = parseReproArgs(["--dataset=t", "--data-dir", "/d", "--", "knn"]);
  assertEquals([b.name, b.dataDir, b.seed, b.flags], ["knn", "/d", 0, {}]);
  // --help needs nothing else
  assertEquals(parseReproArgs(["--help"]).help, true);
  assertEquals(parseReproArgs(["knn", "-h"]).name, "knn");
});

Deno.test("repro args: usage errors name the argument", async () => {
  const bad: [string[], typeof TypeError | typeof RangeError, RegExp][] = [
    [[], TypeError, /no experiment NAME given/],
    [
      ["knn", "extra", "--dataset", "t"],
      TypeError,
      /unexpected argument 'extra' \(repro takes one/,
    ],
    [["knn", "--dataset", "t", "--", "a", "b"], TypeError, /unexpected arguments 'a', 'b'/],
    [["knn", "--dataset", "t", "-x"], TypeError, /unknown option '-x'/],
    [
      ["knn", "--dataset", "t", "--dataset", "u"],
      TypeError,
      /--dataset given twice \('t' and 'u'\)/,
    ],
    [["knn", "--dataset", "t", "--k", "1", "--k=2"], TypeError, /--k given twice/],
    [["knn"], TypeError, /--dataset NAME is required/],
    [["knn", "--dataset"], TypeError, /--dataset needs a value/],
    [["knn", "--dataset", ""], RangeError, /--dataset is empty/],
    [["knn", "--dataset", "t", "--data-dir="], RangeError, /--data-dir is empty/],
    [["knn", "--dataset", "t", "--data-dir"], TypeError, /--data-dir needs a directory/],
    [["knn", "--dataset", "t", "--k", ""], RangeError, /--k is empty: give a value/],
    [["knn", "--dataset", "t", "--k", " "], RangeError, /--k is empty/],
    [
      ["knn", "--dataset", "t", "--k", "0x10"],
      RangeError,
      /--k must be a plain decimal number, got '0x10'/,
    ],
    [["knn", "--dataset", "t", "--k", "0b11"], RangeError, /--k must be a plain decimal/],
    [["knn", "--dataset", "t", "--k", " 5"], RangeError, /--k must be a plain decimal/],
    [["knn", "--dataset", "t", "--seed", "0x10"], RangeError, /--seed must be a plain decimal/],
    [
      ["knn", "--dataset", "t", "--seed", "1.5"],
      RangeError,
      /--seed must be an integer, got '1\.5'/,
    ],
    [
      ["knn", "--dataset", "t", "--seed", "1e3"],
      RangeError,
      /--seed must be an integer, got '1e3'/,
    ],
    [
      ["knn", "--dataset", "t", "--seed", "abc"],
      RangeError,
      /--seed must be an integer, got 'abc'/,
    ],
    [["knn", "--dataset", "t", "--seed"], TypeError, /--seed needs a value/],
    [["knn", "--dataset", "t", "--=3"], TypeError, /'--=3' is not a flag/],
  ];
  for (const [args, cls, re] of bad) await expectError(() => parseReproArgs(args), cls, re);
});

Deno.test("repro args: every experiment file exports its FLAGS next to its default export", async () => {
  const names = await listExperiments();
  assert(names.includes("popularity") && names.includes("ova"), names.join(", "));
  for (const name of names) {
    const mod = await import(`../../bench/repro/experiments/${name}.ts`);
    assert(mod.FLAGS !== undefined, `bench/repro/experiments/${name}.ts exports no FLAGS`);
    const { run, spec } = await loadExperiment(name);
    assertEquals(typeof run, "function", name);
    assertEquals(spec, mod.FLAGS, name);
    const { flags, test } = spec;
    assertEquals(new Set(flags).size, flags.length, `${name}: a flag listed twice`);
    for (const f of ["dataset", "data-dir", "seed"]) {
      assert(!flags.includes(f), `${name}: --${f} is the runner's, not in FLAGS`);
    }
    // a flag that skips the test file must be one the experiment accepts
    if (typeof test === "string") assert(flags.includes(test), `${name}: test flag --${test}`);
  }
  // the shared lists: loadTrainTest's propensity flags, brSettings's, ova's settings
  assertEquals(POPULARITY_FLAGS, {
    flags: ["threshold", "propensity-a", "propensity-b"],
    test: true,
  });
  const br = (await loadExperiment("br")).spec.flags;
  const pop = (await loadExperiment("pop")).spec.flags;
  for (const f of ["C", "eps", "normalize"]) assert(br.includes(f) && pop.includes(f), f);
  assert(OVA_FLAGS.flags.includes("learningRate") && !OVA_FLAGS.flags.includes("seed"));
});

Deno.test("repro args: each experiment takes only the flags it reads", async () => {
  checkExperimentFlags("popularity", POPULARITY_FLAGS, { threshold: "0.3", "propensity-a": "0.5" });
  checkExperimentFlags("ova", OVA_FLAGS, { learningRate: "0.1", replay: "0", epochs: "2" });
  await expectError(
    () => checkExperimentFlags("popularity", POPULARITY_FLAGS, { treshold: "0.3" }),
    TypeError,
    /^unknown flag --treshold for popularity \(popularity takes --dataset, --data-dir, --seed, --threshold/,
  );
  await expectError(
    () => checkExperimentFlags("knn", KNN_FLAGS, { nope: "3", quick: true }),
    TypeError,
    /unknown flags --nope, --quick for knn/,
  );
  // a flag of another experiment
  await expectError(
    () => checkExperimentFlags("popularity", POPULARITY_FLAGS, { k: "5" }),
    TypeError,
    /--k for/,
  );
});

Deno.test("repro args: the runner refuses unknown flags and missing data before any work", async () => {
  const dir = await tempDirWith("tagstream_repro_args_", {
    "tiny.train.txt": TRAIN,
    "tiny.test.txt": TEST,
    "trainonly.train.txt": TRAIN,
    "afile.txt": "x",
  });
  try {
    const run = (
      dataDir: string,
      dataset: string,
      flags: Record<string, string> = {},
      name = "popularity",
    ) => runExperiment({ name, dataset, dataDir, seed: 0, flags }, Progress.silent());
    // the flag is refused before the data directory is even looked at
    await expectError(
      () => run(`${dir}/none`, "tiny", { nope: "3" }),
      TypeError,
      /unknown flag --nope/,
    );
    await expectError(
      () => run(`${dir}/none`, "tiny"),
      TypeError,
      /--data-dir .*none: no such directory/,
    );
    await expectError(
      () => run(`${dir}/afile.txt`, "tiny"),
      TypeError,
      /afile\.txt is not a directory/,
    );
    await expectError(() => run("", "tiny"), TypeError, /--data-dir is empty/);
    await expectError(
      () => run(dir, "nope"),
      TypeError,
      /--dataset nope: .*nope\.train\.txt does not exist \(datasets in .*: tiny, trainonly\)/,
    );
    // popularity reads the test file: refused up front (not after training)
    await expectError(
      () => run(dir, "trainonly"),
      TypeError,
      /trainonly\.test\.txt does not exist/,
    );
    // an experiment that reads only the training file does not need the test file
    await checkDataFiles(dir, "trainonly", false, "--data-dir");
    await expectError(() => run(dir, "tiny", {}, "nope"), TypeError, /Unknown experiment 'nope'/);
    // the flags in FLAGS are taken
    const out = await run(dir, "tiny", { threshold: "0.5", "propensity-a": "0.6" });
    assertEquals(out.experiment, "popularity");
    const knn = await run(dir, "tiny", { k: "1", threshold: "0.5" }, "knn");
    assertEquals(knn.k, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro args: harness number flags take plain decimals only", async () => {
  assertEquals(numberFlag({ t: "-0.25" }, "t", 1), -0.25);
  for (const v of ["0x10", "", " 5", "Infinity", "abc"]) {
    await expectError(() => numberFlag({ t: v }, "t", 1), RangeError, /--t must be a number, got/);
  }
  await expectError(() => numberFlag({ t: true }, "t", 1), TypeError, /--t needs a value/);
  assertEquals(intList("10, 5,10", [1], "k-grid"), [10, 5]);
  for (const v of ["5,0x10", "1,,2", "0", "1.5", "", "5,"]) {
    await expectError(
      () => intList(v, [1], "k-grid"),
      TypeError,
      /--k-grid must be comma-separated positive integers/,
    );
  }
  await expectError(() => intList(true, [1], "k-grid"), TypeError, /--k-grid/);
});

Deno.test("repro args: coembed and coembed-ablation check their counts and switches before loading data", async () => {
  // the data directory does not exist: each error comes before any data is read
  const ctx = (flags: Record<string, string | boolean>) =>
    reproContext("/nonexistent-repro-dir", flags as Record<string, string>);
  const bad: [Record<string, string | boolean>, RegExp][] = [
    [{ repeats: "0" }, /--repeats must be an integer >= 1, got '0'/],
    [{ repeats: "1.5" }, /--repeats must be an integer >= 1/],
    [{ epochs: "0" }, /--epochs must be an integer >= 1/],
    [{ batch: "-4" }, /--batch must be an integer >= 1/],
    [{ streamBatch: "0" }, /--streamBatch must be an integer >= 1/],
    [{ tau: "1.5" }, /--tau 1\.5 not in \[0,1\)/],
    [{ stream: "no" }, /--stream takes true or false, got 'no'/],
    [{ "no-stream": "yes" }, /--no-stream takes no value, got 'yes'/],
    [{ init: "zeros" }, /--init must be spectral or random, got 'zeros'/],
    [{ gamma: "-1" }, /--gamma must be auto or a number > 0/],
    [{ tune: "maybe" }, /--tune takes true or false/],
  ];
  for (const [flags, re] of bad) await expectError(() => coembed(ctx(flags)), RangeError, re);
  await expectError(
    () => coembed(ctx({ stream: "false", "no-stream": true })),
    TypeError,
    /give --stream or --no-stream, not both/,
  );
  for (
    const [flags, re] of [
      [{ epochs: "abc" }, /--epochs abc is not an integer >= 1/],
      [{ epochs: "0" }, /--epochs 0 is not an integer >= 1/],
      [{ taus: "0.3," }, /--taus entry '' not in \[0, 1\)/],
      [{ taus: "1.5" }, /--taus entry '1\.5'/],
    ] as const
  ) {
    await expectError(() => coembedAblation(ctx(flags)), RangeError, re);
  }
});

Deno.test("repro args: end to end, usage errors exit 2 without a result line; --help exits 0", async () => {
  const dir = await tempDirWith("tagstream_repro_args_", {
    "tiny.train.txt": TRAIN,
    "tiny.test.txt": TEST,
  });
  try {
    const base = ["popularity", "--dataset", "tiny", "--data-dir", dir];
    for (
      const [args, re] of [
        [[...base, "--nope", "3"], /repro: unknown flag --nope for popularity/],
        [
          [...base, "--threshold", "0x10"],
          /--threshold must be a plain decimal number, got '0x10'/,
        ],
        [[...base, "extra"], /unexpected argument 'extra'/],
        [
          ["popularity", "--dataset", "tiny", "--data-dir", `${dir}/tiny.train.txt`],
          /is not a directory/,
        ],
        [
          ["knn", "--dataset", "tiny", "--data-dir", dir, "--k-grid", "1,0x2"],
          /--k-grid must be a plain decimal|--k-grid must be comma-separated/,
        ],
      ] as const
    ) {
      const r = await runRepro([...args]);
      assertEquals(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert(re.test(r.stderr), `${args.join(" ")}: ${re} not in ${r.stderr}`);
      assertEquals(r.stdout, "", `${args.join(" ")}: printed ${r.stdout}`);
      assert(!/\n\s+at /.test(r.stderr), `stack trace: ${r.stderr}`);
    }
    const help = await runRepro(["--help"]);
    assertEquals(help.code, 0, help.stderr);
    assert(/Experiments: .*popularity/.test(help.stdout), help.stdout);
    const knnHelp = await runRepro(["knn", "--help"]);
    assert(knnHelp.code === 0 && /Flags of knn: .*--k-grid/.test(knnHelp.stdout), knnHelp.stdout);
    // --help used to be ignored: the experiment ran
    const ran = await runRepro([...base, "--help"]);
    assert(ran.code === 0 && !ran.stdout.includes('"experiment"'), ran.stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "repro args: on the real data, an unknown dataset lists the datasets; popularity runs",
  ignore: !HAS_DATA,
  async fn() {
    const r = await runRepro(["popularity", "--dataset", "bibtexx"]);
    assertEquals(r.code, 2, r.stderr);
    assert(
      /--dataset bibtexx: .*bibtexx\.train\.txt does not exist \(datasets in .*bibtex/.test(
        r.stderr,
      ),
      r.stderr,
    );
    const typo = await runRepro(["popularity", "--dataset", "bibtex", "--treshold", "0.3"]);
    assert(typo.code === 2 && /unknown flag --treshold/.test(typo.stderr), typo.stderr);
    const ok = await runRepro([
      "popularity",
      "--dataset",
      "bibtex",
      "--seed",
      "-1",
      "--threshold",
      "0.3",
    ]);
    assertEquals(ok.code, 0, ok.stderr);
    const out = JSON.parse(ok.stdout.trim().split("\n").pop()!);
    assertEquals([out.seed, out.threshold, out.trainRows], [-1, 0.3, 4880]);
  },
});
