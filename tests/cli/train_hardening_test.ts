/**
 * Hardening of `tagstream train` / `export` / `serve` argument handling: size limits checked
 * before a model is allocated, runs that learned nothing write no model, every flag validated
 * before the data is read (and flags the run would ignore refused), output paths checked up
 * front, no temporary file left behind, unexpected positionals refused, OS errors named by flag
 * and path, strict integer flags, and `--labels` files read strictly.
 */
import { intFlag, parseFlags } from "../../src/cli/commands/args.ts";
import { checkOutFile } from "../../src/cli/commands/path_checks.ts";
import { labelsBeside, readLabelsFlag } from "../../src/cli/commands/label_names.ts";
import { writeFileAtomic } from "../../src/service/checkpoint.ts";
import { assert, assertEquals, expectRun, lastJson, runMain, withTempDir } from "./helpers.ts";

/** The XC file of the QA reports: 4 rows, 5 features, 3 labels. */
const GOOD = "4 5 3\n0,1 0:1 2:0.5\n2 1:1 4:2\n1 0:1 3:1\n0 2:1 4:1\n";
const EVENTS = '{"features": {"0": 1}, "labels": ["a"]}\n{"features": {"1": 1}, "labels": ["b"]}\n';

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("train: --max-features / --max-labels bound XC, LIBSVM and --option sizes", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/good.txt`, GOOD);
    await Deno.writeTextFile(`${dir}/huge.txt`, "2 2147483647 3\n0 0:1\n1 1:1\n");
    await Deno.writeTextFile(`${dir}/wide.txt`, "1 4 100000\n99999 0:1\n");
    await Deno.writeTextFile(`${dir}/big.svm`, "1 2000000:1\n0 1:1\n");
    const out = `${dir}/m.tsm`;
    const base = ["train", "--quiet", "--out", out];
    await expectRun(
      [...base, "--data", `${dir}/good.txt`, "--max-features", "3"],
      2,
      /the header declares 5 features, above --max-features 3 \(raise the limit/,
    );
    for (const model of ["br", "leml"]) {
      await expectRun(
        [
          ...base,
          "--data",
          `${dir}/good.txt`,
          "--model",
          model,
          "--option",
          "numFeatures=999999999",
        ],
        2,
        /--option numFeatures=999999999 is above --max-features 1048576/,
        /raise the limit with --max-features N/,
      );
    }
    await expectRun(
      [...base, "--data", `${dir}/good.txt`, "--option", "numLabels=70000"],
      2,
      /--option numLabels=70000 is above --max-labels 65536/,
    );
    await expectRun(
      [...base, "--data", `${dir}/huge.txt`],
      2,
      /huge\.txt: the header declares 2147483647 features, above --max-features 1048576/,
    );
    await expectRun(
      [...base, "--data", `${dir}/wide.txt`],
      2,
      /wide\.txt: the header declares 100000 labels, above --max-labels 65536/,
    );
    await expectRun(
      [...base, "--data", `${dir}/big.svm`],
      2,
      /big\.svm: feature index 2000000 needs 2000000 features, above --max-features 1048576/,
    );
    assert(!(await exists(out)), "no model file is written over a limit");
    // at the limit: accepted, and the model has the file's 5 features
    const ok = await expectRun([...base, "--data", `${dir}/good.txt`, "--max-features", "5"], 0);
    assertEquals(lastJson(ok.out).numFeatures, 5);
    // a raised limit accepts what the default refuses
    const raised = await expectRun(
      [...base, "--data", `${dir}/wide.txt`, "--model", "popularity", "--max-labels", "100000"],
      0,
    );
    assertEquals(lastJson(raised.out).numLabels, 100000);
  });
});

Deno.test("train: an XC/LIBSVM run that learned nothing writes no model and exits 1", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/header.txt`, "0 5 3\n");
    await Deno.writeTextFile(`${dir}/empty.svm`, "");
    await Deno.writeTextFile(`${dir}/bad.txt`, "2 5 3\nbad\nworse\n");
    const out = `${dir}/m.tsm`;
    for (const data of ["header.txt", "empty.svm"]) {
      const r = await expectRun(
        ["train", "--quiet", "--data", `${dir}/${data}`, "--out", out, "--state-dir", `${dir}/s`],
        1,
        /learned nothing from .* no model written/,
      );
      const s = lastJson(r.out);
      assertEquals([s.learnedNothing, s.out, s.modelBytes], [true, null, null]);
      assert(!(await exists(out)) && !(await exists(`${dir}/s`)), `${data}: nothing written`);
    }
    const r = await expectRun(
      ["train", "--quiet", "--data", `${dir}/bad.txt`, "--on-error", "skip", "--out", out],
      1,
      /rejected 2 of 2 lines/,
      /learned nothing/,
    );
    const s = lastJson(r.out);
    assertEquals([s.rejected, s.skipped, s.learnedNothing], [2, 2, true]);
    assertEquals((s.rejects as { line: number }[]).map((x) => x.line), [2, 3]);
    assert(!(await exists(out)));
    // one good line among bad ones: learned, counted consistently
    await Deno.writeTextFile(`${dir}/some.txt`, "3 5 3\n0 0:1\nbad\n1 1:1\n");
    const some = await expectRun(
      ["train", "--quiet", "--data", `${dir}/some.txt`, "--on-error", "skip", "--out", out],
      0,
    );
    const t = lastJson(some.out);
    assertEquals([t.rows, t.rejected, t.skipped, t.learnedNothing], [2, 1, 1, false]);
    assert(await exists(out));
  });
});

Deno.test("train: every flag is validated before the data is read; ignored flags are refused", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/good.txt`, GOOD);
    await Deno.writeTextFile(`${dir}/ok.ndjson`, EVENTS);
    const out = `${dir}/x.tsm`;
    const xc = ["train", "--quiet", "--data", `${dir}/good.txt`, "--out", out];
    const nd = ["train", "--quiet", "--data", `${dir}/ok.ndjson`, "--out", out];
    await expectRun([...nd, "--on-error", "bogus"], 2, /--on-error must be fail or skip/);
    await expectRun([...xc, "--lambda", "abc"], 2, /--lambda has no effect on an XC/);
    await expectRun([...xc, "--epsilon", "7"], 2, /--epsilon has no effect on an XC/);
    await expectRun([...xc, "--checkpoint-every", "0"], 2, /--checkpoint-every has no effect/);
    await expectRun(
      [...nd, "--epsilon", "7", "--publish-every", "10"],
      2,
      /--publish-every, --epsilon have no effect without --state-dir/,
    );
    await expectRun([...nd, "--labels", `${dir}/good.txt`], 2, /--labels has no effect on NDJSON/);
    await expectRun([...xc, "--option", "rnak=3"], 2, /unknown option "rnak"/);
    await expectRun([...xc, "--model", "knn"], 2, /--model knn cannot be written as a model file/);
    assert(!(await exists(out)), "no model written by a refused run");
    const st = `${dir}/state`;
    const withState = [...nd, "--state-dir", st];
    await expectRun([...withState, "--checkpoint-every", "0"], 2, /--checkpoint-every must be/);
    await expectRun([...withState, "--lambda", "abc"], 2, /--lambda must be a number >= 0/);
    await expectRun(
      [...withState, "--no-prune", "--lambda", "0.1", "--delta", "3"],
      2,
      /--lambda, --delta set POP pruning, which --no-prune turns off/,
    );
    assert(!(await exists(out)) && !(await exists(st)), "nothing written by a refused run");
    // the same flags where they have an effect: accepted
    await expectRun([...withState, "--checkpoint-every", "1", "--lambda", "0.1"], 0);
    assert(await exists(out));
  });
});

Deno.test("--out is checked up front; a failed atomic write leaves no temporary file", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/good.txt`, GOOD);
    await Deno.mkdir(`${dir}/adir`);
    const train = ["train", "--quiet", "--data", `${dir}/good.txt`, "--out"];
    await expectRun([...train, `${dir}/adir`], 2, /--out .*adir is a directory/);
    await expectRun([...train, ""], 2, /--out is empty/);
    await expectRun(
      [...train, `${dir}/nodir/x.tsm`],
      2,
      /--out .*nodir\/x\.tsm: directory .*nodir does not exist/,
    );
    await expectRun(
      ["export", "--state-dir", `${dir}/nostate`, "--out", `${dir}/adir`],
      2,
      /--out .*adir is a directory/,
    );
    await checkOutFile(`${dir}/fine.tsm`);
    await checkOutFile(`${dir}/good.txt`); // an existing file is replaced
    const cwd = Deno.cwd();
    try {
      Deno.chdir(dir);
      await expectRun([...train, ""], 2, /--out is empty/);
      await checkOutFile("bare.tsm"); // a bare name: the current directory
    } finally {
      Deno.chdir(cwd);
    }
    // writeFileAtomic onto a directory fails and removes its temporary file
    let failed = false;
    try {
      await writeFileAtomic(`${dir}/adir`, Uint8Array.of(1, 2, 3));
    } catch {
      failed = true;
    }
    assert(failed, "writing over a directory fails");
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assertEquals(left, ["adir", "good.txt"]);
    assertEquals([...Deno.readDirSync(`${dir}/adir`)].length, 0);
  });
});

Deno.test("unexpected positional arguments are refused, naming them", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/good.txt`, GOOD);
    await expectRun(
      ["train", "--quiet", "--data", `${dir}/good.txt`, "--out", `${dir}/m.tsm`, "junk"],
      2,
      /unexpected argument 'junk' \(train takes no positional arguments/,
    );
    assert(!(await exists(`${dir}/m.tsm`)));
    await expectRun(
      ["export", "--state-dir", dir, "--out", `${dir}/e.tsm`, "junk", "more"],
      2,
      /unexpected arguments 'junk', 'more' \(export takes no positional arguments/,
    );
    await expectRun(
      ["serve", "--state-dir", `${dir}/s`, "--no-auth", "--port", "0", "junk"],
      2,
      /unexpected argument 'junk' \(serve takes/,
    );
  });
  const one = parseFlags("inspect", ["m.tsm", "--json"], { json: "boolean" }, {
    maxPositionals: 1,
  });
  assertEquals(one.positionals, ["m.tsm"]);
  let msg = "";
  try {
    parseFlags("inspect", ["a.tsm", "b.tsm"], {}, { maxPositionals: 1 });
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(/unexpected argument 'b\.tsm' \(inspect takes at most 1 positional argument;/.test(msg));
  // without a bound (the default), positionals are returned as before
  assertEquals(parseFlags("x", ["a", "b"], {}).positionals, ["a", "b"]);
  // a negative number after a value flag is its value, not an ambiguous option
  const neg = parseFlags("x", ["--seed", "-1", "--lr", "-.5", "--quiet", "a"], {
    seed: "string",
    lr: "string",
    quiet: "boolean",
  });
  assertEquals([neg.values.seed, neg.values.lr, neg.positionals], ["-1", "-.5", ["a"]]);
  assertEquals(parseFlags("x", ["--", "--seed", "-1"], { seed: "string" }).positionals, [
    "--seed",
    "-1",
  ]);
  const r = await runMain(["train", "--data", "x.txt", "--out", "y.tsm", "--seed", "-1.5"]);
  assert(
    r.code === 2 && /--seed must be an integer in \[0, 4294967295\], got '-1\.5'/.test(r.err),
    r.err,
  );
});

Deno.test("--follow, --data, --labels and --state-dir name the flag and the path", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/good.txt`, GOOD);
    await Deno.mkdir(`${dir}/adir`);
    await Deno.mkdir(`${dir}/dir.ndjson`);
    await expectRun(
      ["train", "--quiet", "--data", `${dir}/dir.ndjson`, "--state-dir", `${dir}/s2`],
      2,
      /--data .*dir\.ndjson is a directory, not a file/,
    );
    await expectRun(
      ["train", "--quiet", "--data", `${dir}/good.txt`, "--state-dir", `${dir}/good.txt`],
      2,
      /--state-dir .*good\.txt is not a directory/,
    );
    await expectRun(
      ["train", "--data", `${dir}/good.txt`, "--labels", `${dir}/nope.txt`, "--out", `${dir}/m`],
      2,
      /--labels .*nope\.txt: no such file/,
    );
    await expectRun(
      ["train", "--quiet", "--follow", `${dir}/adir`, "--state-dir", `${dir}/s1`],
      2,
      /--follow .*adir is a directory, not a file/,
    );
    assert(!(await exists(`${dir}/s1`)) && !(await exists(`${dir}/s2`)), "no state dir left");
    await expectRun(
      ["serve", "--state-dir", `${dir}/good.txt`, "--no-auth", "--port", "0"],
      2,
      /--state-dir .*good\.txt is not a directory/,
    );
    await expectRun(
      ["serve", "--state-dir", `${dir}/s3`, "--no-auth", "--port", "0", "--follow", `${dir}/adir`],
      2,
      /--follow .*adir is a directory/,
    );
    await expectRun(
      ["serve", "--state-dir", `${dir}/s3`, "--no-auth", "--port", "0", "--hostname", "999.1.1.1"],
      2,
      /cannot listen on --hostname 999\.1\.1\.1/,
    );
    assert(!(await exists(`${dir}/s3`)), "serve refused before opening its state directory");
  });
});

Deno.test("integer flags take plain decimal integers; help examples and limits are accurate", async () => {
  const flag = (v: string) => ({ values: { n: v }, positionals: [] });
  assertEquals(intFlag(flag("16"), "n", 0, 1, 100), 16);
  assertEquals(intFlag(flag("-3"), "n", 0), -3);
  for (const bad of ["0x10", "1e3", "1.0", " 7", "", "abc", "9007199254740993"]) {
    let msg = "";
    try {
      intFlag(flag(bad), "n", 0, 1, 1 << 16);
    } catch (e) {
      msg = (e as Error).message;
    }
    assertEquals(msg, `--n must be an integer in [1, 65536], got '${bad}'`);
  }
  let seed = "";
  try {
    intFlag({ values: { seed: "abc" }, positionals: [] }, "seed", 0);
  } catch (e) {
    seed = (e as Error).message;
  }
  assertEquals(seed, "--seed must be an integer, got 'abc'");
  const serve = await runMain(["serve", "--help"]);
  const train = await runMain(["train", "--help"]);
  assertEquals(serve.out.split("\n").filter((l) => /^\s+--max-features/.test(l)).length, 1);
  assert(/--max-features N\s+largest feature index \+ 1 .*\(default 262144\)/.test(serve.out));
  assertEquals(train.out.split("\n").filter((l) => /^\s+--max-features/.test(l)).length, 1);
  assert(/--max-features N\s+.*\(default 1048576\)/.test(train.out));
  assert(!/lr=0\.01/.test(serve.out + train.out), "the failing example is gone");
  // the example given for br works
  assert(/--model br --option learningRate=0\.05/.test(train.out));
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/good.txt`, GOOD);
    await expectRun([
      "train",
      "--quiet",
      "--data",
      `${dir}/good.txt`,
      "--out",
      `${dir}/m.tsm`,
      "--model",
      "br",
      "--option",
      "learningRate=0.05",
    ], 0);
  });
});

Deno.test("--labels: empty names are errors, trailing newlines ignored; beside files checked", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/names.txt`;
    await Deno.writeTextFile(file, "a\nb\nc\n\n\n");
    assertEquals(await readLabelsFlag(file, 3), ["a", "b", "c"]);
    await Deno.writeTextFile(file, "a\r\nb\r\nc");
    assertEquals(await readLabelsFlag(file, 3), ["a", "b", "c"]);
    await Deno.writeTextFile(file, "a\n\nc\n");
    let msg = "";
    try {
      await readLabelsFlag(file, 3);
    } catch (e) {
      msg = (e as Error).message;
    }
    assertEquals(msg, `--labels ${file} line 2: empty label name (one name per line)`);
    // a repeated name would merge two of the data's labels into one
    await Deno.writeTextFile(file, "a\nb\na\n");
    try {
      await readLabelsFlag(file, 3);
    } catch (e) {
      msg = (e as Error).message;
    }
    assertEquals(msg, `--labels ${file} line 3: label name "a" repeats line 1`);
    await Deno.writeTextFile(file, "a\nb\nc\n\n\n");
    try {
      await readLabelsFlag(file, 5);
    } catch (e) {
      msg = (e as Error).message;
    }
    assertEquals(msg, `--labels ${file} has 3 names, the data has 5 labels`);
    // NAME.labels.txt beside NAME.train.txt with the wrong count: a warning, indices used
    await Deno.writeTextFile(`${dir}/toy.train.txt`, GOOD);
    await Deno.writeTextFile(`${dir}/toy.labels.txt`, "x\ny\n");
    const warnings: string[] = [];
    assertEquals(await labelsBeside(`${dir}/toy.train.txt`, 3, (m) => warnings.push(m)), undefined);
    assert(/toy\.labels\.txt.* has 2 names, .*toy\.train\.txt has 3 labels/.test(warnings[0]));
    const r = await expectRun(
      ["train", "--data", `${dir}/toy.train.txt`, "--out", `${dir}/m.tsm`, "--quiet"],
      0,
      /not using .*toy\.labels\.txt for label names: it has 2 names/,
    );
    assertEquals(lastJson(r.out).numLabels, 3);
    await Deno.writeTextFile(`${dir}/toy.labels.txt`, "x\ny\nz\n\n");
    assertEquals(await labelsBeside(`${dir}/toy.train.txt`, 3), ["x", "y", "z"]);
  });
});
