import { parseRedisUrl, RedisClient } from "../../src/service/redis_client.ts";
import { RedisStreamSource } from "../../src/service/redis_source.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";

function assertEquals(a: unknown, b: unknown, msg = ""): void {
  const sa = JSON.stringify(a), sb = JSON.stringify(b);
  if (sa !== sb) throw new Error(`${msg} expected ${sb}, got ${sa}`);
}

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected a rejection");
}

Deno.test("parseRedisUrl reads user, password (percent-decoded) and rediss://", () => {
  const o = parseRedisUrl("redis://bob:p%40ss@127.0.0.1:7000/3");
  assertEquals([o.username, o.password, o.port, o.db, o.tls], ["bob", "p@ss", 7000, 3, false]);
  const legacy = parseRedisUrl("rediss://:only@localhost");
  assertEquals([legacy.username, legacy.password, legacy.tls], [undefined, "only", true]);
  let msg = "";
  try {
    parseRedisUrl("redis://bob:topsecret@host/notadb");
  } catch (e) {
    msg = (e as Error).message;
  }
  if (!msg.includes("redis://bob:***@host/notadb") || msg.includes("topsecret")) {
    throw new Error(`unexpected: ${msg}`);
  }
});

Deno.test({
  name: "RedisClient AUTH: legacy and ACL forms against redis-server --requirepass",
  async fn() {
    const server = await startRedisServer({ requirePass: "s3cret" });
    const url = (auth: string) => server.url.replace("redis://", `redis://${auth}@`);
    const clients: RedisClient[] = [];
    try {
      // Without a password the server refuses commands.
      const anon = await RedisClient.connect(server.url);
      clients.push(anon);
      const noauth = await errorOf(anon.command("PING"));
      if (!noauth.includes("NOAUTH")) throw new Error(`unexpected: ${noauth}`);
      // Legacy form: AUTH <password>.
      const legacy = await RedisClient.connect(url(":s3cret"));
      clients.push(legacy);
      assertEquals(await legacy.command("PING"), "PONG");
      assertEquals(await legacy.command("ACL", "WHOAMI"), "default");
      // Redis 6 ACL form: AUTH <user> <password>.
      await legacy.command("ACL", "SETUSER", "bob", "on", ">b0b pw", "~*", "&*", "+@all");
      const bob = await RedisClient.connect(url("bob:b0b%20pw"));
      clients.push(bob);
      assertEquals(await bob.command("ACL", "WHOAMI"), "bob");
      // With a database: AUTH comes before SELECT.
      const db2 = await RedisClient.connect(url(":s3cret") + "/2");
      clients.push(db2);
      await db2.command("SET", "k", "v");
      assertEquals(await legacy.command("GET", "k"), null);
      // A wrong password: a clear error naming the URL without the password.
      for (const auth of [":wrongpw", "bob:wrongpw"]) {
        const msg = await errorOf(RedisClient.connect(url(auth)));
        const shown = `redis://${auth.split(":")[0]}:***@127.0.0.1:${server.port}`;
        if (!msg.startsWith(`Cannot authenticate to Redis at ${shown}:`)) {
          throw new Error(`unexpected: ${msg}`);
        }
        if (!msg.includes("WRONGPASS") || msg.includes("wrongpw")) {
          throw new Error(`unexpected: ${msg}`);
        }
      }
      // The stream source authenticates both of its connections.
      const src = await RedisStreamSource.connect({ url: url("bob:b0b%20pw"), key: "ev" });
      try {
        await legacy.xadd("ev", { event: "{}" });
        assertEquals((await src.read()).length, 1);
        assertEquals(await src.pending(), 1);
      } finally {
        src.close();
      }
    } finally {
      for (const c of clients) c.close();
      await server.stop();
    }
  },
});
