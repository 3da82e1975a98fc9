/**
 * Input hardening of the service: names that are not well-formed Unicode (a round trip through
 * a real `serve` process and a restart), integer labels beyond 2^53 − 1, growth-limit reasons
 * naming the flag, unknown fields counted in the `/events` answer and `/metrics`, compressed
 * bodies (415), malformed `Content-Length` answered as JSON by the TCP front, `HEAD` lengths and
 * a single `connection: close` on a 408.
 */
import { EventParser } from "../../src/service/events.ts";
import { createApp } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import { TcpFront } from "../../src/service/tcp_front.ts";
import { getJson, startService, waitFor } from "../../bench/service/harness.ts";
import { assert, assertEquals, serviceOptions, withTempDir } from "./helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * Writes `request` on a new connection to `port` and reads until the peer closes or the answer
 * is complete (or 30 s, a hang guard: a slow or paused machine must not end the wait for an
 * answer that its own timer, e.g. a 0.3 s body timeout, sends).
 */
async function rawExchange(port: number, request: string, boundMs = 30_000): Promise<string> {
  const c = await Deno.connect({ hostname: "127.0.0.1", port });
  await c.write(enc.encode(request));
  let out = "";
  const timer = setTimeout(() => {
    try {
      c.close();
    } catch { /* closed */ }
  }, boundMs);
  const buf = new Uint8Array(16384);
  try {
    while (true) {
      const n = await c.read(buf);
      if (n === null) break;
      out += dec.decode(buf.subarray(0, n));
      if (/\r\n\r\n/.test(out) && /content-length: (\d+)/i.test(out)) {
        const len = Number(/content-length: (\d+)/i.exec(out)![1]);
        if (enc.encode(out.slice(out.indexOf("\r\n\r\n") + 4)).length >= len) break;
      }
    }
  } catch { /* closed or reset */ }
  clearTimeout(timer);
  try {
    c.close();
  } catch { /* closed */ }
  return out;
}

/** `/metrics` once `n` events are learned (polled: a minibatch is learned after an idle wait). */
async function learned(url: string, n: number): Promise<Record<string, unknown>> {
  let m: Record<string, unknown> = {};
  await waitFor(async () => {
    m = await getJson(`${url}/metrics`);
    return (m.events as { learned: number }).learned >= n;
  }, `${n} events learned`);
  return m;
}

function bodyOf(response: string): string {
  return response.slice(response.indexOf("\r\n\r\n") + 4);
}

Deno.test({
  name: "serve: lone surrogates in names are rejected per line, good lines kept, restart works",
  async fn() {
    await withTempDir(async (dir) => {
      const args = ["--model", "ova", "--feature-keys", "name", "--publish-every", "0"];
      const post = (body: string) =>
        fetch(`${svc.url}/events`, { method: "POST", body }).then(async (r) => ({
          status: r.status,
          json: await r.json(),
        }));
      // JSON escapes: "\ud800" is a lone high surrogate, "\udc00" a lone low one
      const body = [
        String.raw`{"id":"s1","features":{"w\ud800":1,"plain":1},"labels":["x"]}`,
        String.raw`{"id":"s2","features":{"w":1},"labels":["y\udc00"]}`,
        String.raw`{"id":"g1","features":{"plain":1,"w\udc00\ud800":1},"labels":["z"]}`,
        String.raw`{"id":"g2","features":{"plain":1,"smile\ud83d\ude00":1},"labels":["x"]}`,
        String.raw`{"id":"g3","features":{"w":1},"labels":["y","\ud83d\ude00"]}`,
      ].join("\n");
      let svc = await startService({ stateDir: dir, args });
      try {
        const r = await post(body);
        assertEquals(r.status, 200);
        assertEquals([r.json.accepted, r.json.rejectedCount, r.json.durable], [2, 3, true]);
        const reasons = r.json.rejected as { line: number; reason: string }[];
        assertEquals(reasons.map((x) => x.line), [1, 2, 3]);
        assert(
          /^features: name .* is not well-formed Unicode/.test(reasons[0].reason),
          reasons[0].reason,
        );
        assert(reasons[0].reason.includes("code unit 1"), reasons[0].reason);
        assert(/^labels\[0\]: name .* is not well-formed Unicode/.test(reasons[1].reason));
        assert(reasons[2].reason.includes("code unit 1"), reasons[2].reason);
        // the label and feature spaces grow when the minibatch is learned (after --flush-ms
        // idle, or at the restart's replay): compare them once both events are learned
        const before = await learned(svc.url, 2);
        assertEquals([before.numLabels, before.numFeatures], [3, 3]);
        assertEquals(await svc.stop(), 0);
        svc = await startService({ stateDir: dir, args });
        const after = await learned(svc.url, 2);
        assertEquals(
          [after.numLabels, after.numFeatures, (after.events as { applied: number }).applied],
          [before.numLabels, before.numFeatures, 2],
        );
        const again = await post(String.raw`{"id":"g4","features":{"w":1},"labels":["x"]}`);
        assertEquals([again.status, again.json.accepted], [200, 1]);
        assertEquals(await svc.stop(), 0);
        svc = await startService({ stateDir: dir, args });
        assertEquals(
          ((await getJson(`${svc.url}/metrics`)).events as { applied: number }).applied,
          3,
        );
        assertEquals(await svc.stop(), 0);
      } finally {
        await svc.kill9().catch(() => {});
      }
    });
  },
});

Deno.test("labels: integers must be safe (up to 2^53 - 1), strings well-formed", () => {
  const p = new EventParser();
  const reason = (labels: string) => {
    const r = p.parseLine(`{"features": {"1": 1}, "labels": ${labels}}`);
    return r.ok ? "accepted" : r.reason;
  };
  for (const big of ["99999999999999999999", "1e300", "9007199254740993", "9007199254740992"]) {
    const m = reason(`["a", ${big}]`);
    assert(m.startsWith("labels[1]: integer label "), m);
    assert(m.includes(String(Number.MAX_SAFE_INTEGER)), m);
  }
  assertEquals(reason(`[${Number.MAX_SAFE_INTEGER}]`), "accepted");
  assert(p.labels.names.includes(String(Number.MAX_SAFE_INTEGER)));
  assert(!p.labels.names.some((n) => /e\+|^1e|9007199254740992/.test(n)), p.labels.names.join());
  const neg = p.parseLine(`{"features": {"1": 1}, "labels": ["a"], "negatives": ["b\\ud800"]}`);
  assert(!neg.ok && neg.reason.startsWith("negatives[0]: name"), JSON.stringify(neg));
  const size = p.labels.size;
  assertEquals(reason(`["new", "x\\udfff"]`).startsWith("labels[1]: "), true);
  assertEquals(p.labels.size, size, "a rejected line adds no label");
});

Deno.test("growth limits equal to the parser's caps: the reason names the flag", () => {
  const limits = { maxLabels: 20, maxNewLabels: 5, maxFeatures: 100, maxFeatureGrowth: 50 };
  // index keys: the parser's width is the same --max-features
  const p = new EventParser([], [], { featureKeys: "index", maxFeatures: 100, maxLabels: 20 });
  p.setGrowthLimits(limits, 0);
  const line = (f: number, labels: string[]) =>
    p.parseLine(JSON.stringify({ features: { [f]: 1 }, labels }));
  const r = line(100, ["a"]);
  assert(!r.ok && r.reason.includes("--max-features 100"), JSON.stringify(r));
  assert(r.reason.includes("feature index 100"), r.reason);
  for (let i = 0; i < 4; i++) {
    const labels = Array.from({ length: 5 }, (_, j) => `l${i * 5 + j}`);
    assert(line(1, labels).ok, `batch ${i}`);
  }
  assertEquals(p.labels.size, 20);
  const full = line(1, ["one-more"]);
  assert(!full.ok && full.reason.includes("--max-labels 20"), JSON.stringify(full));
  // named features, vocabulary capped at the same --max-features
  const q = new EventParser([], [], { featureKeys: "name", maxFeatures: 3 });
  q.setGrowthLimits({ maxFeatures: 3 });
  assert(q.parseLine('{"features": {"a": 1, "b": 1, "c": 1}, "labels": []}').ok);
  const f = q.parseLine('{"features": {"d": 1}, "labels": []}');
  assert(!f.ok && f.reason.includes("--max-features 3"), JSON.stringify(f));
});

async function withApp(
  fn: (app: ReturnType<typeof createApp>, s: LearningService) => Promise<void>,
  bodyTimeoutMs?: number,
): Promise<void> {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    try {
      await fn(createApp({ service: s, maxBodyBytes: 1 << 20, bodyTimeoutMs }), s);
    } finally {
      await s.stop();
    }
  });
}

Deno.test("unknown fields: counted in the /events answer and in /metrics (JSON, Prometheus)", async () => {
  await withApp(async (app) => {
    const body = [
      '{"ts": 1, "user": "u1", "features": {"0": 1}, "labels": ["a"]}',
      '{"features": {"1": 1}, "labels": ["b"]}',
      '{"ts": 2, "features": {"2": 1}, "labels": ["a"]}',
    ].join("\n");
    const res = await app.request("/events", { method: "POST", body });
    const j = await res.json();
    assertEquals([res.status, j.accepted, j.ignoredFields], [200, 3, 3]);
    const plain = await (await app.request("/events", {
      method: "POST",
      body: '{"features": {"0": 1}, "labels": ["a"]}',
    })).json();
    assertEquals(plain.ignoredFields, 0);
    const m = await (await app.request("/metrics")).json();
    assertEquals(m.events.ignoredFields, 3);
    assertEquals(m.ignoredFieldNames, [{ field: "ts", count: 2 }, { field: "user", count: 1 }]);
    const text = await (await app.request("/metrics?format=prometheus")).text();
    assert(/^tagstream_events_ignored_fields 3$/m.test(text), text);
  });
});

Deno.test("a compressed body is answered 415 naming its encoding; identity is read", async () => {
  await withApp(async (app, s) => {
    const line = enc.encode('{"features": {"0": 1}, "labels": ["a"]}\n');
    const gz = new Uint8Array(
      await new Response(new Blob([line]).stream().pipeThrough(new CompressionStream("gzip")))
        .arrayBuffer(),
    );
    for (const path of ["/events", "/predict"]) {
      const res = await app.request(path, {
        method: "POST",
        body: gz,
        headers: { "content-encoding": "gzip" },
      });
      const j = await res.json();
      assertEquals(res.status, 415, path);
      assert(/Content-Encoding "gzip"/.test(j.error) && j.error.includes(path), j.error);
    }
    assertEquals(s.applied, 0);
    const ok = await app.request("/events", {
      method: "POST",
      body: line,
      headers: { "content-encoding": "identity" },
    });
    assertEquals([ok.status, (await ok.json()).accepted], [200, 1]);
  });
});

Deno.test("HEAD /health and /metrics carry the GET answer's content-length", async () => {
  await withApp(async (app) => {
    for (const path of ["/health", "/metrics?format=json"]) {
      const get = await app.request(path);
      const n = (await get.arrayBuffer()).byteLength;
      const head = await app.request(path, { method: "HEAD" });
      assertEquals(head.status, get.status, path);
      // /metrics changes between the two requests (uptime, memory): about the same length
      const length = Number(head.headers.get("content-length"));
      assert(
        length > 0 && Math.abs(length - n) <= (path === "/health" ? 0 : 64),
        `${path}: ${length} vs ${n}`,
      );
      assertEquals(head.headers.get("content-type"), get.headers.get("content-type"), path);
      assertEquals((await head.arrayBuffer()).byteLength, 0, path);
    }
  });
});

Deno.test("a 408 for a slow body says connection: close once", async () => {
  await withApp(async (app) => {
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
    try {
      const answer = await rawExchange(
        server.addr.port,
        "POST /events HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{",
      );
      assert(answer.startsWith("HTTP/1.1 408"), answer);
      assertEquals(answer.match(/^connection: close\r$/gim)?.length, 1, answer);
    } finally {
      await server.shutdown();
    }
  }, 300);
});

Deno.test("front: a malformed or conflicting Content-Length is answered 400 with a JSON error", async () => {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    async (req) => new Response(`${(await req.arrayBuffer()).byteLength}`),
  );
  for (const headerTimeoutMs of [10000, 0]) {
    const front = TcpFront.listen({
      port: 0,
      backend: { hostname: "127.0.0.1", port: server.addr.port },
      headerTimeoutMs,
      maxConnections: 16,
    });
    try {
      const cases: [string, RegExp][] = [
        ["content-length: 99999999999999999999\r\n", /"99999999999999999999".*2\^64/],
        ["content-length: -5\r\n", /"-5".*non-negative integer/],
        ["content-length: 5\r\ncontent-length: 7\r\n", /conflicting Content-Length.*5 and 7/],
      ];
      for (const [headers, expected] of cases) {
        const answer = await rawExchange(
          front.addr.port,
          `POST /events HTTP/1.1\r\nhost: x\r\n${headers}\r\nabcde`,
        );
        assert(answer.startsWith("HTTP/1.1 400 "), answer);
        const j = JSON.parse(bodyOf(answer));
        assert(expected.test(j.error), `${headers}: ${j.error}`);
      }
      // well-formed lengths still pass (equal repeated values too)
      const ok = await rawExchange(
        front.addr.port,
        "POST /x HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ncontent-length: 5\r\nconnection: close\r\n\r\nabcde",
      );
      assert(ok.startsWith("HTTP/1.1 200 ") && bodyOf(ok) === "5", ok);
    } finally {
      await front.close();
    }
  }
  await server.shutdown();
});
