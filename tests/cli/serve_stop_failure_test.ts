// `tagstream serve` that cannot listen stops the service it opened, which writes a checkpoint.
// The listen error is the one reported; a stop that failed too was swallowed without a word (the
// state directory had not taken its checkpoint, and the user was not told). Now it is a note on
// stderr beside the error, naming the file, in both modes (learner thread, --same-thread).
//
// The state directory is made to refuse the checkpoint with a directory where its temporary copy
// goes (`checkpoint.msgpack.tmp`): a write there fails whoever runs the test (root too).
import { assert, runDenoScript } from "./helpers.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

for (
  const [name, mode] of [["learner thread", []], ["--same-thread", ["--same-thread"]]] as const
) {
  Deno.test(`serve (${name}): a failed stop after a failed listen is a note`, async () => {
    const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const dir = await Deno.makeTempDir({ prefix: "tagstream_serve_stop_" });
    try {
      await Deno.mkdir(`${dir}/checkpoint.msgpack.tmp`);
      const port = (busy.addr as Deno.NetAddr).port;
      const r = await runDenoScript(MAIN, ["--allow-all"], [
        "serve",
        "--model",
        "popularity",
        "--no-auth",
        "--quiet",
        ...mode,
        "--state-dir",
        dir,
        "--port",
        String(port),
      ]);
      assert(r.code === 1, `exit ${r.code}: ${r.stderr}`);
      const lines = r.stderr.trim().split("\n");
      const error = lines.filter((l) => !l.startsWith("[tagstream]"));
      assert(error.length === 1, `not one error line: ${r.stderr}`);
      assert(error[0].includes(`port ${port} on 127.0.0.1 is already in use`), error[0]);
      assert(
        lines.some((l) =>
          l.startsWith("[tagstream] also, stopping the service failed: ") &&
          l.includes(`${dir}/checkpoint.msgpack.tmp`)
        ),
        `no note of the failed stop: ${r.stderr}`,
      );
    } finally {
      busy.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
