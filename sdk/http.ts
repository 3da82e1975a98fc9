/**
 * A JSON prediction endpoint for any runtime with `Request`/`Response` (Deno Deploy, Workers):
 *
 * - `POST` `{"features": {"name": 1.5}, "k": 5}` or `{"indices": [3, 9], "values": [1, 2], "k": 5}`
 *   → `{"labels": [{"label": 12, "name": "sports", "score": 0.93}, ...]}`;
 * - `POST` `{"rows": [row, ...], "k": 5}`, each row `{"name": 1.5}`, `{"features": {...}}` or
 *   `{"indices": [...], "values": [...]}` → `{"results": [{"labels": [...]}, ...]}`.
 *
 * Bad requests get a 400 with `{"error": "..."}`, an unavailable model a 503; the handler never
 * throws. Responses carry the model's validator in `x-model-etag`.
 *
 * @module
 */
import type { ModelInput } from "./features.ts";
import type { Model } from "./model.ts";

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

/** Largest k a request may ask for. */
const MAX_K = 1000;
/** Most rows in one batch request. */
const MAX_ROWS = 10_000;

const json = (body: unknown, status: number, etag?: string) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...(etag ? { "x-model-etag": etag } : {}) },
  });

function input(row: unknown, where: string, bare: boolean): ModelInput {
  const r = row as { features?: unknown; indices?: unknown; values?: unknown };
  if (typeof r !== "object" || r === null) throw new TypeError(`${where} must be an object`);
  if (Array.isArray(r.indices) && Array.isArray(r.values)) {
    return { indices: r.indices as number[], values: r.values as number[] };
  }
  const f = r.features ?? (bare ? r : undefined);
  if (typeof f !== "object" || f === null || Array.isArray(f)) {
    throw new TypeError(`${where}: expected "features" {name: value} or "indices"/"values" arrays`);
  }
  for (const [name, v] of Object.entries(f)) {
    if (typeof v !== "number") throw new TypeError(`${where}: feature "${name}" is not a number`);
  }
  return f as Record<string, number>;
}

/**
 * The `POST` prediction handler of a model provider.
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
 * console.log(res.status, await res.json()); // 200 { labels: [ { label: 0, name: "tag-0", score: 0.88... } ] }
 * ```
 */
export function predictHandler(
  models: ModelProvider,
): (request: Request, waitUntil?: (p: Promise<unknown>) => void) => Promise<Response> {
  return async (request, waitUntil) => {
    if (request.method !== "POST") return json({ error: "use POST with a JSON body" }, 405);
    let body: { k?: unknown; rows?: unknown };
    try {
      body = await request.json();
    } catch {
      return json({ error: "the body is not JSON" }, 400);
    }
    let model: Model;
    try {
      model = await models.get(waitUntil);
    } catch (e) {
      return json({ error: `model unavailable: ${(e as Error)?.message}` }, 503);
    }
    const etag = models.etag;
    try {
      const k = body?.k ?? 5;
      if (!Number.isInteger(k) || (k as number) < 0 || (k as number) > MAX_K) {
        throw new RangeError(`"k" must be an integer in [0, ${MAX_K}]`);
      }
      const answer = (x: ModelInput) => {
        const top = model.predictTopK(x, k as number);
        return Array.from(top.labels, (label, i) => ({
          label,
          name: model.labelName(label),
          score: top.scores[i],
        }));
      };
      if (body.rows !== undefined) {
        const rows = body.rows;
        if (!Array.isArray(rows) || rows.length > MAX_ROWS) {
          throw new TypeError(`"rows" must be an array of at most ${MAX_ROWS} rows`);
        }
        const results = rows.map((r, i) => ({ labels: answer(input(r, `rows[${i}]`, true)) }));
        return json({ results }, 200, etag);
      }
      return json({ labels: answer(input(body, "the body", false)) }, 200, etag);
    } catch (e) {
      return json({ error: (e as Error)?.message ?? String(e) }, 400, etag);
    }
  };
}
