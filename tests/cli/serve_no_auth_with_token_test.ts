// `serve --no-auth` while $TAGSTREAM_TOKEN is set (the README's first step exports it) is refused,
// naming both and the ways on. It used to be ignored: the service started and answered every
// request without the token with a 401, so a user who asked for no authentication got it anyway.
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

Deno.test("serve --no-auth with $TAGSTREAM_TOKEN set is refused before the state directory is made", async () => {
  await withTempDir(async (dir) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        MAIN,
        "serve",
        "--no-auth",
        "--port",
        "0",
        "--quiet",
        "--state-dir",
        `${dir}/s`,
      ],
      env: { NO_COLOR: "1", TAGSTREAM_TOKEN: "secret" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // a hang guard: a start that is not refused serves until killed
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const out = await child.output();
    clearTimeout(timer);
    const err = new TextDecoder().decode(out.stderr).trim();
    assertEquals(out.code, 2, err);
    assert(
      err.startsWith("tagstream serve: --no-auth has no effect while $TAGSTREAM_TOKEN is set"),
      err,
    );
    assert(err.includes("unset TAGSTREAM_TOKEN to run without authentication"), err);
    assertEquals(
      await Deno.stat(`${dir}/s`).catch(() => null),
      null,
      "the state directory was made",
    );
  });
});
