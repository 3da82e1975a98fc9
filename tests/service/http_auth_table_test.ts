/**
 * Authentication of every route of the HTTP app, as a table: each route × {no token, a header
 * that is not `Bearer <token>`, a wrong token, the right token}, with and without `publicRead`.
 * A refused request is a 401 with the reason, `WWW-Authenticate: Bearer realm="tagstream"` and
 * a JSON body; an accepted one gets the route's own answer; open routes and unknown routes never
 * look at the token.
 */
import { createApp } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

type Access = "write" | "read" | "open";

/** Every route of the app, with a body it accepts and the status it answers when let through. */
const ROUTES: { method: string; path: string; body?: string; access: Access; ok: number }[] = [
  { method: "GET", path: "/health", access: "open", ok: 200 },
  { method: "GET", path: "/schema/predict.json", access: "open", ok: 200 },
  { method: "POST", path: "/events", body: plantedEvents(1, 50)[0], access: "write", ok: 200 },
  { method: "POST", path: "/predict", body: '{"features": {"1": 1}}', access: "read", ok: 200 },
  { method: "GET", path: "/metrics", access: "read", ok: 200 },
  { method: "GET", path: "/model", access: "read", ok: 200 },
  { method: "POST", path: "/checkpoint", access: "write", ok: 200 },
  { method: "POST", path: "/publish", access: "write", ok: 200 },
  // no such route: a 404 before any authentication
  { method: "GET", path: "/events", access: "open", ok: 404 },
  { method: "GET", path: "/nope", access: "open", ok: 404 },
];

/** The Authorization headers tried, with the reason of the 401 when the route needs the token. */
const CALLERS: { name: string; headers: Record<string, string>; error?: string }[] = [
  { name: "no token", headers: {}, error: "missing bearer token (Authorization: Bearer ...)" },
  {
    name: "not a bearer header",
    headers: { authorization: "tok" },
    error: "the Authorization header must be 'Bearer <token>'",
  },
  { name: "wrong token", headers: { authorization: "Bearer nope" }, error: "wrong bearer token" },
  { name: "right token", headers: { authorization: "Bearer tok" } },
];

for (const publicRead of [false, true]) {
  Deno.test(`every route × every token${publicRead ? ", with publicRead" : ""}`, async () => {
    await withTempDir(async (dir) => {
      const s = await LearningService.open(serviceOptions(dir));
      try {
        // a model to serve, and events so that /publish has something to publish
        await s.ingestBody(plantedEvents(8).join("\n") + "\n", "test");
        await s.publish();
        const app = createApp({ service: s, token: "tok", publicRead });
        for (const route of ROUTES) {
          for (const caller of CALLERS) {
            const at = `${route.method} ${route.path}, ${caller.name}`;
            const res = await app.request(route.path, {
              method: route.method,
              headers: caller.headers,
              body: route.body,
            });
            const text = await res.text();
            const refused = caller.error !== undefined &&
              (route.access === "write" || (route.access === "read" && !publicRead));
            if (refused) {
              assertEquals(res.status, 401, at);
              assertEquals(JSON.parse(text), { error: caller.error }, at);
              assertEquals(res.headers.get("www-authenticate"), 'Bearer realm="tagstream"', at);
              assertEquals(res.headers.get("content-type"), "application/json", at);
            } else {
              assertEquals(res.status, route.ok, `${at}: ${text}`);
              assertEquals(res.headers.get("www-authenticate"), null, at);
              if (route.ok === 404) assert(JSON.parse(text).error.startsWith("no route for"), at);
            }
          }
        }
      } finally {
        await s.stop();
      }
    });
  });
}
