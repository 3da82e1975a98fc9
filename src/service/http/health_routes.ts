/**
 * `GET /health`, never authenticated: 200 `{"status": "ok"}`, or 503 with `"stopping"` or
 * `"degraded"` and why (the learner does not answer: its metrics, pushed once a second, are
 * older than 30 s and it does not answer within 2 s; `storage`: the write-ahead log or the
 * checkpoint cannot be written; `deadLetter`: rejected Redis entries cannot be copied to the
 * dead-letter stream, so they stay pending, unacknowledged).
 *
 * A full vocabulary (`--max-labels`, or `--max-features` of named features) is a `warnings` entry
 * of the answer, whatever its status: `{"status": "ok", "warnings": ["the label vocabulary is
 * full ..."]}`. Not "degraded": a 503 takes the instance out of a load balancer's rotation or has
 * a liveness probe restart it, while it still answers `/predict` and learns every event within
 * its vocabulary, and a restart with the same flags changes nothing (it only replays the log).
 * The operator acts on it from the log (each refusal is reported), `/metrics` → `growth` (an
 * alert on `tagstream_growth_refused_max_labels`) or this warning.
 *
 * @module
 */
import { Hono } from "hono";
import type { ServiceHandle } from "../service_handle.ts";
import { json } from "./errors.ts";

/** How long `/health` waits for the learner's metrics before it answers "degraded". */
const LEARNER_TIMEOUT_MS = 2000;

/** How long `/health` waits for the learner's metrics before it judges from the pushed ones. */
const QUICK_MS = 250;

/**
 * How old the metrics a learner thread pushed (once a second) may be for `/health` to judge from
 * them when it does not answer at once: a learner busy for seconds (a full checkpoint of a
 * 10⁶-label model holds it 1-4 s) is not degraded, one silent for longer is (2 s after asked).
 */
const PUSHED_METRICS_MAX_AGE_S = 30;

/**
 * The routes of `GET /health` (mount them with `app.route("/", healthRoutes(service))`).
 *
 * @example
 * ```ts
 * import { healthRoutes } from "./health_routes.ts";
 * import type { ServiceHandle } from "../service_handle.ts";
 * const service = { stopping: false, metrics: () => Promise.resolve({}) } as unknown as ServiceHandle;
 * const res = await healthRoutes(service).request("/health");
 * console.log(res.status, (await res.json()).status); // 200 ok
 * ```
 */
export function healthRoutes(service: ServiceHandle): Hono {
  return new Hono().get("/health", async () => {
    if (service.stopping) return json({ status: "stopping" }, 503);
    // the storage status comes with the metrics, asked now (from the learner thread, if there
    // is one); a learner that does not answer at once is busy or stuck: judged from the metrics
    // it pushed last while they are recent, else degraded if it does not answer within 2 s
    let timer: ReturnType<typeof setTimeout> | undefined;
    const within = (ms: number) =>
      new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
    const asked = service.metrics().catch((e) => ({ error: (e as Error)?.message ?? String(e) }));
    let m: Record<string, unknown> | undefined = await Promise.race([asked, within(QUICK_MS)]);
    clearTimeout(timer);
    if (m === undefined) {
      const latest = service.latestMetrics?.();
      const age = latest?.metricsAgeSeconds;
      if (latest !== undefined && typeof age === "number" && age <= PUSHED_METRICS_MAX_AGE_S) {
        m = latest;
      } else {
        m = await Promise.race([asked, within(LEARNER_TIMEOUT_MS - QUICK_MS)]);
        clearTimeout(timer);
      }
    }
    if (m === undefined) {
      return json({ status: "degraded", reason: "the learner did not answer within 2 s" }, 503);
    }
    if ("error" in m && typeof m.error === "string") {
      return json({ status: "degraded", reason: m.error }, 503);
    }
    const reasons: string[] = [];
    const body: Record<string, unknown> = {};
    const storage = (m as { storage?: { ok: boolean; wal: unknown; checkpoint: unknown } })
      .storage;
    if (storage !== undefined && !storage.ok) {
      const why = [
        storage.wal && `write-ahead log: ${storage.wal}`,
        storage.checkpoint &&
        `checkpoint: ${storage.checkpoint}`,
      ].filter(Boolean).join("; ");
      reasons.push(`cannot write the state directory (${why})`);
      body.storage = storage;
    }
    const dead =
      (m as { redis?: { deadLetter?: { key?: unknown; error?: unknown } | null } | null })
        .redis?.deadLetter;
    if (dead != null && typeof dead.error === "string") {
      reasons.push(
        `cannot copy rejected Redis entries to the dead-letter stream ${dead.key} (${dead.error}); ` +
          `they stay pending, unacknowledged`,
      );
      body.deadLetter = dead;
    }
    const warnings = (m as { growth?: { warnings?: unknown } | null }).growth?.warnings;
    if (Array.isArray(warnings) && warnings.length > 0) body.warnings = warnings;
    if (reasons.length > 0) {
      return json({ status: "degraded", reason: reasons.join("; "), ...body }, 503);
    }
    return json({ status: "ok", ...body }, 200);
  });
}
