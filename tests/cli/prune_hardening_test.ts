/**
 * Hardening of `tagstream prune` argument handling (from an exploratory test): numbers are plain
 * decimals in range, paths are checked before anything is read or written, a file that is not a
 * linear model is bad input (exit 2) naming it, conflicting, ignored and positional arguments
 * are refused, datasets too small for the split and `--ks` above the label count are refused
 * before the search, and `--state-dir` is parsed like every other flag, with no temporary file
 * left behind.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import { parsePruneArgs } from "../../src/cli/prune.ts";
import {
  assert,
  assertEquals,
  filesIn,
  lastJson,
  runMain,
  TEN_ROWS_XC,
  withTempDir,
} from "./helpers.ts";

/** `dir` with good.train.txt, empty.train.txt, one.train.txt and a BR model good.tsm. */
async function fixture(dir: string): Promise<void> {
  await Deno.writeTextFile(`${dir}/good.train.txt`, TEN_ROWS_XC);
  await Deno.writeTextFile(`${dir}/empty.train.txt`, "0 6 3\n");
  await Deno.writeTextFile(`${dir}/one.train.txt`, "1 6 3\n0 0:1\n");
  const t = await runMain([
    "train",
    "--quiet",
    "--data",
    `${dir}/good.train.txt`,
    "--model",
    "br",
    "--out",
    `${dir}/good.tsm`,
  ]);
  assertEquals(t.code, 0, t.err);
}

/**
 * Runs `tagstream prune ARGS`, asserts exit `code`, that stderr matches every pattern and, for
 * a failure, that no file appeared in (or vanished from) `dir`.
 */
async function expectPrune(
  dir: string,
  args: string[],
  code: number,
  ...patterns: RegExp[]
): Promise<{ code: number; out: string; err: string }> {
  return await expectPruneWith((a) => runMain(a), dir, args, code, ...patterns);
}

/**
 * As {@linkcode expectPrune}, in a child process whose temporary directory is `tmp`: the test
 * files run in parallel in one process, so setting TMPDIR there moved the other tests' temporary
 * files into this test's directory (and its removal deleted them).
 */
async function expectPruneIn(
  tmp: string,
  dir: string,
  args: string[],
  code: number,
  ...patterns: RegExp[]
): Promise<{ code: number; out: string; err: string }> {
  const main = new URL("../../src/cli/main.ts", import.meta.url).pathname;
  const child = async (a: string[]) => {
    const o = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", main, ...a],
      env: { TMPDIR: tmp, NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    return { code: o.code, out: text(o.stdout), err: text(o.stderr) };
  };
  return await expectPruneWith(child, dir, args, code, ...patterns);
}

async function expectPruneWith(
  run: (args: string[]) => Promise<{ code: number; out: string; err: string }>,
  dir: string,
  args: string[],
  code: number,
  ...patterns: RegExp[]
): Promise<{ code: number; out: string; err: string }> {
  const before = await filesIn(dir);
  const r = await run(["prune", ...args]);
  assertEquals(r.code, code, `prune ${args.join(" ")}\nstdout: ${r.out}\nstderr: ${r.err}`);
  for (const p of patterns) assert(p.test(r.err), `prune ${args.join(" ")}: ${p} not in: ${r.err}`);
  if (code !== 0) assertEquals(await filesIn(dir), before, `prune ${args.join(" ")} wrote files`);
  return r;
}

Deno.test("prune: numbers must be plain decimals in range, named with the value", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const base = ["--dataset", "good", "--data-dir", dir, "--out", `${dir}/o.tsm`, "--no-plot"];
    const model = [...base, "--model", `${dir}/good.tsm`];
    const cases: [string[], RegExp][] = [
      [[...model, "--lambda", "0x10"], /--lambda must be a number >= 0, got '0x10'/],
      [[...model, "--lambda", "Infinity"], /--lambda must be a number >= 0, got 'Infinity'/],
      [[...model, "--delta", "0x10"], /--delta must be an integer >= 0, got '0x10'/],
      [[...model, "--delta", "99999999999999999999"], /--delta must be an integer >= 0/],
      [[...model, "--seed", "0x10"], /--seed must be an integer, got '0x10'/],
      [[...model, "--ks", "1,0x1"], /--ks must be a comma-separated list of positive .*'0x1'/],
      [[...model, "--ks", "1,,3"], /--ks must be a comma-separated list of positive .*''/],
      [[...model, "--epsilon", "abc"], /--epsilon must be in \[0, 1\), got 'abc'/],
      [[...model, "--epsilon", "1"], /--epsilon must be in \[0, 1\), got '1'/],
      [[...model, "--val-fraction", "0b1"], /--val-fraction must be in \(0, 1\), got '0b1'/],
      [[...base, "--train", "br", "--C", "0x10"], /--C must be a number > 0, got '0x10'/],
      [[...base, "--train", "br", "--eps", "1e400"], /--eps must be a number > 0, got '1e400'/],
    ];
    for (const [args, re] of cases) await expectPrune(dir, args, 2, re);
    // the typed errors the project uses
    let err: unknown;
    try {
      parsePruneArgs(["--dataset", "good", "--train", "br", "--delta", "0x10"]);
    } catch (e) {
      err = e;
    }
    assert(err instanceof RangeError, `${err}`);
  });
});

Deno.test("prune: paths are checked before anything is read or written", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const base = ["--dataset", "good", "--data-dir", dir, "--model", `${dir}/good.tsm`];
    const out = ["--out", `${dir}/o.tsm`];
    const cases: [string[], RegExp][] = [
      // an empty --model used to train BR instead
      [["--dataset", "good", "--data-dir", dir, "--model", "", ...out], /--model is empty/],
      [[...base, "--out", "", "--no-plot"], /--out is empty/],
      [[...base, "--out", dir, "--no-plot"], /--out .* is a directory: give a file path/],
      [
        [...base, "--out", `${dir}/nodir/o.tsm`, "--no-plot"],
        /--out .*nodir\/o\.tsm: directory .*nodir does not exist/,
      ],
      // the model used to be written before the plot failed
      [[...base, ...out, "--plot", dir], /--plot .* is a directory: give a file path/],
      [[...base, ...out, "--plot", `${dir}/nodir/c.svg`], /--plot .*: directory .* not exist/],
      [[...base, ...out, "--plot", ""], /--plot is empty/],
      [[...base, ...out, "--plot", `${dir}/o.tsm`], /--plot and --out are the same file/],
      [[...base, ...out, "--no-plot", "--valid", ""], /--valid is empty/],
      [[...base, ...out, "--no-plot", "--valid", dir], /--valid .* is a directory, not a file/],
      [[...base, ...out, "--no-plot", "--valid", `${dir}/v.txt`], /--valid .*v\.txt: no such/],
      [
        ["--dataset", "good", "--model", `${dir}/good.tsm`, ...out, "--data-dir", ""],
        /--data-dir is empty/,
      ],
    ];
    for (const [args, re] of cases) await expectPrune(dir, args, 2, re);
  });
});

Deno.test("prune: a file that is not a linear model is bad input naming the file", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    await Deno.writeTextFile(`${dir}/junk.tsm`, "not a model file at all");
    await Deno.writeFile(
      `${dir}/knn.tsm`,
      encodeModelFile({
        kind: "knn-embedding",
        numFeatures: 6,
        numLabels: 3,
        params: {},
        tensors: {},
      }),
    );
    const base = ["--dataset", "good", "--data-dir", dir, "--out", `${dir}/o.tsm`];
    await expectPrune(
      dir,
      [...base, "--model", `${dir}/junk.tsm`],
      2,
      /Cannot read model file .*junk\.tsm \(bad-magic\)/,
    );
    await expectPrune(
      dir,
      [...base, "--model", `${dir}/knn.tsm`],
      2,
      /POP prunes linear models .*knn-embedding model \(.*knn\.tsm\)/,
    );
    await expectPrune(dir, [...base, "--model", dir], 2, /--model .*: is a directory/);
  });
});

Deno.test("prune: conflicting, ignored and positional arguments are refused", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const base = ["--dataset", "good", "--data-dir", dir, "--out", `${dir}/o.tsm`];
    const model = [...base, "--model", `${dir}/good.tsm`];
    const cases: [string[], RegExp][] = [
      [
        [...model, "--no-plot", "extra"],
        /unexpected argument 'extra' \(prune takes no positional arguments/,
      ],
      [[...model, "--bogus", "1"], /unknown option '--bogus'/],
      [[...model, "--train", "br"], /give exactly one of --model FILE, --state-dir DIR and/],
      [[...model, "--plot", `${dir}/c.svg`, "--no-plot"], /--plot and --no-plot contradict/],
      [[...model, "--no-plot", "--epsilons", "0,0.1"], /--epsilons and --lambdas .* --no-plot/],
      [
        [...model, "--no-plot", "--valid", `${dir}/good.train.txt`, "--seed", "3"],
        /--val-fraction and --seed split the training file: they do not apply with --valid/,
      ],
      [[...model, "--C", "1"], /--C, --eps and --normalize only apply with --train br/],
      [[...base, "--state-dir", dir, "--train", "br"], /give exactly one of/],
    ];
    for (const [args, re] of cases) await expectPrune(dir, args, 2, re);
  });
});

Deno.test("prune: datasets missing, empty or too small, and --ks above the labels", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const out = ["--data-dir", dir, "--out", `${dir}/o.tsm`, "--no-plot"];
    const model = ["--model", `${dir}/good.tsm`];
    const cases: [string[], RegExp][] = [
      [["--dataset", "nope", ...out, ...model], /--dataset nope: .*nope\.train\.txt: no such file/],
      [
        ["--dataset", "empty", ...out, ...model],
        /--dataset empty: .*empty\.train\.txt has no rows/,
      ],
      // a validation split of no rows made every pruning "within ε"
      [
        ["--dataset", "one", ...out, ...model],
        /--val-fraction 0\.2 of the 1 rows of one\.train\.txt gives no validation row/,
      ],
      [
        ["--dataset", "good", ...out, "--train", "br", "--val-fraction", "0.01"],
        /--val-fraction 0\.01 of the 10 rows .* gives no validation row/,
      ],
      [
        ["--dataset", "good", ...out, "--train", "br", "--val-fraction", "0.99"],
        /leaves no row to train on/,
      ],
      // a k far above the label count used to run for minutes
      [["--dataset", "good", ...out, ...model, "--ks", "1,100000000"], /--ks 100000000 is above/],
      [["--dataset", "good", ...out, "--train", "br", "--ks", "4"], /--ks 4 is above the 3 labels/],
      [["--dataset", "good", ...out, ...model, "--test"], /--dataset good: .*good\.test\.txt: no/],
    ];
    for (const [args, re] of cases) await expectPrune(dir, args, 2, re);
    // the default ks (1,3,5) still work on 3 labels, and a good run writes its file
    const r = await expectPrune(dir, ["--dataset", "good", ...out, ...model, "--ks", "3"], 0);
    assertEquals(lastJson(r.out).ks, [3]);
    const b = await expectPrune(dir, ["--dataset", "good", ...out, "--train", "br"], 0);
    assertEquals(lastJson(b.out).out, `${dir}/o.tsm`);
    // a --valid file wider than the model: its extra columns are ignored, and the run says so
    await Deno.writeTextFile(`${dir}/wide.txt`, "2 9 3\n0 0:1 8:1\n1 1:1\n");
    const wide = await expectPrune(
      dir,
      ["--dataset", "good", ...out, ...model, "--valid", `${dir}/wide.txt`],
      0,
      /warning: --valid .*wide\.txt has 9 features, more than the 6 of the model .*good\.tsm/,
    );
    assertEquals((lastJson(wide.out).warnings as string[]).length, 1);
    const same = await expectPrune(
      dir,
      ["--dataset", "good", ...out, ...model, "--valid", `${dir}/good.train.txt`],
      0,
    );
    assert(!/warning/.test(same.err) && lastJson(same.out).warnings === undefined, same.err);
  });
});

Deno.test("prune --state-dir: parsed like every flag, checked first, no temporary file left", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const tmp = `${dir}/tmp`;
    await Deno.mkdir(tmp);
    const train = async (data: string, model: string, state: string) => {
      const t = await runMain([
        "train",
        "--quiet",
        "--data",
        data,
        "--model",
        model,
        "--state-dir",
        state,
      ]);
      assertEquals(t.code, 0, t.err);
    };
    await train(`${dir}/good.train.txt`, "br", `${dir}/st-br`);
    await train(`${dir}/good.train.txt`, "knn", `${dir}/st-knn`);
    const events = [
      '{"features": {"0": 1}, "labels": ["x"]}',
      '{"features": {"1": 1}, "labels": ["y"]}',
    ];
    await Deno.writeTextFile(`${dir}/ev.ndjson`, events.join("\n") + "\n");
    await train(`${dir}/ev.ndjson`, "br", `${dir}/st-ev`);
    const base = ["--dataset", "good", "--data-dir", dir, "--no-plot"];
    {
      const cases: [string[], RegExp][] = [
        [[...base, "--state-dir", `${dir}/good.tsm`], /--state-dir .*good\.tsm is not a directory/],
        [[...base, "--state-dir", ""], /--state-dir is empty/],
        [[...base, "--state-dir", `${dir}/st-br`, "--epsilon", "abc"], /--epsilon must be in/],
        [
          [...base, "--state-dir", `${dir}/st-br`, "--out", `${dir}/nodir/m.tsm`],
          /--out .*nodir\/m\.tsm: directory .* does not exist/,
        ],
        [[...base, "--state-dir", `${dir}/st-br`, "extra"], /unexpected argument 'extra'/],
        [[...base, "--state-dir", `${dir}/st-br`, "--model", `${dir}/good.tsm`], /not both/],
        // the state directory's labels: 2 event labels against the dataset's 3, then unnamed
        [[...base, "--state-dir", `${dir}/st-ev`], /not in good's label order/],
        // a model that cannot be written as a file left its temporary file behind
        [[...base, "--state-dir", `${dir}/st-knn`], /--state-dir .*st-knn: POP prunes linear/],
      ];
      for (const [args, re] of cases) await expectPruneIn(tmp, dir, args, 2, re);
      await Deno.writeTextFile(`${dir}/good.labels.txt`, "a\nb\nc\n");
      await expectPruneIn(
        tmp,
        dir,
        [...base, "--state-dir", `${dir}/st-ev`],
        2,
        /the model of .*st-ev has 2 labels but good has 3 \(good\.labels\.txt\)/,
      );
      await Deno.remove(`${dir}/good.labels.txt`);
      assertEquals(await filesIn(tmp), [], "temporary model files left behind");
      // --flag=value forms reach the state directory too
      const r = await expectPruneIn(tmp, dir, [
        "--dataset=good",
        `--data-dir=${dir}`,
        `--state-dir=${dir}/st-br`,
        `--out=${dir}/st.pop.tsm`,
        "--no-plot",
      ], 0);
      assertEquals(lastJson(r.out).source, `${dir}/st-br`);
      assertEquals(await filesIn(tmp), [], "temporary model file left behind");
    }
  });
});
