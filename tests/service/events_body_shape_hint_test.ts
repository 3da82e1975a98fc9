// A POST /events body that is not NDJSON at all — events joined on one line (what `curl -d
// @events.ndjson` sends: it strips the file's newlines), a JSON array of events, a pretty-printed
// event — gets a reason that says so and how to send it. Before, the README's 3000 events sent
// with `curl -d` were refused as one line longer than 65536 bytes "(--max-line-bytes raises
// it)", which sent the user to raise the wrong limit.
import { Hono } from "hono";
import { ingestRoutes } from "../../src/service/http/ingest_routes.ts";
import { bearerAuth } from "../../src/service/http/auth_middleware.ts";
import { errorResponse } from "../../src/service/http/errors.ts";
import { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, eventLine, serviceOptions, withTempDir } from "./helpers.ts";

type Answer = { accepted: number; rejected: { line: number; reason: string }[] };

async function withApp(fn: (post: (body: string) => Promise<[number, Answer]>) => Promise<void>) {
  await withTempDir(async (dir) => {
    const service = await LearningService.open(serviceOptions(dir));
    const app = new Hono().onError((e) => errorResponse(e));
    app.route(
      "/",
      ingestRoutes(service, {
        auth: bearerAuth(undefined),
        maxBodyBytes: 8 << 20,
        bodyTimeoutMs: 30000,
      }),
    );
    try {
      await fn(async (body) => {
        const res = await app.request("/events", { method: "POST", body });
        return [res.status, await res.json() as Answer];
      });
    } finally {
      await service.stop();
    }
  });
}

/** `n` events with 120 features each (about 1.3 kB a line). */
function wideEvents(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const features: Record<string, number> = {};
    for (let j = 0; j < 120; j++) features[String((i * 7 + j) % 1000)] = 1;
    return eventLine(`w${i}`, features, [`t${i % 5}`, "a}{b"]);
  });
}

Deno.test("POST /events: events joined on one line (curl -d) are told to use --data-binary", async () => {
  await withApp(async (post) => {
    // short: a malformed-JSON reason; long (over 65536 bytes): the line-length reason
    for (const events of [wideEvents(3), wideEvents(60)]) {
      const [status, a] = await post(events.join(""));
      assertEquals([status, a.accepted, a.rejected.length], [400, 0, 1]);
      assert(
        a.rejected[0].reason.includes("one line holding several JSON objects"),
        a.rejected[0].reason,
      );
      assert(a.rejected[0].reason.includes("--data-binary @FILE"), a.rejected[0].reason);
    }
    // blanks between the objects, as `curl -d` leaves none but an editor might
    const [, spaced] = await post(wideEvents(2).join("  "));
    assert(spaced.rejected[0].reason.includes("--data-binary"), spaced.rejected[0].reason);
  });
});

Deno.test("POST /events: a JSON array or a pretty-printed event is told that NDJSON is one event a line", async () => {
  await withApp(async (post) => {
    const events = wideEvents(2).map((l) => JSON.parse(l));
    const [s1, array] = await post(JSON.stringify(events));
    assertEquals(s1, 400);
    assert(array.rejected[0].reason.includes("the body is a JSON array"), array.rejected[0].reason);
    const [s2, pretty] = await post(JSON.stringify(events[0], null, 2));
    assertEquals(s2, 400);
    assert(pretty.rejected[0].reason.includes("pretty-printed"), pretty.rejected[0].reason);
    assertEquals(pretty.rejected.slice(1).filter((r) => r.reason.includes("pretty")), []);
  });
});

Deno.test("POST /events: other rejected bodies keep their reasons as they are", async () => {
  await withApp(async (post) => {
    const cases = [
      // one bad event, whose label holds "}{" (inside a string: not two objects)
      '{"features": {"0": "x"}, "labels": ["a}{b"]}',
      // two bad lines of NDJSON
      '{"features": {"0": "x"}, "labels": []}\n{"labels": []}\n',
      "hello",
    ];
    for (const body of cases) {
      const [status, a] = await post(body);
      assertEquals(status, 400, body);
      for (const r of a.rejected) {
        assert(!/several JSON objects|JSON array|pretty-printed/.test(r.reason), r.reason);
      }
    }
    // NDJSON with a good line: accepted, no hint
    const [ok, good] = await post(`${wideEvents(1)[0]}\n{"labels": []}\n`);
    assertEquals([ok, good.accepted], [200, 1]);
    assert(!good.rejected[0].reason.includes("NDJSON"), good.rejected[0].reason);
  });
});
