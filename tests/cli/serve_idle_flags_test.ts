// `tagstream serve` refuses flags the run would ignore, as `train` does: the Redis source's flags
// (`--stream-key`, `--group`, `--consumer`, `--redis-ca-file`, `--redis-claim-idle-ms`) without
// `--source` (the service used to start on HTTP only, the flags unchecked: `--redis-claim-idle-ms
// abc` passed), `--redis-ca-file` with a `redis://` source (no TLS) and `--no-label-index` with
// `--same-thread`. Each case is a child process that must exit 2 at once, naming the flags; the
// old code started serving instead (killed here after a while).
import { assert, assertEquals, runServe } from "./helpers.ts";

Deno.test("serve refuses Redis flags without --source and other flags it would ignore", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_serve_idle_" });
  try {
    const cases: [string[], RegExp][] = [
      [
        ["--stream-key", "events"],
        /^tagstream serve: --stream-key has no effect without --source redis:\/\/HOST:PORT/,
      ],
      [
        ["--group", "g", "--redis-claim-idle-ms", "abc"],
        /^tagstream serve: --group, --redis-claim-idle-ms have no effect without --source/,
      ],
      [
        ["--same-thread", "--consumer", "c"],
        /^tagstream serve: --consumer has no effect without --source/,
      ],
      [
        ["--source", "redis://127.0.0.1:1", "--redis-ca-file", `${dir}/ca.pem`],
        /^tagstream serve: --redis-ca-file has no effect with a redis:\/\/ --source \(no TLS\)/,
      ],
      [
        ["--same-thread", "--no-label-index"],
        /^tagstream serve: --no-label-index has no effect with --same-thread/,
      ],
    ];
    for (const [args, re] of cases) {
      const r = await runServe(dir, args);
      assertEquals(r.code, 2, `${args.join(" ")}: ${r.code === null ? "still serving" : r.stderr}`);
      assert(re.test(r.stderr.trim()), `${args.join(" ")}: ${r.stderr}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
