/**
 * A gzip file "is read once, it cannot be followed" (README, "Data"), and `train` "refuses ... a
 * path that cannot work" before it reads any data. `train --follow events.ndjson.gz` used to log
 * one error line and then wait, learning nothing, until it was interrupted: it is now refused at
 * once (exit 2), naming the flag and `--data`, and nothing is written.
 */
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

Deno.test("train --follow refuses a gzip file instead of waiting on it", async () => {
  await withTempDir(async (dir) => {
    const events = '{"features":{"0":1},"labels":["a"]}\n'.repeat(5);
    const gz = new Response(
      new Blob([events]).stream().pipeThrough(new CompressionStream("gzip")),
    );
    await Deno.writeFile(`${dir}/events.ndjson.gz`, new Uint8Array(await gz.arrayBuffer()));
    // a liveness guard, not a timing check: the old code never exited by itself
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        MAIN,
        "train",
        "--follow",
        `${dir}/events.ndjson.gz`,
        "--state-dir",
        `${dir}/state`,
        "--quiet",
      ],
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
      signal: AbortSignal.timeout(60_000),
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 2, err);
    assert(/--follow .*events\.ndjson\.gz.*gzip/.test(err) && /--data/.test(err), err);
    assertEquals(new TextDecoder().decode(out.stdout), "");
    let stateMade = true;
    await Deno.stat(`${dir}/state`).catch(() => stateMade = false);
    assert(!stateMade, "a state directory was created");
  });
});
