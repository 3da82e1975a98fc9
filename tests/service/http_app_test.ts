import { createApp } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

type App = ReturnType<typeof createApp>;

async function withApp(
  fn: (app: App, s: LearningService) => Promise<void>,
  publicRead = false,
): Promise<void> {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    try {
      await fn(createApp({ service: s, token: "tok", maxBodyBytes: 4096, publicRead }), s);
    } finally {
      await s.stop();
    }
  });
}

const auth = { authorization: "Bearer tok" };

async function call(app: App, method: string, path: string, body?: string, headers = auth) {
  const res = await app.request(path, { method, body, headers });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = { raw: text };
  }
  return { status: res.status, json, headers: res.headers };
}

Deno.test("POST /events: all good 200, mixed 200 with line numbers, all bad 400", async () => {
  await withApp(async (app, s) => {
    const good = plantedEvents(3);
    let r = await call(app, "POST", "/events", good.join("\n") + "\n");
    assertEquals([r.status, r.json.accepted, r.json.rejectedCount], [200, 3, 0]);
    r = await call(app, "POST", "/events", `${good[0]}\nnope\n${good[1]}`);
    assertEquals([r.status, r.json.accepted], [200, 2]);
    assertEquals((r.json.rejected as { line: number }[]).map((x) => x.line), [2]);
    r = await call(app, "POST", "/events", "nope\n[]\n");
    assertEquals([r.status, r.json.accepted, r.json.rejectedCount], [400, 0, 2]);
    // good[0] and good[1] were sent again: acknowledged, not applied again (idempotent by id)
    assertEquals([s.learner.applied, s.learner.duplicates], [3, 2]);
  });
});

Deno.test("auth: missing, malformed and wrong tokens are 401; /health is open", async () => {
  await withApp(async (app, s) => {
    const body = plantedEvents(1)[0];
    const bad = [{}, { authorization: "tok" }, { authorization: "Bearer nope" }, {
      authorization: "Bearer tok2",
    }, { authorization: "Bearer to" }];
    // /predict has its own route (before Hono's router): the same answers
    for (const [path, b] of [["/events", body], ["/predict", '{"features": {}}']]) {
      for (const headers of bad) {
        const r = await call(app, "POST", path, b, headers as typeof auth);
        assertEquals(r.status, 401, `${path} ${JSON.stringify(headers)}`);
        assert(typeof r.json.error === "string" && r.json.error.length > 0);
        assertEquals(r.headers.get("www-authenticate"), 'Bearer realm="tagstream"');
        assertEquals(r.headers.get("content-type"), "application/json");
      }
    }
    const ok = await call(app, "POST", "/predict?trace=1", '{"features": {}}', {
      authorization: "bearer   tok ",
    });
    assertEquals([ok.status, ok.headers.get("content-type")], [200, "application/json"]);
    for (const [method, path] of [["GET", "/predict"], ["POST", "/predict/"]]) {
      assertEquals(
        (await call(app, method, path, method === "GET" ? undefined : "{}")).status,
        404,
      );
    }
    assertEquals((await call(app, "GET", "/metrics", undefined, {} as typeof auth)).status, 401);
    assertEquals(
      (await call(app, "GET", "/health", undefined, {} as typeof auth)).json.status,
      "ok",
    );
    assertEquals(s.learner.applied, 0);
  });
});

Deno.test("--public-read opens the read endpoints but not /events", async () => {
  await withApp(async (app) => {
    const none = {} as typeof auth;
    assertEquals((await call(app, "GET", "/metrics", undefined, none)).status, 200);
    assertEquals((await call(app, "POST", "/predict", '{"features": {}}', none)).status, 200);
    assertEquals((await call(app, "POST", "/events", plantedEvents(1)[0], none)).status, 401);
  }, true);
});

Deno.test("bodies over the limit are 413 and nothing of them is applied", async () => {
  await withApp(async (app, s) => {
    const big = plantedEvents(100).join("\n");
    assert(big.length > 4096);
    const r = await call(app, "POST", "/events", big);
    assertEquals(r.status, 413);
    assert(String(r.json.error).includes("4096"));
    assertEquals(s.learner.applied, 0);
    // streamed without a length
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode(big.slice(0, 1000)));
        c.close();
      },
    });
    const res = await app.request("/events", { method: "POST", body: stream, headers: auth });
    assertEquals(res.status, 413);
    await res.body?.cancel();
  });
});

Deno.test("POST /predict: one row, many rows, and clear 400s", async () => {
  await withApp(async (app, s) => {
    await s.ingestBody(Array(20).fill(plantedEvents(50).join("\n")).join("\n"), "http");
    s.learner.flush();
    let r = await call(app, "POST", "/predict", '{"features": {"3": 1, "10": 0.5}, "k": 2}');
    assertEquals(r.status, 200);
    assertEquals((r.json.labels as string[])[0], "t3");
    assertEquals((r.json.scores as number[]).length, 2);
    r = await call(
      app,
      "POST",
      "/predict",
      '{"rows": [{"features": {"1": 1}}, {"features": {"2": 1}}]}',
    );
    assertEquals((r.json.results as { labels: string[] }[]).map((x) => x.labels[0]), ["t1", "t2"]);
    const bad: [string, string][] = [
      ["{", "malformed JSON"],
      ["[]", "JSON object"],
      ['{"features": {"1": 1}, "k": 0}', "'k'"],
      ['{"features": {"1": 1}, "what": 1}', "unknown field"],
      ['{"rows": [{"features": {"x": 1}}]}', "rows[0]"],
      ['{"rows": {}}', "array"],
      ['{"features": {"1": 1}, "rows": []}', "not both"],
      ["{}", "required"],
    ];
    for (const [body, text] of bad) {
      const b = await call(app, "POST", "/predict", body);
      assertEquals(b.status, 400, body);
      assert(String(b.json.error).includes(text), `${body}: ${b.json.error}`);
    }
  });
});

Deno.test("POST /predict: the compact form answers like the features form", async () => {
  await withApp(async (app, s) => {
    await s.ingestBody(Array(20).fill(plantedEvents(50).join("\n")).join("\n"), "http");
    s.learner.flush();
    const full = await call(app, "POST", "/predict", '{"features": {"3": 1, "10": 0.5}, "k": 3}');
    // any order; an index beyond the model's features is dropped, as in the features form
    const compact = await call(
      app,
      "POST",
      "/predict",
      '{"indices": [10, 3, 999999], "values": [0.5, 1, 2], "k": 3}',
    );
    assertEquals(compact.status, 200);
    assertEquals([compact.json.labels, compact.json.scores], [full.json.labels, full.json.scores]);
    const binary = await call(app, "POST", "/predict", '{"indices": [3, 10]}');
    const ones = await call(app, "POST", "/predict", '{"features": {"3": 1, "10": 1}}');
    assertEquals([binary.json.labels, binary.json.scores], [ones.json.labels, ones.json.scores]);
    const rows = await call(
      app,
      "POST",
      "/predict",
      '{"rows": [{"indices": [1]}, {"features": {"2": 1}}], "k": 1}',
    );
    assertEquals((rows.json.results as { labels: string[] }[]).map((x) => x.labels[0]), [
      "t1",
      "t2",
    ]);
    const bad: [string, string][] = [
      ['{"indices": [1, 1]}', "listed twice"],
      ['{"indices": [1, -2]}', "indices[1]"],
      ['{"indices": [1.5]}', "indices[0]"],
      ['{"indices": "1"}', "'indices' must be an array"],
      ['{"indices": [1, 2], "values": [1]}', "as long as 'indices'"],
      ['{"indices": [1], "values": ["x"]}', "values[0]"],
      ['{"values": [1]}', "needs 'indices'"],
      ['{"indices": [1], "features": {"1": 1}}', "either"],
      ['{"rows": [{"indices": [1], "k": 2}]}', "rows[0]: unknown field"],
    ];
    for (const [body, text] of bad) {
      const b = await call(app, "POST", "/predict", body);
      assertEquals(b.status, 400, body);
      assert(String(b.json.error).includes(text), `${body}: ${b.json.error}`);
    }
  });
});

Deno.test("GET /model: 404 before publishing, then the file with ETag, 304 when unchanged", async () => {
  await withApp(async (app, s) => {
    assertEquals((await call(app, "GET", "/model")).status, 404);
    assertEquals((await call(app, "POST", "/publish")).status, 400, "nothing to publish yet");
    await s.ingestBody(plantedEvents(10).join("\n"), "http");
    const p = await call(app, "POST", "/publish");
    assertEquals([p.status, p.json.version], [200, 1]);
    const res = await app.request("/model", { headers: auth });
    const etag = res.headers.get("etag")!;
    assertEquals([res.status, res.headers.get("x-model-version")], [200, "1"]);
    assertEquals(new Uint8Array(await res.arrayBuffer()).length, s.published!.bytes.length);
    const again = await app.request("/model", { headers: { ...auth, "if-none-match": etag } });
    assertEquals([again.status, again.headers.get("etag")], [304, etag]);
    await s.publish();
    const newer = await app.request("/model", { headers: { ...auth, "if-none-match": etag } });
    assertEquals([newer.status, newer.headers.get("x-model-version")], [200, "2"]);
    await newer.body?.cancel();
  });
});

Deno.test("GET /metrics reports counts, rejects, prequential precision and the model version", async () => {
  await withApp(async (app, s) => {
    await s.ingestBody(plantedEvents(8).join("\n") + "\n{bad\n", "http");
    const m = (await call(app, "GET", "/metrics")).json;
    assertEquals(m.events, { applied: 8, learned: 8, queued: 0, rejected: 1, ignoredFields: 0 });
    const pq = m.prequential as Record<string, unknown>;
    assertEquals(pq.window, 8);
    assert(typeof pq["P@1"] === "number" && typeof pq["P@5"] === "number");
    assertEquals((m.lastRejects as { line: number }[])[0].line, 9);
    assertEquals(m.modelVersion, 0);
    assertEquals((await call(app, "GET", "/nowhere")).status, 404);
  });
});
