/**
 * `POST /predict` and `GET /schema/predict.json`, answered before Hono's router and context (the
 * hot path of edge-side polling and online scoring) with the same answers and errors as a Hono
 * route would give.
 *
 * `POST /predict` speaks the protocol of `sdk/predict_protocol.ts`, shared with the SDK's edge
 * handler (same validation, limits, errors and answers): `{"features": {...}, "k": 5}`, the
 * compact form `{"indices": [...], "values": [...], "k": 5}` (`values` omitted: binary features,
 * all 1), `{"text": "...", "k": 5}` (with optional `features`; a service that reads text,
 * tokenized as the model file's `featureSpace.text` says, so the SDK gives the same answer), or
 * `{"rows": [<any row form>, ...], "k": 5}` → `{"modelVersion", "labels", "scores"}` or
 * `{"modelVersion", "results"}`. It is authenticated as a read (see `auth_middleware.ts`).
 * `GET /schema/predict.json`, never authenticated, is the JSON Schema of `/predict`, with the
 * service's own limits of `k`, rows and body bytes.
 *
 * A `/predict` body still arriving when the service starts stopping is cut within
 * `STOP_CHECK_MS` of `read_body.ts` (0.1 s): a 503 with `Retry-After` (`serve` then closes the
 * connection), so that a slow or stalled client does not hold the stop up for the body timeout.
 *
 * @module
 */
import { retryAfterOf, type ServiceHandle } from "../service_handle.ts";
import type { SparseVector } from "../../data/types.ts";
import {
  columnOverflow,
  parsePredictBody,
  PREDICT_LIMITS,
  predictBody,
  PredictError,
  type PredictRequest,
  schemaResponse,
} from "../../../sdk/internal.ts";
import { checkBearer } from "./auth_middleware.ts";
import { errorResponse, HttpError, json } from "./errors.ts";
import { readBody } from "./read_body.ts";

/**
 * Options of {@linkcode predictRoutes}.
 *
 * @example
 * ```ts
 * import type { PredictRouteOptions } from "./predict_routes.ts";
 * const o: PredictRouteOptions = {
 *   token: undefined,
 *   maxBodyBytes: 1 << 20,
 *   maxRows: 1000,
 *   maxK: 100,
 *   bodyTimeoutMs: 30000,
 * };
 * console.log(o.maxK); // 100
 * ```
 */
export interface PredictRouteOptions {
  /** The bearer token a request must carry; undefined: none. */
  token: string | undefined;
  /** Largest body in bytes. */
  maxBodyBytes: number;
  /** Most rows in one request. */
  maxRows: number;
  /** Largest k. */
  maxK: number;
  /** Longest time a body may take to arrive, in milliseconds. */
  bodyTimeoutMs: number;
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
 * A query row the model refuses as not finite although each of its values is: names hashed into
 * one column whose values add up past float32 (the client's row, so a 400 as the SDK's edge
 * handler answers, not an internal error); any other error is returned as it is.
 */
function overflowingRow(e: unknown, at: string): unknown {
  // (the model's check of the row, or the feature hasher's own, which names the features)
  if (!(e instanceof RangeError && /non-finite value|not a finite 32-bit float/.test(e.message))) {
    return e;
  }
  return new HttpError(400, columnOverflow(at, e.message).message);
}

/** The answer of `POST /predict` to a body (throws HttpError for a 4xx). */
function predictAnswer(
  service: ServiceHandle,
  body: Uint8Array,
  maxK: number,
  maxRows: number,
): unknown {
  const l = service.predictor;
  // the common one-row body without JSON.parse (same answer; anything else takes the full path)
  const fast = l.parser.predictBodyAscii(body, l.estimator.numFeatures);
  // (k absent: the default, or the maximum when that is lower, as the full path reads it)
  const k = fast?.k ?? Math.min(PREDICT_LIMITS.defaultK, maxK);
  if (fast !== undefined && k >= 1 && k <= maxK) {
    try {
      return { modelVersion: l.modelVersion, ...l.predictRow(fast.x, k) };
    } catch (e) {
      throw overflowingRow(e, "");
    }
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
      const at = req.batch ? `rows[${i}]: ` : "";
      if (e instanceof TypeError) throw new HttpError(400, `${at}${e.message}`);
      throw overflowingRow(e, at);
    }
  });
  return predictBody(answers, req.batch, l.modelVersion);
}

/**
 * The routes answered before Hono's router: a function that answers `POST /predict` and
 * `GET /schema/predict.json`, and returns undefined for every other request (for the router).
 *
 * @example
 * ```ts
 * import { predictRoutes } from "./predict_routes.ts";
 * import { LearningService } from "../service.ts";
 * import { factory } from "../../models/popularity/mod.ts";
 * const dir = await Deno.makeTempDir();
 * const service = await LearningService.open({ factory, stateDir: dir, log: () => {} });
 * await service.ingestBody('{"features": {"0": 1}, "labels": ["a"]}\n', "http");
 * const routes = predictRoutes(service, {
 *   token: "t",
 *   maxBodyBytes: 1 << 20,
 *   maxRows: 1000,
 *   maxK: 100,
 *   bodyTimeoutMs: 30000,
 * });
 * const predict = (headers: HeadersInit) =>
 *   routes(new Request("http://x/predict", { method: "POST", headers, body: '{"features": {"0": 1}}' }));
 * console.log((await predict({ authorization: "Bearer t" }))!.status); // 200
 * console.log((await predict({}))!.status); // 401
 * console.log(routes(new Request("http://x/metrics"))); // undefined
 * await service.stop();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function predictRoutes(
  service: ServiceHandle,
  options: PredictRouteOptions,
): (request: Request) => Response | Promise<Response> | undefined {
  const { token, maxBodyBytes, maxRows, maxK, bodyTimeoutMs } = options;
  const cutByStop = () =>
    service.stopping
      ? new HttpError(503, "the service is stopping; the rest of this body was not waited for", {
        "retry-after": String(retryAfterOf(service)),
      })
      : undefined;
  const schema = schemaWithLimits(maxK, maxRows, maxBodyBytes);
  const predict = async (req: Request): Promise<Response> => {
    try {
      checkBearer(req.headers.get("authorization"), token);
      const body = await readBody(req, maxBodyBytes, "/predict", bodyTimeoutMs, cutByStop);
      return json(predictAnswer(service, body, maxK, maxRows), 200);
    } catch (err) {
      return errorResponse(err);
    }
  };
  return (request) => {
    const path = pathOf(request.url);
    if (path === "/predict" && request.method === "POST") return predict(request);
    if (path === "/schema/predict.json" && request.method === "GET") return schema();
    return undefined;
  };
}

/**
 * The `GET /schema/predict.json` answer of a service with these limits: the protocol's schema
 * (`schemaResponse`), with `k`'s maximum and default, `rows`' maxItems and the description's
 * row and byte limits set to the service's when its flags (`--max-k`, `--max-predict-rows`,
 * `--max-predict-bytes`) changed them. It used to say the protocol's defaults whatever the
 * service took, so a client that validated against it refused requests the service answers (or
 * sent ones it refuses).
 */
function schemaWithLimits(
  maxK: number,
  maxRows: number,
  maxBodyBytes: number,
): () => Response | Promise<Response> {
  const d = PREDICT_LIMITS;
  if (maxK === d.maxK && maxRows === d.maxRows && maxBodyBytes === d.maxBodyBytes) {
    return schemaResponse;
  }
  let text: Promise<string> | undefined;
  const patched = async () => {
    const schema = await schemaResponse().json();
    const request = schema.$defs.request.properties;
    request.k.maximum = maxK;
    request.k.default = Math.min(d.defaultK, maxK);
    request.rows.maxItems = maxRows;
    schema.description = String(schema.description)
      .replace(`(at most ${d.maxRows})`, `(at most ${maxRows})`)
      .replace(`body at most ${d.maxBodyBytes} bytes`, `body at most ${maxBodyBytes} bytes`);
    return JSON.stringify(schema);
  };
  const headers = schemaResponse().headers;
  return async () => new Response(await (text ??= patched()), { status: 200, headers });
}
