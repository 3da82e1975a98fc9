/**
 * The published model and the service's state on demand:
 *
 * - `GET /model` (a reader): the last published model file, with `ETag` (304 on
 *   `If-None-Match`, compared weakly: `W/"..."` matches too), `X-Model-Version` and
 *   `X-Model-Pruned`; 404 before the first publish.
 * - `POST /checkpoint` (a writer): a checkpoint now, answered once it is durable.
 * - `POST /publish` (a writer): a model file now; 400 before the first event.
 *
 * While the service is stopping (or lost: its learner thread died), `POST /checkpoint` and
 * `POST /publish` are refused with a 503 and `Retry-After` (nothing was done). One being answered
 * when the service is lost gets a 500 with `Retry-After`: the checkpoint may have been written,
 * the model file published, or not; the client should ask again once the service is back (as
 * `POST /events` is answered then, see `ingest_routes.ts`).
 *
 * @module
 */
import { Hono, type MiddlewareHandler } from "hono";
import { retryAfterOf, type ServiceHandle } from "../service_handle.ts";
import { HttpError } from "./errors.ts";

/**
 * The middlewares that authenticate the routes of {@linkcode publishRoutes}.
 *
 * @example
 * ```ts
 * import type { PublishRouteAuth } from "./publish_routes.ts";
 * import { bearerAuth } from "./auth_middleware.ts";
 * const auth: PublishRouteAuth = { read: bearerAuth(undefined), write: bearerAuth("s3cret") };
 * console.log(typeof auth.write); // function
 * ```
 */
export interface PublishRouteAuth {
  /** For `GET /model`. */
  read: MiddlewareHandler;
  /** For `POST /checkpoint` and `POST /publish`. */
  write: MiddlewareHandler;
}

/**
 * The routes of `GET /model`, `POST /checkpoint` and `POST /publish` (mount them with
 * `app.route("/", publishRoutes(...))` on an app whose error handler is `errorResponse` of
 * `errors.ts`).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { publishRoutes } from "./publish_routes.ts";
 * import { bearerAuth } from "./auth_middleware.ts";
 * import { errorResponse } from "./errors.ts";
 * import { LearningService } from "../service.ts";
 * import { factory } from "../../models/popularity/mod.ts";
 * const dir = await Deno.makeTempDir();
 * const service = await LearningService.open({ factory, stateDir: dir, log: () => {} });
 * const open = bearerAuth(undefined);
 * const app = new Hono().onError((e) => errorResponse(e));
 * app.route("/", publishRoutes(service, { read: open, write: open }));
 * console.log((await app.request("/model")).status); // 404
 * await service.ingestBody('{"features": {"0": 1}, "labels": ["a"]}\n', "http");
 * console.log((await (await app.request("/publish", { method: "POST" })).json()).version); // 1
 * console.log((await app.request("/model")).headers.get("x-model-version")); // 1
 * await service.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function publishRoutes(service: ServiceHandle, auth: PublishRouteAuth): Hono {
  const app = new Hono();
  app.get("/model", auth.read, (c) => {
    const m = service.published;
    if (m === undefined) throw new HttpError(404, "no model has been published yet");
    c.header("ETag", m.etag);
    c.header("X-Model-Version", String(m.version));
    c.header("X-Model-Pruned", String(m.pruned));
    c.header("Cache-Control", "no-cache");
    const inm = c.req.header("if-none-match");
    // the weak comparison If-None-Match calls for: `W/"..."` (as a compressing proxy sends back
    // the ETag it weakened) matches too
    if (
      inm !== undefined &&
      inm.split(",").some((t) => t.trim().replace(/^W\//, "") === m.etag || t.trim() === "*")
    ) {
      return c.body(null, 304);
    }
    c.header("Content-Type", "application/vnd.tagstream.model");
    return c.body(m.bytes as Uint8Array<ArrayBuffer>, 200);
  });
  app.post("/checkpoint", auth.write, async (c) => {
    await whileUp(
      service,
      "POST /checkpoint",
      "the checkpoint may have been written",
      () => service.checkpoint(),
    );
    return c.json({ checkpointed: true, eventsApplied: service.applied });
  });
  app.post("/publish", auth.write, async (c) => {
    if (service.stopping) throw notAvailable(service, "POST /publish");
    if (service.applied === 0) throw new HttpError(400, "no event has been applied yet");
    const m = await whileUp(
      service,
      "POST /publish",
      "a model file may have been published (see GET /model then)",
      () => service.publish(),
    );
    return c.json({ version: m.version, etag: m.etag, bytes: m.bytes.length, pruned: m.pruned });
  });
  return app;
}

/** The 503 of `route` while `service` is stopping or lost: nothing was done. */
function notAvailable(service: ServiceHandle, route: string): HttpError {
  return new HttpError(
    503,
    `${route} is not available: the service is stopping (or was lost); nothing was done`,
    { "retry-after": String(retryAfterOf(service)) },
  );
}

/**
 * `work()` on an available `service` (else its 503); a failure of it because the service was
 * lost meanwhile is a 500 with `Retry-After` saying `mayHave` happened or not. Any other
 * failure is thrown as it is.
 */
async function whileUp<T>(
  service: ServiceHandle,
  route: string,
  mayHave: string,
  work: () => Promise<T>,
): Promise<T> {
  if (service.stopping) throw notAvailable(service, route);
  try {
    return await work();
  } catch (e) {
    if (!service.stopping) throw e;
    throw new HttpError(
      500,
      `the service stopped while ${route} was being answered (${
        (e as Error)?.message ?? String(e)
      }): ${mayHave} or not; ask again once the service is back`,
      { "retry-after": String(retryAfterOf(service)) },
    );
  }
}
