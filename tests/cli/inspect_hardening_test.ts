/**
 * Hardening of `tagstream inspect` argument handling (from an exploratory test): extra
 * positionals, a model file given with `--state-dir`, flags a state directory would ignore, an
 * empty path, a `--state-dir` that is a file, and bad `--labels` values are usage errors (exit 2)
 * naming the flag or the path, checked before the file is read; files that are not model files
 * (empty, truncated, text, a directory) fail naming the file, without a stack trace.
 */
import { HAS_DATA } from "../data/helpers.ts";
import { assertEquals, expectRun, lastJson, runMain, withTempDir } from "./helpers.ts";

/** 4 rows, 5 features, 3 labels. */
const GOOD = "4 5 3\n0,1 0:1 2:0.5\n2 1:1 4:2\n1 0:1 3:1\n0 2:1 4:1\n";

/** Trains a tiny br model into `dir/m.tsm` and a state directory `dir/state`; returns the model path. */
async function tinyModel(dir: string): Promise<string> {
  await Deno.writeTextFile(`${dir}/good.txt`, GOOD);
  const out = `${dir}/m.tsm`;
  const r = await runMain([
    "train",
    "--data",
    `${dir}/good.txt`,
    "--model",
    "br",
    "--out",
    out,
    "--state-dir",
    `${dir}/state`,
    "--quiet",
  ]);
  assertEquals(r.code, 0, r.err);
  return out;
}

Deno.test("inspect: extra positionals and a model file beside --state-dir are refused", async () => {
  await withTempDir(async (dir) => {
    const model = await tinyModel(dir);
    // the model file is fine: only the extra argument is wrong
    await expectRun(
      ["inspect", model, "extra"],
      2,
      /unexpected argument 'extra' \(inspect takes at most 1 positional argument/,
    );
    await expectRun(
      ["inspect", model, `${dir}/nope.tsm`],
      2,
      /unexpected argument '.*nope\.tsm'/,
    );
    // after `--`, a flag is an argument too (it used to be dropped, printing text, not JSON)
    await expectRun(["inspect", model, "--", "--json"], 2, /unexpected argument '--json'/);
    // a valid state directory and a model file: which one? (the file used to be ignored)
    await expectRun(
      ["inspect", model, "--state-dir", `${dir}/state`],
      2,
      /give a model file or --state-dir, not both \(got '.*m\.tsm' and --state-dir .*state\)/,
    );
    // --labels only applies to a model file (it used to be ignored with --state-dir)
    await expectRun(
      ["inspect", "--state-dir", `${dir}/state`, "--labels", "3"],
      2,
      /--labels lists a model file's label names, not a --state-dir's/,
    );
    // the good forms still work
    const ok = await expectRun(["inspect", model, "--labels", "2", "--json"], 0);
    assertEquals((lastJson(ok.out).labelNames as string[]).length, 2);
    const st = await expectRun(["inspect", "--state-dir", `${dir}/state`, "--json"], 0);
    assertEquals(lastJson(st.out).model, "br");
  });
});

Deno.test("inspect: paths that are empty, missing, a directory or a file as --state-dir", async () => {
  await withTempDir(async (dir) => {
    const model = await tinyModel(dir);
    await expectRun(["inspect", ""], 2, /tagstream inspect: the model file path is empty/);
    await expectRun(["inspect", `${dir}/nope.tsm`], 2, /nope\.tsm: no such file/);
    await expectRun(["inspect", dir], 2, /is a directory, not a model file/);
    await expectRun(["inspect"], 2, /give a model file or --state-dir/);
    // a file as --state-dir: was a raw "Not a directory (os error 20)" with exit 1
    await expectRun(
      ["inspect", "--state-dir", model],
      2,
      /--state-dir .*m\.tsm is not a directory/,
    );
    // an empty --state-dir: was "/checkpoint.msgpack does not exist"
    await expectRun(["inspect", "--state-dir", ""], 2, /--state-dir is empty: give a directory/);
    await expectRun(
      ["inspect", "--state-dir", `${dir}/none`],
      2,
      /none\/checkpoint\.msgpack does not exist/,
    );
  });
});

Deno.test("inspect: --labels values are checked before the file is read", async () => {
  await withTempDir(async (dir) => {
    const model = await tinyModel(dir);
    for (const bad of ["abc", "0x10", "", "1.5", "-1", "1e3"]) {
      await expectRun(
        ["inspect", model, `--labels=${bad}`],
        2,
        new RegExp(`--labels must be an integer >= 0, got '${bad.replace(".", "\\.")}'`),
      );
    }
    // the flag is reported even when the file does not exist (it used to be the file)
    await expectRun(
      ["inspect", `${dir}/nope.tsm`, "--labels", "x"],
      2,
      /--labels must be an integer >= 0, got 'x'/,
    );
    await expectRun(["inspect", model, "--labels"], 2, /--labels/);
    await expectRun(["inspect", model, "--json=1"], 2, /--json' does not take an argument/);
    await expectRun(["inspect", model, "--nope"], 2, /unknown option '--nope'/);
  });
});

Deno.test("inspect: files that are not model files fail naming the file, no stack trace", async () => {
  await withTempDir(async (dir) => {
    const model = await tinyModel(dir);
    const bytes = await Deno.readFile(model);
    const files: Record<string, [Uint8Array, RegExp]> = {
      "empty.tsm": [new Uint8Array(0), /\(truncated\) at byte 0/],
      "cut.tsm": [bytes.subarray(0, 100), /\(truncated\) at byte 100/],
      "short.tsm": [bytes.subarray(0, bytes.length - 1), /\(truncated\)/],
      "text.tsm": [new TextEncoder().encode("hello world\n"), /\(bad-magic\) at byte 0/],
      "data.tsm": [new TextEncoder().encode(GOOD), /\(bad-magic\)/],
    };
    for (const [name, [content, reason]] of Object.entries(files)) {
      await Deno.writeFile(`${dir}/${name}`, content);
      // bad input (a ModelFormatError): exit 2, as prune and eval give for the same files
      await expectRun(
        ["inspect", `${dir}/${name}`],
        2,
        new RegExp(`Cannot read model file ${dir}/${name} `),
        reason,
      );
    }
  });
});

Deno.test({
  name: "inspect: a bibtex model, cut by one byte, and with an extra argument",
  ignore: !HAS_DATA,
  async fn() {
    const { DATA_DIR } = await import("../data/helpers.ts");
    await withTempDir(async (dir) => {
      const model = `${dir}/bibtex.tsm`;
      const t = await runMain([
        "train",
        "--data",
        `${DATA_DIR}/bibtex.train.txt`,
        "--model",
        "popularity",
        "--out",
        model,
        "--quiet",
      ]);
      assertEquals(t.code, 0, t.err);
      const ok = await expectRun(["inspect", model, "--json"], 0);
      assertEquals(lastJson(ok.out).numLabels, 159);
      const bytes = await Deno.readFile(model);
      await Deno.writeFile(`${dir}/cut.tsm`, bytes.subarray(0, bytes.length - 1));
      await expectRun(
        ["inspect", `${dir}/cut.tsm`],
        2,
        new RegExp(`Cannot read model file ${dir}/cut\\.tsm \\(truncated\\)`),
      );
      await expectRun(["inspect", model, "extra"], 2, /unexpected argument 'extra'/);
    });
  },
});
