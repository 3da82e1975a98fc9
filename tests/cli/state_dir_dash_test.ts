/**
 * `--state-dir -` is refused (exit 2, naming the flag) by the commands that keep a state
 * directory: `serve` created a directory named '-' in the working directory and served from it,
 * `train` learned into one, while `-` reads as stdin elsewhere in the CLI.
 */
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

Deno.test("serve and train refuse --state-dir -, no directory '-' created", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/d.txt`, "2 2 2\n0 0:1\n1 1:1\n");
    for (
      const args of [
        ["serve", "--no-auth", "--quiet", "--port", "0", "--state-dir", "-"],
        ["train", "--data", "d.txt", "--quiet", "--state-dir", "-"],
      ]
    ) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", MAIN, ...args],
        cwd: dir,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1", TAGSTREAM_TOKEN: "" },
      }).spawn();
      // a server that started is stopped (the old behaviour: it served from ./-)
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      const out = await child.output();
      clearTimeout(timer);
      const err = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 2, `${args[0]}: ${err}`);
      assert(new RegExp(`^tagstream ${args[0]}: --state-dir - is not stdin`).test(err), err);
      assert(!(await Deno.stat(`${dir}/-`).then(() => true, () => false)), `${args[0]}: ./-`);
    }
  });
});
