/**
 * The HTTP face of the learning service, a Hono app:
 *
 * - `POST /events`: NDJSON body, one event per line; bad lines are answered with their line
 *   numbers and reasons while the good lines of the same body are kept. 200 when at least one
 *   line was accepted (or the body held only blank lines) — the accepted events are then
 *   durable (in the fsynced write-ahead log) —, 400 when every line was rejected (a reason per
 *   line, e.g. a growth limit it exceeds), 413 over the body limit, 408 when the body does not
 *   arrive within the body timeout, 401 without the right bearer token, 503 with `Retry-After`
 *   while stopping, while the write-ahead log cannot be written (a full disk: nothing of the
 *   body was applied) or over the cap of requests in flight.
 * - `POST /predict`: the protocol of `sdk/predict_protocol.ts`, shared with the SDK's edge
 *   handler (same validation, limits, errors and answers): `{"features": {...}, "k": 5}`, the
 *   compact form `{"indices": [...], "values": [...], "k": 5}` (`values` omitted: binary
 *   features, all 1), `{"text": "...", "k": 5}` (with optional `features`; a service that reads
 *   text, tokenized as the model file's `featureSpace.text` says, so the SDK gives the same
 *   answer), or `{"rows": [<any row form>, ...], "k": 5}` → `{"modelVersion", "labels",
 *   "scores"}` or `{"modelVersion", "results"}`.
 * - `GET /schema/predict.json`: never authenticated; the JSON Schema of `/predict`.
 * - `GET /metrics`: counts, rejects, prequential P@1/P@5 (percent), model version, memory; as
 *   JSON, or in Prometheus' text format (`?format=prometheus`, or an `Accept` header asking for
 *   `text/plain` or OpenMetrics, as Prometheus sends; `?format=json` forces JSON).
 * - `GET /model`: the last published model file, with `ETag` (304 on `If-None-Match`) and
 *   `X-Model-Version`.
 * - `POST /checkpoint`, `POST /publish`: checkpoint or publish now.
 * - `GET /health`: never authenticated; 200 `{"status": "ok"}`, or 503 with `"stopping"` or
 *   `"degraded"` and why (`storage`: the write-ahead log or the checkpoint cannot be written).
 *
 * JSON bodies nested deeper than their format needs (`/predict`: 4 levels, `/events` lines: 2)
 * are refused with a 400 before they are parsed.
 *
 * Every error is a JSON `{"error": "..."}` with a 4xx status; an unexpected failure of one
 * request is a 500 for that request only.
 *
 * @module
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ServiceHandle } from "./service_handle.ts";
import { concatBytes } from "../data/bytes.ts";
import type { SparseVector } from "../data/types.ts";
import {
  parsePredictBody,
  PREDICT_LIMITS,
  predictBody,
  PredictError,
  type PredictRequest,
  schemaResponse,
} from "../../sdk/predict_protocol.ts";

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
}

class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 408 | 413 | 503,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** How much of an oversized body is still read (and dropped) so that the client reads the 413. */
const DRAIN_LIMIT = 64 << 20;

/**
 * Reads a request body, refusing it (413) beyond `limit` bytes without keeping the rest (the
 * rest is read and dropped, up to 64 MiB and the timeout, so that the client is not reset
 * before it reads the answer), and (408) when it does not arrive within `timeoutMs`.
 */
async function readBody(
  req: Request,
  limit: number,
  what: string,
  timeoutMs: number,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new HttpError(413, `${what} body is larger than the limit of ${limit} bytes`, {
      connection: "close",
    });
  const tooSlow = () =>
    new HttpError(
      408,
      `${what} body did not arrive within the body timeout of ${timeoutMs / 1000} s`,
      { connection: "close" },
    );
  const declared = req.headers.get("content-length");
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(tooSlow());
    }, timeoutMs);
  });
  deadline.catch(() => {});
  try {
    if (req.body === null) return new Uint8Array(0);
    // A declared length within the limit bounds the body (HTTP framing): read it in one go,
    // without touching `req.body` (in Deno, materialising the body stream costs more than the
    // rest of a /predict request: ~35% fewer requests per second under load).
    if (declared !== null && /^\d+$/.test(declared) && Number(declared) <= limit) {
      return new Uint8Array(await Promise.race([req.arrayBuffer(), deadline]));
    }
    const reader = req.body.getReader();
    const parts: Uint8Array[] = [];
    let total = 0;
    while (true) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      total += value.length;
      if (total > limit) {
        // drop the rest (bounded), then answer: a client still sending reads the 413
        while (total <= DRAIN_LIMIT && !timedOut) {
          const r = await Promise.race([reader.read(), deadline]).catch(() => undefined);
          if (r === undefined || r.done) break;
          total += r.value.length;
        }
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      parts.push(value);
    }
    return concatBytes(parts, total);
  } finally {
    clearTimeout(timer);
  }
}

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
 * import { prometheusText } from "./http_app.ts";
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

/** Comparison of two strings in a time that depends only on their lengths (not on where they differ). */
function sameToken(a: string, token: string): boolean {
  let diff = a.length ^ token.length;
  const n = Math.max(a.length, token.length);
  for (let i = 0; i < n; i++) {
    diff |= (i < a.length ? a.charCodeAt(i) : 0) ^ (i < token.length ? token.charCodeAt(i) : 0);
  }
  return diff === 0;
}

/** A JSON answer. */
function json(body: unknown, status: number, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: headers === undefined
      ? JSON_HEADERS
      : { ...headers, "content-type": "application/json" },
  });
}
const JSON_HEADERS = { "content-type": "application/json" };

/** The answer to an error thrown by a handler: its 4xx, or a 500 for anything unexpected. */
function errorResponse(err: unknown): Response {
  if (err instanceof HttpError) {
    return json(
      { error: err.message },
      err.status,
      err.status === 401 ? { "WWW-Authenticate": 'Bearer realm="tagstream"' } : err.headers,
    );
  }
  return json({ error: `internal error: ${(err as Error)?.message ?? String(err)}` }, 500);
}

/** The path of a request URL (`http://host:port/path?query` → `/path`). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const q = url.indexOf("?", start);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}

/**
 * A validated `indices`/`values` row restricted to the model's columns: indices at or beyond
 * `numFeatures` and zero values dropped (as `EventParser.rowForPredict` does).
 */
function clipRow(indices: Int32Array, values: Float32Array, numFeatures: number): SparseVector {
  let m = 0;
  const idx = new Int32Array(indices.length), val = new Float32Array(indices.length);
  for (let p = 0; p < indices.length; p++) {
    if (indices[p] >= numFeatures || values[p] === 0) continue;
    idx[m] = indices[p];
    val[m++] = values[p];
  }
  return { indices: idx.subarray(0, m), values: val.subarray(0, m) };
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
  const { service, token } = options;
  const maxBody = options.maxBodyBytes ?? 8 << 20;
  const maxPredict = options.maxPredictBytes ?? PREDICT_LIMITS.maxBodyBytes;
  const maxRows = options.maxPredictRows ?? PREDICT_LIMITS.maxRows;
  const maxK = options.maxK ?? PREDICT_LIMITS.maxK;
  const bodyTimeout = options.bodyTimeoutMs ?? 30000;
  const maxInFlight = options.maxInFlight ?? 1024;
  let inFlight = 0;
  const app = new Hono();
  /** Checks the Authorization header value (null: absent); throws a 401 HttpError. */
  const authorizeHeader = (h: string | null, read: boolean): void => {
    if (token === undefined || (read && options.publicRead)) return;
    if (h === null) {
      throw new HttpError(401, "missing bearer token (Authorization: Bearer ...)");
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    if (m === null) throw new HttpError(401, "the Authorization header must be 'Bearer <token>'");
    if (!sameToken(m[1], token)) throw new HttpError(401, "wrong bearer token");
  };
  const authorize = (c: Context, read: boolean): void =>
    authorizeHeader(c.req.raw.headers.get("authorization"), read);

  app.onError((err) => errorResponse(err));
  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));

  app.get("/health", async () => {
    if (service.stopping) return json({ status: "stopping" }, 503);
    // the storage status comes with the metrics (from the learner thread, if there is one)
    let timer: ReturnType<typeof setTimeout> | undefined;
    const m = await Promise.race([
      service.metrics().catch((e) => ({ error: (e as Error)?.message ?? String(e) })),
      new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), 2000))),
    ]);
    clearTimeout(timer);
    if (m === undefined) {
      return json({ status: "degraded", reason: "the learner did not answer within 2 s" }, 503);
    }
    if ("error" in m && typeof m.error === "string") {
      return json({ status: "degraded", reason: m.error }, 503);
    }
    const storage = (m as { storage?: { ok: boolean; wal: unknown; checkpoint: unknown } })
      .storage;
    if (storage !== undefined && !storage.ok) {
      const why = [
        storage.wal && `write-ahead log: ${storage.wal}`,
        storage.checkpoint &&
        `checkpoint: ${storage.checkpoint}`,
      ].filter(Boolean).join("; ");
      return json({
        status: "degraded",
        reason: `cannot write the state directory (${why})`,
        storage,
      }, 503);
    }
    return json({ status: "ok" }, 200);
  });

  app.post("/events", async (c) => {
    authorize(c, false);
    if (service.stopping) throw new HttpError(503, "the service is stopping");
    const body = await readBody(c.req.raw, maxBody, "/events", bodyTimeout);
    const r = await service.ingestBody(body, "http");
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
      eventsApplied: service.applied,
    };
    if (r.accepted === 0 && r.rejectedCount > 0) return c.json(answer, 400);
    return c.json(answer, 200);
  });

  /** The answer of `POST /predict` to a body (throws HttpError for a 4xx). */
  const predictAnswer = (body: Uint8Array): unknown => {
    const l = service.predictor;
    // the common one-row body without JSON.parse (same answer; anything else takes the full path)
    const fast = l.parser.predictBodyAscii(body, l.estimator.numFeatures);
    if (fast !== undefined && (fast.k ?? 5) >= 1 && (fast.k ?? 5) <= maxK) {
      return { modelVersion: l.modelVersion, ...l.predictRow(fast.x, fast.k ?? 5) };
    }
    // the protocol shared with the SDK's edge handler: same validation, errors and answers
    let req: PredictRequest;
    try {
      req = parsePredictBody(body, {
        indexKeys: l.parser.featureKeys === "index",
        text: l.parser.limits.text !== undefined,
      }, { maxK, maxRows });
    } catch (e) {
      if (e instanceof PredictError) throw new HttpError(e.status as 400, e.message);
      throw e;
    }
    const d = l.estimator.numFeatures;
    const answers = req.rows.map((r, i) => {
      try {
        if ("text" in r) return l.predictRow(l.parser.textForPredict(r.text, r.features, d), req.k);
        if ("features" in r) return l.predict(r.features, req.k);
        return l.predictRow(clipRow(r.indices, r.values, d), req.k);
      } catch (e) {
        if (e instanceof TypeError) {
          throw new HttpError(400, `${req.batch ? `rows[${i}]: ` : ""}${e.message}`);
        }
        throw e;
      }
    });
    return predictBody(answers, req.batch, l.modelVersion);
  };
  // `POST /predict` skips Hono's router and context (the hot path of edge-side polling and
  // online scoring): same answers and errors as a Hono route.
  const predictEndpoint = async (req: Request): Promise<Response> => {
    try {
      authorizeHeader(req.headers.get("authorization"), true);
      return json(predictAnswer(await readBody(req, maxPredict, "/predict", bodyTimeout)), 200);
    } catch (err) {
      return errorResponse(err);
    }
  };
  const honoFetch = app.fetch;
  const route = (request: Request, rest: unknown[]) => {
    const path = pathOf(request.url);
    if (path === "/predict" && request.method === "POST") return predictEndpoint(request);
    if (path === "/schema/predict.json" && request.method === "GET") return schemaResponse();
    return honoFetch(request, ...(rest as []));
  };
  app.fetch = (request, ...rest) => {
    if (inFlight >= maxInFlight) {
      return json({ error: `more than ${maxInFlight} requests in flight; retry later` }, 503, {
        "retry-after": "1",
        connection: "close",
      });
    }
    inFlight++;
    let r: Response | Promise<Response>;
    try {
      r = route(request, rest);
    } catch (e) {
      inFlight--;
      throw e;
    }
    if (r instanceof Promise) return r.finally(() => inFlight--);
    inFlight--;
    return r;
  };

  app.get("/metrics", async (c) => {
    authorize(c, true);
    const m = await service.metrics();
    const accept = c.req.header("accept") ?? "";
    if (
      c.req.query("format") === "prometheus" ||
      (c.req.query("format") !== "json" && /text\/plain|openmetrics/i.test(accept))
    ) {
      return c.body(prometheusText(m), 200, { "content-type": PROMETHEUS_TYPE });
    }
    return c.json(m);
  });

  app.get("/model", (c) => {
    authorize(c, true);
    const m = service.published;
    if (m === undefined) throw new HttpError(404, "no model has been published yet");
    c.header("ETag", m.etag);
    c.header("X-Model-Version", String(m.version));
    c.header("X-Model-Pruned", String(m.pruned));
    c.header("Cache-Control", "no-cache");
    const inm = c.req.header("if-none-match");
    if (inm !== undefined && inm.split(",").some((t) => t.trim() === m.etag || t.trim() === "*")) {
      return c.body(null, 304);
    }
    c.header("Content-Type", "application/vnd.tagstream.model");
    return c.body(m.bytes as Uint8Array<ArrayBuffer>, 200);
  });

  app.post("/checkpoint", async (c) => {
    authorize(c, false);
    await service.checkpoint();
    return c.json({ checkpointed: true, eventsApplied: service.applied });
  });

  app.post("/publish", async (c) => {
    authorize(c, false);
    if (service.applied === 0) throw new HttpError(400, "no event has been applied yet");
    const m = await service.publish();
    return c.json({ version: m.version, etag: m.etag, bytes: m.bytes.length, pruned: m.pruned });
  });

  return app;
}
