/**
 * The service under faults (issue 16): a full disk, damaged state files, growth limits, deep
 * JSON, slow and oversized bodies.
 */
import { LearningService } from "../../src/service/service.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { createApp } from "../../src/service/http_app.ts";
import { encodeCheckpoint } from "../../src/service/checkpoint.ts";
import { decodeCheckpoint } from "../../src/service/checkpoint.ts";

/** The write-ahead-log segment files of a state directory (names, increasing). */
async function segments(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dir}/wal`)) if (e.isFile) out.push(e.name);
  return out.sort();
}
import { setStorageFault } from "../../src/service/storage_faults.ts";
import { RedisClient } from "../../src/service/redis_client.ts";
import { startRedisServer } from "../../scripts/redis_server.ts";
import {
  assert,
  assertEquals,
  plantedEvents,
  serviceOptions,
  waitUntil,
  withTempDir,
} from "./helpers.ts";

const enc = new TextEncoder();

async function errorOf(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}

const post = (body: string) => ({ method: "POST", body });

Deno.test("disk full: /events answers 503 with Retry-After, applies nothing, /health says why; after it clears, 200 and durable", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, { checkpointSeconds: 0 }));
    await s.start();
    const app = createApp({ service: s });
    const ok = await app.request("/events", post(plantedEvents(4).join("\n")));
    assertEquals(ok.status, 200);
    let full = true;
    setStorageFault((_p, size) => full ? Math.floor(size / 2) : undefined);
    try {
      const r = await app.request("/events", post(plantedEvents(6, 100).join("\n")));
      assertEquals(r.status, 503);
      assertEquals(r.headers.get("retry-after"), "2");
      const j = await r.json();
      assert(
        /No space left on device/.test(j.error) && /nothing of this body/.test(j.error),
        j.error,
      );
      assertEquals(s.applied, 4);
      const h = await app.request("/health");
      assertEquals(h.status, 503);
      const hj = await h.json();
      assertEquals(hj.status, "degraded");
      assert(/write-ahead log: .*No space left/.test(hj.reason), hj.reason);
      // a checkpoint fails too, and leaves no temporary file and no empty segment behind
      const ck = await errorOf(() => s.checkpoint());
      assert(/No space left/.test(ck.message), ck.message);
      for await (const e of Deno.readDir(dir)) assert(!e.name.endsWith(".tmp"), e.name);
      for (const name of await segments(dir)) {
        assert((await Deno.stat(`${dir}/wal/${name}`)).size > 0, `empty segment ${name}`);
      }
      full = false;
      const again = await app.request("/events", post(plantedEvents(6, 100).join("\n")));
      assertEquals(again.status, 200);
      assertEquals((await again.json()).durable, true);
      assertEquals(s.applied, 10);
      await s.checkpoint();
      assertEquals((await app.request("/health")).status, 200);
    } finally {
      setStorageFault(undefined);
    }
    // as after kill -9: reopen without stopping
    const t = await LearningService.open(serviceOptions(dir));
    assertEquals(t.applied, 10);
    assertEquals(
      t.learner.idDigest,
      StreamLearner.digestOf(
        [...plantedEvents(4), ...plantedEvents(6, 100)].map((l) => JSON.parse(l).id),
      ),
    );
    await t.stop();
    await s.stop();
  });
});

/**
 * A full disk fails the checkpoints of a service reading a Redis stream (`checkpointSeconds`):
 * the source stops acknowledging, /health says why; once the disk has room, every entry is applied
 * and acknowledged within `waitMs`.
 */
async function redisPausedByFullDisk(
  key: string,
  checkpointSeconds: number,
  waitMs = 10000,
): Promise<void> {
  const server = await startRedisServer();
  const redis = await RedisClient.connect(server.url);
  try {
    await withTempDir(async (dir) => {
      const s = await LearningService.open(serviceOptions(dir, {
        checkpointEvery: 2,
        checkpointSeconds,
        redis: { url: server.url, key, group: "g", consumer: "c" },
      }));
      await s.start();
      let full = true;
      setStorageFault((_p, size) => full ? Math.floor(size / 2) : undefined);
      try {
        for (const l of plantedEvents(6)) await redis.xadd(key, { event: l });
        await waitUntil(() => s.applied >= 2 && !s.storage.ok, "a checkpoint failed");
        await new Promise((r) => setTimeout(r, 500));
        assertEquals(await redis.xpendingCount(key, "g") > 0, true);
        const h = await createApp({ service: s }).request("/health");
        assertEquals(h.status, 503);
        assert(/checkpoint: .*No space left/.test((await h.json()).reason), "health reason");
        full = false;
        await waitUntil(
          async () => s.applied === 6 && s.storage.ok && await redis.xpendingCount(key, "g") === 0,
          "all acknowledged once the disk has room",
          waitMs,
        );
      } finally {
        setStorageFault(undefined);
        await s.stop();
      }
    });
  } finally {
    redis.close();
    await server.stop();
  }
}

Deno.test("disk full: the Redis source stops acknowledging until a checkpoint succeeds", () =>
  redisPausedByFullDisk("faults:events", 0.2));

// Without the checkpoint timer (--checkpoint-seconds 0) nothing retried a failed checkpoint: the
// Redis source, paused while checkpoints fail, brought no event that could, so it stayed paused
// for good. The source's loop retries then, every second times the back-off.
Deno.test("disk full without the checkpoint timer: the Redis source resumes once a checkpoint succeeds", () =>
  // (the retries back off up to 16 s after failures: a bound, not a timing)
  redisPausedByFullDisk("faults:events:no-timer", 0, 40_000));

Deno.test("checkpoint bit flips refuse to start naming the file and offset; --repair sets it aside", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.ingestBody(plantedEvents(8).join("\n"), "http");
    await s.stop();
    const path = `${dir}/checkpoint.msgpack`;
    const b = await Deno.readFile(path);
    b[Math.floor(b.length / 2)] ^= 0x10;
    await Deno.writeFile(path, b);
    const e = await errorOf(() => LearningService.open(serviceOptions(dir)));
    assert(
      e.message.includes(path) && /damaged at byte 16: payload checksum mismatch/.test(e.message),
      e.message,
    );
    const logs: string[] = [];
    const r = await LearningService.open(serviceOptions(dir, {
      repair: true,
      log: (m) => logs.push(m),
    }));
    assertEquals(r.applied, 0);
    assert(r.repairReport?.checkpoint !== undefined, "reported");
    assert(logs.some((l) => l.includes("moved it to")), logs.join("\n"));
    await r.stop();
  });
});

Deno.test("an old checkpoint without checksum migrates; a damaged WAL refuses, --repair reports the loss", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, { checkpointEvery: 1 << 30 }));
    await s.start();
    await s.ingestBody(plantedEvents(8).join("\n"), "http");
    await s.checkpoint();
    await s.ingestBody(plantedEvents(4, 8).join("\n"), "http"); // in the log only
    // (kill -9 here) then rewrite the checkpoint in the old format
    const path = `${dir}/checkpoint.msgpack`;
    const ck = decodeCheckpoint(await Deno.readFile(path));
    const old = encodeCheckpoint(ck).subarray(16);
    await Deno.writeFile(path, old);
    const logs: string[] = [];
    const m = await LearningService.open(serviceOptions(dir, { log: (l) => logs.push(l) }));
    assertEquals(m.applied, 12);
    assert(logs.some((l) => l.includes("no checksum")), logs.join("\n"));
    // damage the log's second record
    const p = `${dir}/wal/${(await segments(dir)).at(-1)}`;
    const bytes = await Deno.readFile(p);
    const second = bytes.indexOf(10) + 1;
    bytes[bytes.indexOf(10, second) - 5] ^= 1; // in the features
    await Deno.writeFile(p, bytes);
    const e = await errorOf(() => LearningService.open(serviceOptions(dir)));
    assert(e.message.includes(`${p} at byte ${second}`), e.message);
    const r = await LearningService.open(serviceOptions(dir, { repair: true }));
    assertEquals(r.applied, 11);
    assertEquals(r.repairReport?.eventsLost, 1);
    assertEquals(r.repairReport?.wal[0].ids, ["e9"]);
    await r.start(); // checkpoints: the damage is gone
    await r.stop();
    const again = await LearningService.open(serviceOptions(dir));
    assertEquals(again.applied, 11);
    await again.stop();
  });
});

Deno.test("growth limits: a far feature index or too many new labels is a 400 naming the limit; nothing grows", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir, {
      growth: { maxFeatures: 5000, maxLabels: 8, maxFeatureGrowth: 1000, maxNewLabels: 3 },
    }));
    const app = createApp({ service: s });
    await s.ingestBody(plantedEvents(4).join("\n"), "http");
    const far = await app.request("/events", post('{"features":{"1048575":1},"labels":["a"]}'));
    assertEquals(far.status, 400);
    assert((await far.text()).includes("--max-features 5000"), "names --max-features");
    const wide = await app.request("/events", post('{"features":{"3000":1},"labels":["a"]}'));
    assertEquals(wide.status, 400);
    assert((await wide.text()).includes("--max-feature-growth 1000"), "names the growth limit");
    // the refused events' new label "a" was not kept
    const labels0 = s.learner.parser.labels.size;
    assertEquals(s.learner.parser.labels.names, ["t0", "t1", "t2", "t3"]);
    const many = await app.request(
      "/events",
      post('{"features":{"1":1},"labels":["n1","n2","n3","n4"]}'),
    );
    assertEquals(many.status, 400);
    assert((await many.text()).includes("--max-new-labels 3"), "names --max-new-labels");
    assertEquals(s.learner.parser.labels.size, labels0);
    const total = await app.request(
      "/events",
      post(
        '{"features":{"1":1},"labels":["n1","n2","n3"]}\n{"features":{"1":1},"labels":["n4"]}\n' +
          '{"features":{"1":1},"labels":["n5"]}',
      ),
    );
    assertEquals(total.status, 200);
    const j = await total.json();
    assertEquals([j.accepted, j.rejectedCount, j.rejected[0].line], [2, 1, 3], JSON.stringify(j));
    assert(j.rejected[0].reason.includes("--max-labels 8"), j.rejected[0].reason);
    assertEquals(s.learner.parser.labels.size, 8);
    s.learner.flush();
    assert(s.learner.estimator.numFeatures <= 1000, `${s.learner.estimator.numFeatures} columns`);
    await s.stop();
  });
});

Deno.test("deeply nested JSON is refused before parsing", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    const app = createApp({ service: s, publicRead: true });
    await s.ingestBody(plantedEvents(4).join("\n"), "http");
    const deep = '{"rows":' + "[".repeat(500000) + "]".repeat(500000) + "}";
    // refused before parsing: JSON.parse never sees the body (its depth is scanned first)
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = (...a: Parameters<typeof parse>) => (parsed++, parse(...a));
    let r: Response, parsedDeep: number;
    try {
      r = await app.request("/predict", post(deep));
      parsedDeep = parsed;
      // the spy sees the parse of a shallow body (two rows: not the one-row fast path)
      const rows = '{"rows":[{"indices":[1],"values":[1]},{"indices":[2],"values":[1]}],"k":1}';
      assertEquals((await app.request("/predict", post(rows))).status, 200);
    } finally {
      JSON.parse = parse;
    }
    assertEquals(r.status, 400);
    assert((await r.text()).includes("nested deeper than 4 levels"), "names the nesting");
    assert(parsedDeep === 0 && parsed > 0, `parsed ${parsedDeep} deep and ${parsed} bodies`);
    const ev = await app.request("/events", post('{"features":{"1":1},"labels":[[["a"]]]}'));
    assertEquals(ev.status, 400);
    assert((await ev.text()).includes("nested deeper than an event needs"), "event nesting");
    await s.stop();
  });
});

async function withServer(
  options: { bodyTimeoutMs?: number; maxInFlight?: number },
  fn: (port: number, started: () => number) => Promise<void>,
): Promise<void> {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    const app = createApp({ service: s, ...options });
    const ac = new AbortController();
    let started = 0; // requests handed to the app so far
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen() {} },
      (req) => (started++, app.fetch(req)),
    );
    try {
      await fn(server.addr.port, () => started);
    } finally {
      ac.abort();
      await server.finished;
      await s.stop();
    }
  });
}

async function readAll(c: Deno.Conn, ms: number): Promise<string> {
  const buf = new Uint8Array(65536);
  let out = "";
  const t = setTimeout(() => c.close(), ms);
  try {
    while (true) {
      const n = await c.read(buf);
      if (n === null) break;
      out += new TextDecoder().decode(buf.subarray(0, n));
      if (out.includes("\r\n\r\n") && out.includes("}")) break;
    }
  } catch {
    // closed
  } finally {
    clearTimeout(t);
  }
  return out;
}

/** Opens two requests whose bodies never finish (one by length, one chunked) to `port`. */
async function slowRequests(port: number): Promise<[Deno.TcpConn, Deno.TcpConn]> {
  const slow = await Deno.connect({ hostname: "127.0.0.1", port });
  await slow.write(enc.encode(
    "POST /events HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n{",
  ));
  const slow2 = await Deno.connect({ hostname: "127.0.0.1", port });
  await slow2.write(enc.encode(
    "POST /events HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n1\r\n{\r\n",
  ));
  return [slow, slow2];
}

function closeQuietly(c: Deno.Conn): void {
  try {
    c.close();
  } catch {
    // closed
  }
}

Deno.test("slow clients: a body that does not arrive in time gets a 408", async () => {
  await withServer({ bodyTimeoutMs: 300 }, async (port) => {
    const [slow, slow2] = await slowRequests(port);
    const answer = await readAll(slow, 15000);
    assert(answer.startsWith("HTTP/1.1 408"), answer);
    assert((await readAll(slow2, 15000)).startsWith("HTTP/1.1 408"), "chunked too");
    closeQuietly(slow);
    closeQuietly(slow2);
  });
});

Deno.test("slow clients: over the in-flight cap a 503", async () => {
  // The 503 needs both slow requests in flight: wait until both reached the app (not a fixed
  // 100 ms), with a body timeout far longer than the test, so that no 408 frees a slot before
  // the third request however slow or paused the machine is (with 1.5 s, a stall that long
  // let the 408s free both slots first); the client's closes end them.
  await withServer({ bodyTimeoutMs: 600_000, maxInFlight: 2 }, async (port, started) => {
    const [slow, slow2] = await slowRequests(port);
    try {
      await waitUntil(() => started() === 2, "both slow requests in the app");
      const busy = await fetch(`http://127.0.0.1:${port}/events`, post("{}\n"));
      assertEquals(busy.status, 503);
      assertEquals(busy.headers.get("retry-after"), "1");
      await busy.body?.cancel();
    } finally {
      closeQuietly(slow);
      closeQuietly(slow2);
    }
  });
});

Deno.test("a 20 MiB chunked body gets a readable 413", async () => {
  await withServer({}, async (port) => {
    const chunk = new Uint8Array(64 * 1024).fill(32);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= 20 << 20) return c.close();
        sent += chunk.length;
        c.enqueue(chunk);
      },
    });
    const r = await fetch(`http://127.0.0.1:${port}/events`, {
      method: "POST",
      body,
    });
    assertEquals(r.status, 413);
    assert((await r.text()).includes("larger than the limit of 8388608 bytes"), "readable");
  });
});
