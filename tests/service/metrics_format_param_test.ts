// GET /metrics?format=... takes json or prometheus; another value (a typo such as
// `?format=prom`) is a 400 naming the parameter and the value. It used to be answered with JSON,
// which a Prometheus scrape configured with the typo then failed to parse.
import { metricsRoutes } from "../../src/service/http/metrics_routes.ts";
import { bearerAuth } from "../../src/service/http/auth_middleware.ts";
import type { ServiceHandle } from "../../src/service/service_handle.ts";
import { assert, assertEquals } from "./helpers.ts";

const service = {
  metrics: () => Promise.resolve({ events: { applied: 3 } }),
} as unknown as ServiceHandle;
const app = metricsRoutes(service, bearerAuth(undefined));

Deno.test("GET /metrics: an unknown format is a 400 naming it; json and prometheus answer", async () => {
  for (const format of ["prom", "xml", ""]) {
    const r = await app.request(`/metrics?format=${format}`);
    assertEquals(r.status, 400, format);
    assertEquals(await r.json(), {
      error: `query parameter 'format' must be json or prometheus, got '${format}'`,
    });
  }
  const json = await app.request("/metrics?format=json", { headers: { accept: "text/plain" } });
  assertEquals([json.status, await json.json()], [200, { events: { applied: 3 } }]);
  const text = await (await app.request("/metrics?format=prometheus")).text();
  assert(text.includes("tagstream_events_applied 3"), text);
  const plain = await app.request("/metrics");
  assertEquals(await plain.json(), { events: { applied: 3 } });
});
