/**
 * Tagstream predictions on Deno Deploy: a Hono app for `deno serve`.
 *
 * Environment:
 * - `MODEL_URL`: where the model file is served; polled every `MODEL_REFRESH_MS` ms (default 0:
 *   loaded once per isolate) and hot-swapped when its ETag changes; or
 * - `MODEL_KV_KEY`: comma-separated Deno KV key parts (e.g. `models,bibtex`) of a model stored by
 *   `seed_kv.ts` (needs `--unstable-kv`; `MODEL_KV_PATH` opens a local KV file instead of the
 *   default database).
 *
 * Routes: `GET /health` (model kind, sizes, ETag) and `POST /predict` (see sdk/http.ts).
 *
 *   MODEL_URL=https://example.com/bibtex.tsm deno serve --allow-net --allow-env examples/deno-deploy/main.ts
 *
 * @module
 */
import { appFor, modelsFromEnv } from "./app.ts";

export default appFor(await modelsFromEnv((name) => Deno.env.get(name)));
