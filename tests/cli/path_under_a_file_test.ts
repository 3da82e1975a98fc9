// A path that goes through a file (`out/m.tsm` where `out` is a file: a typo, or a file where a
// directory was meant). `export --out FILE/m.tsm` crashed with the raw OS error and exit 1
// (`Not a directory (os error 20): stat 'FILE/m.tsm'`); `--data`, `--state-dir`, `--follow` and a
// model file path printed the same raw error (`(os error 20): stat ...`) behind the flag. Each is
// now a usage error (exit 2) naming the flag and the path, without the OS error's noise.
import { expectRun, withTempDir } from "./helpers.ts";

Deno.test("a path under a file is a usage error naming the flag, without a raw OS error", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/plain.txt`;
    await Deno.writeTextFile(file, "not a directory\n");
    // a state directory to export from
    await Deno.writeTextFile(`${dir}/good.txt`, "2 3 2\n0 0:1 2:1\n1 1:1\n");
    const state = `${dir}/state`;
    await expectRun(
      ["train", "--data", `${dir}/good.txt`, "--model", "br", "--state-dir", state, "--quiet"],
      0,
    );
    await expectRun(
      ["export", "--state-dir", state, "--out", `${file}/m.tsm`],
      2,
      /^tagstream export: --out .*plain\.txt\/m\.tsm: .*plain\.txt is not a directory$/,
    );
    await expectRun(
      ["export", "--state-dir", state, "--out", `${file}/a/m.tsm`],
      2,
      /^tagstream export: --out .*plain\.txt\/a\/m\.tsm: directory .*plain\.txt\/a cannot be used \(Not a directory\)$/,
    );
    await expectRun(
      ["export", "--state-dir", `${file}/state`, "--out", `${dir}/m.tsm`],
      2,
      /^tagstream export: --state-dir .*plain\.txt\/state: Not a directory$/,
    );
    await expectRun(
      ["train", "--data", `${file}/x.txt`, "--out", `${dir}/m.tsm`],
      2,
      /^tagstream train: --data .*plain\.txt\/x\.txt: Not a directory$/,
    );
    await expectRun(
      ["inspect", `${file}/m.tsm`],
      2,
      /^tagstream inspect: .*plain\.txt\/m\.tsm: cannot be read \(Not a directory\)$/,
    );
  });
});
