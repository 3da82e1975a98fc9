/**
 * The HTTP face of the learning service, a Hono app. Each group of routes has its own module in
 * `http/`, and authentication is middleware mounted on the routes that need it
 * (`http/auth_middleware.ts`: a bearer token on every route but `GET /health` and
 * `GET /schema/predict.json`; with `publicRead`, `GET /model`, `GET /metrics` and
 * `POST /predict` are open too):
 *
 * - `POST /events` (`http/ingest_routes.ts`): NDJSON body, one event per line; bad lines are
 *   answered with their line numbers and reasons while the good lines of the same body are kept.
 *   200 when at least one line was accepted (or the body held only blank lines) — the accepted
 *   events are then durable (in the fsynced write-ahead log) —, 400 when every line was rejected
 *   (a reason per line, e.g. a growth limit it exceeds), 413 over the body limit, 408 when the
 *   body does not arrive within the body timeout, 401 without the right bearer token, 503 with
 *   `Retry-After` while stopping, while the write-ahead log cannot be written (a full disk:
 *   nothing of the body was applied) or over the cap of requests, or of bytes of request
 *   bodies, in flight (`maxInFlight`, `maxBodyBytesInFlight`).
 * - `POST /predict` (`http/predict_routes.ts`, answered before the router): the protocol of
 *   `sdk/predict_protocol.ts`, shared with the SDK's edge handler (same validation, limits,
 *   errors and answers): `{"features": {...}, "k": 5}`, the compact form
 *   `{"indices": [...], "values": [...], "k": 5}` (`values` omitted: binary features, all 1),
 *   `{"text": "...", "k": 5}` (with optional `features`; a service that reads text, tokenized
 *   as the model file's `featureSpace.text` says, so the SDK gives the same answer), or
 *   `{"rows": [<any row form>, ...], "k": 5}` → `{"modelVersion", "labels", "scores"}` or
 *   `{"modelVersion", "results"}`.
 * - `GET /schema/predict.json` (`http/predict_routes.ts`): never authenticated; the JSON Schema
 *   of `/predict`.
 * - `GET /metrics` (`http/metrics_routes.ts`): counts, rejects, prequential P@1/P@5 (percent),
 *   model version, memory; as JSON, or in Prometheus' text format (`?format=prometheus`, or an
 *   `Accept` header asking for `text/plain` or OpenMetrics, as Prometheus sends; `?format=json`
 *   forces JSON).
 * - `GET /model` (`http/publish_routes.ts`): the last published model file, with `ETag` (304 on
 *   `If-None-Match`) and `X-Model-Version`.
 * - `POST /checkpoint`, `POST /publish` (`http/publish_routes.ts`): checkpoint or publish now.
 * - `GET /health` (`http/health_routes.ts`): never authenticated; 200 `{"status": "ok"}`, or 503
 *   with `"stopping"` or `"degraded"` and why (`storage`: the write-ahead log or the checkpoint
 *   cannot be written).
 *
 * JSON bodies nested deeper than their format needs (`/predict`: 4 levels, `/events` lines: 2)
 * are refused with a 400 before they are parsed.
 *
 * Every error is a JSON `{"error": "..."}` with a 4xx status (`http/errors.ts`); an unexpected
 * failure of one request is a 500 for that request only.
 *
 * @module
 */
import { Hono } from "hono";
import type { ServiceHandle } from "./service_handle.ts";
import { PREDICT_LIMITS } from "../../sdk/internal.ts";
import { bearerAuth } from "./http/auth_middleware.ts";
import { errorResponse, json } from "./http/errors.ts";
import { healthRoutes } from "./http/health_routes.ts";
import { ingestRoutes } from "./http/ingest_routes.ts";
import { metricsRoutes } from "./http/metrics_routes.ts";
import { predictRoutes } from "./http/predict_routes.ts";
import { publishRoutes } from "./http/publish_routes.ts";
import {
  booleanOption,
  checkOptionKeys,
  functionOption,
  isPlainObject,
  numberOption,
  stringOption,
  wrongType,
} from "../data/option_check.ts";
import { MAX_INT32 as INT32, MAX_TIMER_MS } from "./option_rules.ts";

export { prometheusText } from "./http/metrics_routes.ts";

/**
 * Options of {@linkcode createApp}.
 *
 * @example
 * ```ts
 * import type { AppOptions } from "./http_app.ts";
 * const o: Omit<AppOptions, "service"> = { token: "secret", maxBodyBytes: 1 << 20 };
 * console.log(o.maxBodyBytes); // 1048576
 * ```
 */
export interface AppOptions {
  /** The service behind the app (a `LearningService` or a `LearnerThread`). */
  service: ServiceHandle;
  /** Bearer token every request but `GET /health` must carry; undefined: no authentication. */
  token?: string;
  /** Let `GET /model`, `GET /metrics` and `POST /predict` through without the token. */
  publicRead?: boolean;
  /** Largest `POST /events` body in bytes (default 8 MiB). */
  maxBodyBytes?: number;
  /** Largest `POST /predict` body in bytes (default 1 MiB). */
  maxPredictBytes?: number;
  /** Most rows in one `POST /predict` (default 1000). */
  maxPredictRows?: number;
  /** Largest k of `POST /predict` (default 100). */
  maxK?: number;
  /**
   * Longest time a request body may take to arrive, in milliseconds (default 30000): slower
   * bodies get a 408 and the connection is closed.
   */
  bodyTimeoutMs?: number;
  /**
   * Most requests handled at once (default 1024): beyond it, a 503 with `Retry-After` at once
   * (each one holds a connection, and its body while it is read).
   */
  maxInFlight?: number;
  /**
   * Most bytes of request bodies held at once (default 256 MiB): a body counts its declared
   * `Content-Length` (a chunked one, the largest body limit) from its request's start to its
   * answer. Beyond it, a 503 with `Retry-After` at once, unless nothing else is held: bodies are
   * held in memory while they arrive and are applied, so without it a client sending many large
   * bodies slowly (up to `maxInFlight` of `maxBodyBytes` each, 8 GiB by default; several times
   * that in memory) could exhaust the process's memory.
   */
  maxBodyBytesInFlight?: number;
  /**
   * Metrics of the serving process itself (e.g. `serve`'s TCP front: `{ front: { open, accepted,
   * refused, headerTimeouts } }`), added to the service's in `GET /metrics`.
   */
  extraMetrics?: () => Record<string, unknown>;
}

/**
 * The HTTP app of a service: `fetch` for `Deno.serve`, and `request` for calling it in-process
 * (tests, embedding). A Hono app underneath.
 *
 * @example
 * ```ts
 * import type { ServiceApp } from "./http_app.ts";
 * const health = (app: ServiceApp) => app.request("/health");
 * console.log(typeof health); // "function"
 * ```
 */
export interface ServiceApp {
  /** Answers a request (give it to `Deno.serve`). */
  fetch(request: Request): Response | Promise<Response>;
  /** Answers a request built from a path or URL and `init`. */
  request(input: string | URL | Request, init?: RequestInit): Response | Promise<Response>;
}

/**
 * The bytes a request's body may hold: its declared `Content-Length` up to `largest` (a longer
 * one is refused unread, 413), `largest` for a body of unknown length (chunked), 0 without a
 * body. From the headers only: touching `request.body` costs a `/predict` request dearly.
 */
function bodyBytesOf(request: Request, largest: number): number {
  const declared = request.headers.get("content-length");
  if (declared !== null) return /^\d+$/.test(declared) ? Math.min(Number(declared), largest) : 0;
  return request.headers.has("transfer-encoding") ? largest : 0;
}

/**
 * `fetch` answering at most `max` requests at once, whose bodies hold at most `maxBytes` in all
 * (a body counting `bodyBytes(request)` until its answer; one body alone is always let through):
 * beyond either, a 503 with `Retry-After` at once.
 */
function limitInFlight<R extends unknown[]>(
  max: number,
  maxBytes: number,
  bodyBytes: (request: Request) => number,
  fetch: (request: Request, ...rest: R) => Response | Promise<Response>,
): (request: Request, ...rest: R) => Response | Promise<Response> {
  let inFlight = 0, heldBytes = 0;
  const busy = (error: string) => json({ error }, 503, { "retry-after": "1", connection: "close" });
  return (request, ...rest) => {
    if (inFlight >= max) return busy(`more than ${max} requests in flight; retry later`);
    const bytes = bodyBytes(request);
    if (bytes > 0 && heldBytes > 0 && heldBytes + bytes > maxBytes) {
      return busy(
        `request bodies in flight hold ${heldBytes} bytes; this one's ${bytes} would pass the ` +
          `limit of ${maxBytes} bytes of bodies in flight; retry later`,
      );
    }
    inFlight++;
    heldBytes += bytes;
    const done = () => {
      inFlight--;
      heldBytes -= bytes;
    };
    let r: Response | Promise<Response>;
    try {
      r = fetch(request, ...rest);
    } catch (e) {
      done();
      throw e;
    }
    if (r instanceof Promise) return r.finally(done);
    done();
    return r;
  };
}

/**
 * The Hono app of a {@linkcode LearningService}; serve it with `Deno.serve(app.fetch)`.
 *
 * @example
 * ```ts
 * import { factory } from "../models/popularity/mod.ts";
 * import { LearningService } from "./service.ts";
 * import { createApp } from "./http_app.ts";
 * const dir = await Deno.makeTempDir();
 * const service = await LearningService.open({ factory, stateDir: dir, log: () => {} });
 * const app = createApp({ service, token: "t" });
 * const res = await app.request("/events", {
 *   method: "POST",
 *   headers: { authorization: "Bearer t" },
 *   body: '{"features": {"0": 1}, "labels": ["a"]}\n',
 * });
 * console.log(res.status, (await res.json()).accepted); // 200 1
 * console.log((await app.request("/events", { method: "POST", body: "{}" })).status); // 401
 * await service.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function createApp(options: AppOptions): ServiceApp {
  const { service, token } = checkAppOptions(options);
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 30000;
  const maxBodyBytes = options.maxBodyBytes ?? 8 << 20;
  const maxPredictBytes = options.maxPredictBytes ?? PREDICT_LIMITS.maxBodyBytes;
  const largestBody = Math.max(maxBodyBytes, maxPredictBytes);
  const readToken = options.publicRead ? undefined : token;
  const read = bearerAuth(readToken), write = bearerAuth(token);
  const app = new Hono()
    .onError((err) => errorResponse(err))
    .notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404))
    .route("/", healthRoutes(service))
    .route(
      "/",
      ingestRoutes(service, {
        auth: write,
        maxBodyBytes,
        bodyTimeoutMs,
      }),
    )
    .route("/", metricsRoutes(service, read, options.extraMetrics))
    .route("/", publishRoutes(service, { read, write }));
  // `POST /predict` and the schema skip Hono's router and context (the hot path)
  const beforeRouter = predictRoutes(service, {
    token: readToken,
    maxBodyBytes: maxPredictBytes,
    maxRows: options.maxPredictRows ?? PREDICT_LIMITS.maxRows,
    maxK: options.maxK ?? PREDICT_LIMITS.maxK,
    bodyTimeoutMs,
  });
  const honoFetch = app.fetch;
  const answer: typeof honoFetch = (request, env, ctx) =>
    beforeRouter(request) ?? honoFetch(request, env, ctx);
  app.fetch = limitInFlight(
    options.maxInFlight ?? 1024,
    options.maxBodyBytesInFlight ?? 256 << 20,
    (request) => bodyBytesOf(request, largestBody),
    (request, env, ctx) =>
      request.method === "HEAD"
        ? headOf(request, (get) => answer(get, env, ctx))
        : answer(request, env, ctx),
  );
  return app;
}

/**
 * The answer to a `HEAD` request: the `GET` answer's status and headers, with the length of its
 * body as `Content-Length` (the server would otherwise say 0), and no body.
 */
async function headOf(
  request: Request,
  get: (request: Request) => Response | Promise<Response>,
): Promise<Response> {
  const res = await get(new Request(request.url, { method: "GET", headers: request.headers }));
  const headers = new Headers(res.headers);
  if (res.body !== null) {
    const length = (await res.arrayBuffer()).byteLength;
    if (res.status !== 204 && res.status !== 304) headers.set("content-length", String(length));
  }
  return new Response(null, { status: res.status, headers });
}

const APP_KEYS = [
  "service",
  "token",
  "publicRead",
  "maxBodyBytes",
  "maxPredictBytes",
  "maxPredictRows",
  "maxK",
  "bodyTimeoutMs",
  "maxInFlight",
  "maxBodyBytesInFlight",
  "extraMetrics",
] as const satisfies readonly (keyof AppOptions)[];

/**
 * Checks the options of `createApp` ({@linkcode AppOptions}) and returns them.
 *
 * @throws {TypeError} for a non-object, an unknown key, a missing `service` or a value of the
 * wrong type (e.g. `publicRead: "false"`, which would let reads through without the token)
 * @throws {RangeError} for a size or count that is not an integer ≥ 1, or a `bodyTimeoutMs`
 * outside (0, 2^31 − 1]
 *
 * @example
 * ```ts
 * import { checkAppOptions } from "./http_app.ts";
 * try {
 *   checkAppOptions({ service: {}, maxInFlight: NaN });
 * } catch (e) {
 *   console.log((e as Error).message); // createApp: option maxInFlight must be an integer in [1, 2147483647], got NaN
 * }
 * ```
 */
export function checkAppOptions(options: unknown): AppOptions {
  const where = "createApp";
  const o = checkOptionKeys(where, options as AppOptions, APP_KEYS);
  if (!isPlainObject(o.service)) {
    wrongType(where, "service", "a LearningService or a LearnerThread", o.service);
  }
  stringOption(where, "token", o.token);
  booleanOption(where, "publicRead", o.publicRead, false);
  for (
    const k of ["maxBodyBytes", "maxPredictBytes", "maxPredictRows", "maxK", "maxInFlight"] as const
  ) {
    numberOption(where, k, o[k], 1, 1, INT32, true);
  }
  numberOption(
    where,
    "maxBodyBytesInFlight",
    o.maxBodyBytesInFlight,
    1,
    1,
    Number.MAX_SAFE_INTEGER,
    true,
  );
  numberOption(where, "bodyTimeoutMs", o.bodyTimeoutMs, 30000, 1e-3, MAX_TIMER_MS);
  functionOption(where, "extraMetrics", o.extraMetrics);
  return o;
}
