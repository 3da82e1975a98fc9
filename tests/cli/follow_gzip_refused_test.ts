/**
 * A gzip file "is read once, it cannot be followed" (README, "Data"), and `train` and `serve`
 * refuse "a path that cannot work" before they read any data. `--follow events.ndjson.gz` used to
 * log one error line and then wait (train) or serve on without that source (serve), learning
 * nothing from it: both now refuse it at once (exit 2), naming the flag and `train --data`, and
 * nothing is written.
 */
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

for (const command of ["train", "serve"]) {
  Deno.test(`${command} --follow refuses a gzip file instead of learning nothing from it`, async () => {
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
          command,
          "--follow",
          `${dir}/events.ndjson.gz`,
          "--state-dir",
          `${dir}/state`,
          ...(command === "serve" ? ["--port", "0"] : ["--quiet"]),
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
}
