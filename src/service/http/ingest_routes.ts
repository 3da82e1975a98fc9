/**
 * `POST /events`: an NDJSON body, one event per line; bad lines are answered with their line
 * numbers and reasons while the good lines of the same body are kept. 200 when at least one line
 * was accepted (or the body held only blank lines) — the accepted events are then durable (in
 * the fsynced write-ahead log) —, 400 when every line was rejected (a reason per line; the first
 * also says so when the body is not NDJSON: a JSON array, a pretty-printed event, or events
 * joined on one line as `curl -d @FILE` sends them), 413 over
 * the body limit, 408 when the body does not arrive within the body timeout, 503 with
 * `Retry-After` (the service's `retryAfterSeconds`) while stopping or while the write-ahead log
 * cannot be written (nothing of the body was applied). A body still arriving when the service
 * starts stopping gets that 503 within `STOP_CHECK_MS` of `read_body.ts` (0.1 s), not once it
 * has arrived or timed out: a slow or stalled sender does not hold the stop up (`serve` then
 * closes the connection, see there). A body that finishes arriving before the check sees the
 * stop is applied and answered as usual: the service's stop waits for it.
 *
 * A body being applied when the service is lost (its learner thread dies) gets a 500 with
 * `Retry-After`: it may be in the write-ahead log already (a restart replays it) or not, so the
 * 503's "nothing of this body was applied" cannot be said; the client should send it again to
 * the restarted service, and events with an `id` are not applied twice (see `--dedup-window`).
 * A body arriving after that is refused with the 503.
 *
 * @module
 */
import { Hono, type MiddlewareHandler } from "hono";
import { retryAfterOf, type ServiceHandle } from "../service_handle.ts";
import type { IngestResult } from "../service_types.ts";
import { HttpError } from "./errors.ts";
import { readBody } from "./read_body.ts";
import { bodyShapeHint } from "./body_shape_hint.ts";

/**
 * Options of {@linkcode ingestRoutes}.
 *
 * @example
 * ```ts
 * import type { IngestRouteOptions } from "./ingest_routes.ts";
 * const o: Omit<IngestRouteOptions, "auth"> = { maxBodyBytes: 8 << 20, bodyTimeoutMs: 30000 };
 * console.log(o.maxBodyBytes); // 8388608
 * ```
 */
export interface IngestRouteOptions {
  /** The middleware that authenticates a sender (see `auth_middleware.ts`). */
  auth: MiddlewareHandler;
  /** Largest body in bytes. */
  maxBodyBytes: number;
  /** Longest time a body may take to arrive, in milliseconds. */
  bodyTimeoutMs: number;
}

/**
 * The routes of `POST /events` (mount them with `app.route("/", ingestRoutes(...))` on an app
 * whose error handler is `errorResponse` of `errors.ts`).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { ingestRoutes } from "./ingest_routes.ts";
 * import { bearerAuth } from "./auth_middleware.ts";
 * import { errorResponse } from "./errors.ts";
 * import { LearningService } from "../service.ts";
 * import { factory } from "../../models/popularity/mod.ts";
 * const dir = await Deno.makeTempDir();
 * const service = await LearningService.open({ factory, stateDir: dir, log: () => {} });
 * const app = new Hono().onError((e) => errorResponse(e));
 * app.route("/", ingestRoutes(service, {
 *   auth: bearerAuth(undefined),
 *   maxBodyBytes: 1 << 20,
 *   bodyTimeoutMs: 30000,
 * }));
 * const body = '{"features": {"0": 1}, "labels": ["a"]}\n';
 * const res = await app.request("/events", { method: "POST", body });
 * console.log(res.status, (await res.json()).accepted); // 200 1
 * await service.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function ingestRoutes(service: ServiceHandle, options: IngestRouteOptions): Hono {
  const { maxBodyBytes, bodyTimeoutMs } = options;
  // as the service answers a body begun while it stops
  const stopped = () =>
    new HttpError(503, "the service is stopping; nothing of this body was applied", {
      "retry-after": String(retryAfterOf(service)),
    });
  const cutByStop = () => service.stopping ? stopped() : undefined;
  return new Hono().post("/events", options.auth, async (c) => {
    if (service.stopping) throw stopped();
    const body = await readBody(c.req.raw, maxBodyBytes, "/events", bodyTimeoutMs, cutByStop);
    let r: IngestResult;
    try {
      r = await service.ingestBody(body, "http");
    } catch (e) {
      // not a bad body: the service was lost while applying it (a dead learner thread), or
      // gone before (then nothing was handed over, but there is no telling the two apart here)
      if (!service.stopping) throw e;
      throw new HttpError(
        500,
        `the service stopped while this body was being applied (${
          (e as Error)?.message ?? String(e)
        }): it may have been applied (it may be in the write-ahead log, which a restart ` +
          "replays) or not; send it again once the service is back — events with an id are " +
          "not applied twice",
        { "retry-after": String(retryAfterOf(service)) },
      );
    }
    if (r.unavailable !== undefined) {
      throw new HttpError(503, r.unavailable.reason, {
        "retry-after": String(r.unavailable.retryAfterSeconds),
      });
    }
    const answer = {
      accepted: r.accepted,
      duplicates: r.duplicates,
      rejectedCount: r.rejectedCount,
      rejected: r.rejected,
      durable: r.durable,
      ignoredFields: r.ignoredFields ?? 0,
      eventsApplied: service.applied,
    };
    if (r.accepted === 0 && r.rejectedCount > 0) {
      const hint = bodyShapeHint(body);
      if (hint !== undefined && answer.rejected.length > 0) {
        const [first, ...rest] = answer.rejected;
        answer.rejected = [{ ...first, reason: `${first.reason}; ${hint}` }, ...rest];
      }
      return c.json(answer, 400);
    }
    return c.json(answer, 200);
  });
}
