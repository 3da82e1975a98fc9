/**
 * scripts/redis_server.ts counts a server as started only when the process it started answers:
 * a port taken between choosing it and the server binding it (here on purpose: the port of a
 * running server) must not pass for ready because the other server answers PONG there.
 */
import { RedisClient } from "../../src/service/redis_client.ts";
import { hasRedisServer, startRedisServer } from "../../scripts/redis_server.ts";
import { assert } from "../helpers.ts";

Deno.test({
  name: "startRedisServer: another server answering on the chosen port is not taken for its own",
  ignore: !hasRedisServer(),
  async fn() {
    const first = await startRedisServer({ requirePass: "pw" });
    try {
      // the same password: AUTH and PING succeed on the first server's port
      const second = await startRedisServer({ requirePass: "pw", port: first.port });
      try {
        assert(second.port !== first.port, `both on port ${first.port}`);
        const a = await RedisClient.connect(first.url.replace("redis://", "redis://:pw@"));
        const b = await RedisClient.connect(second.url.replace("redis://", "redis://:pw@"));
        try {
          await a.command("SET", "who", "first");
          assert((await b.command("GET", "who")) === null, "the second server is the first");
        } finally {
          a.close();
          b.close();
        }
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  },
});
