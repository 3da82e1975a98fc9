/**
 * `GET /metrics`: counts, rejects, prequential P@1/P@5 (percent), model version, memory; as JSON,
 * or in Prometheus' text format (`?format=prometheus`, or an `Accept` header asking for
 * `text/plain` or OpenMetrics, as Prometheus sends; `?format=json` forces JSON; another `format`
 * is a 400 naming it). A service that cannot answer because it is stopping or lost (its learner
 * thread died) gets a 503 with `Retry-After`: nothing was changed, ask again.
 *
 * @module
 */
import { Hono, type MiddlewareHandler } from "hono";
import { retryAfterOf, type ServiceHandle } from "../service_handle.ts";
import { HttpError } from "./errors.ts";

/** The content type of Prometheus' text exposition format. */
const PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/**
 * The metrics of `GET /metrics` in Prometheus' text exposition format (0.0.4): every number
 * (booleans as 0/1) is a gauge named `tagstream_` + its JSON path in snake case (`P@1` →
 * `p_at_1`, `events.applied` → `tagstream_events_applied`); nulls and arrays are left out;
 * strings become labels of one `tagstream_info` gauge of value 1.
 *
 * @example
 * ```ts
 * import { prometheusText } from "./metrics_routes.ts";
 * console.log(prometheusText({ model: "leml", events: { applied: 3 }, prequential: { "P@1": 50 } }));
 * // # HELP tagstream_events_applied events.applied
 * // # TYPE tagstream_events_applied gauge
 * // tagstream_events_applied 3
 * // ...
 * // tagstream_info{model="leml"} 1
 * ```
 */
export function prometheusText(metrics: Record<string, unknown>): string {
  const lines: string[] = [], info: string[] = [];
  const name = (path: string[]) =>
    path.map((p) =>
      p.replace(/@/g, "_at_").replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[^A-Za-z0-9_]/g, "_")
        .toLowerCase()
    ).join("_").replace(/_+/g, "_");
  const walk = (v: unknown, path: string[]) => {
    if (typeof v === "boolean") v = v ? 1 : 0;
    if (typeof v === "number") {
      const n = `tagstream_${name(path)}`;
      const x = Number.isNaN(v) ? "NaN" : v === Infinity ? "+Inf" : v === -Infinity ? "-Inf" : v;
      lines.push(`# HELP ${n} ${path.join(".")}`, `# TYPE ${n} gauge`, `${n} ${x}`);
    } else if (typeof v === "string") {
      const value = v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
      info.push(`${name(path)}="${value}"`);
    } else if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    }
  };
  walk(metrics, []);
  lines.push(
    "# HELP tagstream_info the service's text metrics, as labels",
    "# TYPE tagstream_info gauge",
    `tagstream_info{${info.join(",")}} 1`,
  );
  return lines.join("\n") + "\n";
}

/**
 * The routes of `GET /metrics`, behind `auth` (mount them with
 * `app.route("/", metricsRoutes(...))`): the service's metrics, plus `extra()`'s (the serving
 * process's own, e.g. its TCP front's counters) when given.
 *
 * @example
 * ```ts
 * import { metricsRoutes } from "./metrics_routes.ts";
 * import { bearerAuth } from "./auth_middleware.ts";
 * import type { ServiceHandle } from "../service_handle.ts";
 * const service = {
 *   metrics: () => Promise.resolve({ events: { applied: 3 } }),
 * } as unknown as ServiceHandle;
 * const app = metricsRoutes(service, bearerAuth(undefined));
 * console.log(await (await app.request("/metrics")).json()); // { events: { applied: 3 } }
 * const text = await (await app.request("/metrics?format=prometheus")).text();
 * console.log(text.includes("tagstream_events_applied 3")); // true
 * ```
 */
export function metricsRoutes(
  service: ServiceHandle,
  auth: MiddlewareHandler,
  extra?: () => Record<string, unknown>,
): Hono {
  return new Hono().get("/metrics", auth, async (c) => {
    const format = c.req.query("format");
    if (format !== undefined && format !== "json" && format !== "prometheus") {
      // a typo (`?format=prom`) used to get JSON, which a scraper then failed to parse
      return c.json(
        { error: `query parameter 'format' must be json or prometheus, got '${format}'` },
        400,
      );
    }
    let metrics: Record<string, unknown>;
    try {
      // the learner thread's last pushed metrics (their age in metricsAgeSeconds), unless
      // ?fresh=1 asks it now (asking waits for what it is doing: 1-4 s full checkpoints at 10⁶
      // labels) or it is stopping or lost (asked: a lost one answers 503)
      const latest = c.req.query("fresh") === undefined && !service.stopping
        ? service.latestMetrics?.()
        : undefined;
      metrics = latest ?? await service.metrics();
    } catch (e) {
      // a stopping service may still answer (it is asked); one lost (a dead learner thread) not
      if (!service.stopping) throw e;
      throw new HttpError(
        503,
        `GET /metrics is not available: the service is stopping or was lost (${
          (e as Error)?.message ?? String(e)
        }); nothing was changed, ask again once the service is back`,
        { "retry-after": String(retryAfterOf(service)) },
      );
    }
    const m = { ...metrics, ...extra?.() };
    const accept = c.req.header("accept") ?? "";
    if (
      format === "prometheus" || (format !== "json" && /text\/plain|openmetrics/i.test(accept))
    ) {
      return c.body(prometheusText(m), 200, { "content-type": PROMETHEUS_TYPE });
    }
    return c.json(m);
  });
}
