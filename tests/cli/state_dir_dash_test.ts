/**
 * `serve --state-dir -` is refused (exit 2, naming the flag): it created a directory named '-' in
 * the working directory and served from it, while `-` reads as stdin elsewhere in the CLI.
 */
import { assert, assertEquals, withTempDir } from "./helpers.ts";

Deno.test("serve --state-dir - is refused, no directory '-' created", async () => {
  await withTempDir(async (dir) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        new URL("../../src/cli/main.ts", import.meta.url).pathname,
        "serve",
        "--no-auth",
        "--quiet",
        "--port",
        "0",
        "--state-dir",
        "-",
      ],
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
    assertEquals(out.code, 2, err);
    assert(/--state-dir - is not stdin/.test(err), err);
    assert(!(await Deno.stat(`${dir}/-`).then(() => true, () => false)), "created ./-");
  });
});
