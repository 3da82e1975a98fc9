/**
 * The `POST /predict` endpoint for any runtime with `Request`/`Response` (Deno Deploy, Workers),
 * speaking the protocol of `./predict_protocol.ts` — the same requests, limits, errors and
 * answers as the learning service (`tagstream serve`):
 *
 * - `{"features": {"name": 1.5}, "k": 5}`, `{"indices": [3, 9], "values": [1, 2], "k": 5}`
 *   (`values` omitted: all 1) or `{"text": "...", "k": 5}` → `{"labels": ["sports", ...],
 *   "scores": [0.93, ...]}` (with `"modelVersion"` first when the model file's meta has one);
 * - `{"rows": [row, ...], "k": 5}` → `{"results": [{"labels": [...], "scores": [...]}, ...]}`.
 *
 * Bad requests get a 400 with `{"error": "..."}`, a body over 1 MiB a 413, another method a
 * 404 (as in the service), an unavailable model a 503; the handler never throws. Responses carry the model's
 * validator in `x-model-etag`. The JSON Schema of the requests: `schemaResponse()` (the
 * `GET /schema/predict.json` answer), re-exported here from `./predict_protocol.ts`.
 *
 * @module
 */
import type { ModelInput } from "./features.ts";
import type { Model } from "./model.ts";
import {
  columnOverflow,
  jsonResponse,
  jsonScore,
  parsePredictBody,
  predictBody,
  PredictError,
  readPredictBody,
} from "./predict_protocol.ts";

export { schemaResponse } from "./predict_protocol.ts";

/**
 * What the handler needs from a model cache (a {@linkcode ModelCache} fits).
 *
 * @example
 * ```ts
 * import type { ModelProvider } from "./http.ts";
 * import { loadModel } from "./mod.ts";
 * const model = loadModel(await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url)));
 * const provider: ModelProvider = { get: async () => model, etag: "v1" };
 * console.log(provider.etag);
 * ```
 */
export interface ModelProvider {
  get(waitUntil?: (p: Promise<unknown>) => void): Promise<Model>;
  readonly etag?: string;
}

/**
 * The `/predict` handler of a model provider.
 *
 * @example
 * ```ts
 * import { predictHandler } from "./http.ts";
 * import { loadModel } from "./mod.ts";
 * const model = loadModel(await Deno.readFile(new URL("../tests/fixtures/v1/linear-sparse.tsm", import.meta.url)));
 * const handle = predictHandler({ get: async () => model });
 * const res = await handle(new Request("http://x/predict", {
 *   method: "POST",
 *   body: JSON.stringify({ features: { alpha: 1, gamma: 1 }, k: 1 }),
 * }));
 * console.log(res.status, await res.json()); // 200 { labels: [ "tag-0" ], scores: [ 0.88... ] }
 * ```
 */
export function predictHandler(
  models: ModelProvider,
): (request: Request, waitUntil?: (p: Promise<unknown>) => void) => Promise<Response> {
  return async (request, waitUntil) => {
    const headers: Record<string, string> = {};
    try {
      if (request.method !== "POST") {
        const path = new URL(request.url).pathname;
        throw new PredictError(404, `no route for ${request.method} ${path}`);
      }
      const bytes = await readPredictBody(request);
      let model: Model;
      try {
        model = await models.get(waitUntil);
      } catch (e) {
        throw new PredictError(503, `model unavailable: ${(e as Error)?.message ?? e}`);
      }
      if (models.etag) headers["x-model-etag"] = models.etag;
      const fs = model.featureSpace;
      const req = parsePredictBody(bytes, {
        indexKeys: !fs || fs.type === "index",
        text: fs !== undefined && fs.type !== "index" && fs.text !== undefined,
      });
      const answers = req.rows.map((r, i) => {
        const x = "features" in r && !("text" in r) ? r.features : r;
        let top;
        try {
          top = model.predictTopK(x as ModelInput, req.k);
        } catch (e) {
          // a query the protocol lets through but the model refuses (names that share a hashed
          // column adding up beyond float32): the client's row, so a 400, not an internal error
          if (!(e instanceof TypeError && e.message.startsWith("predictTopK: "))) throw e;
          throw columnOverflow(
            req.batch ? `rows[${i}]: ` : "",
            e.message.replace(/^predictTopK: /, ""),
          );
        }
        return {
          labels: Array.from(top.labels, (l) => model.labelName(l)),
          scores: Array.from(top.scores, jsonScore),
        };
      });
      const v = model.meta?.modelVersion;
      return jsonResponse(
        predictBody(answers, req.batch, typeof v === "number" ? v : undefined),
        200,
        headers,
      );
    } catch (e) {
      return e instanceof PredictError
        ? jsonResponse({ error: e.message }, e.status, headers)
        : jsonResponse({ error: `internal error: ${(e as Error)?.message ?? e}` }, 500, headers);
    }
  };
}
