// `tagstream serve --redis-reply-timeout-ms N`: how long a Redis server may stay silent before
// the connection is made again (`RedisSourceOptions.replyTimeoutMs`, default 10000). The flag
// reaches the Redis source's options; out of range (or not an integer) it is refused at once,
// exit 2 and one line naming the flag and its range; like the other Redis flags, it has no
// effect (and is refused) without --source.
import { parseFlags } from "../../src/cli/commands/args.ts";
import { SERVE_FLAGS, serviceOptionsFromFlags } from "../../src/cli/commands/serve_flags.ts";
import { checkRedisOptions } from "../../src/service/redis_source.ts";
import { assert, assertEquals, runServe } from "./helpers.ts";

const SOURCE = ["--source", "redis://127.0.0.1:1"];

Deno.test("serve --redis-reply-timeout-ms reaches the Redis source's options (default 10000)", async () => {
  const options = async (extra: string[]) => {
    const f = parseFlags("serve", ["--state-dir", "s", ...SOURCE, ...extra], SERVE_FLAGS);
    const redis = (await serviceOptionsFromFlags(f)).redis!;
    checkRedisOptions("serve", redis); // the service accepts what the flag gives
    return redis.replyTimeoutMs;
  };
  assertEquals(await options([]), 10000);
  assertEquals(await options(["--redis-reply-timeout-ms", "2500"]), 2500);
  assertEquals(await options(["--redis-reply-timeout-ms", "1"]), 1);
  assertEquals(await options(["--redis-reply-timeout-ms", "2147483647"]), 2147483647);
});

Deno.test("serve refuses an out-of-range --redis-reply-timeout-ms with one line naming the flag", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_reply_timeout_" });
  try {
    const range = "must be an integer in [1, 2147483647]";
    const cases: [string[], string][] = [
      [[...SOURCE, "--same-thread", "--redis-reply-timeout-ms", "0"], `${range}, got '0'`],
      [[...SOURCE, "--redis-reply-timeout-ms", "2147483648"], `${range}, got '2147483648'`],
      [[...SOURCE, "--same-thread", "--redis-reply-timeout-ms", "1.5"], `${range}, got '1.5'`],
      [
        ["--redis-reply-timeout-ms", "5000"],
        "has no effect without --source redis://HOST:PORT (it configures the Redis Stream source)",
      ],
    ];
    for (const [args, text] of cases) {
      const r = await runServe(dir, args);
      const what = args.join(" ");
      assertEquals(r.code, 2, `${what}: ${r.code === null ? "still serving" : r.stderr}`);
      const lines = r.stderr.trim().split("\n");
      assertEquals(lines.length, 1, `${what}: one line, got ${r.stderr}`);
      assert(lines[0].startsWith(`tagstream serve: --redis-reply-timeout-ms ${text}`), lines[0]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
