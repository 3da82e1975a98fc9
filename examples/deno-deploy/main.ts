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
 * Routes: `GET /health` (model kind, sizes, ETag), `POST /predict` (see sdk/http.ts: the same
 * protocol as the learning service) and `GET /schema/predict.json` (its JSON Schema).
 *
 *   MODEL_URL=http://127.0.0.1:8080/model npx deno serve --host 127.0.0.1 --allow-net --allow-env examples/deno-deploy/main.ts
 *
 * (`deno serve` listens on every interface, 0.0.0.0, without `--host`; the module cannot choose
 * its address. On Deno Deploy the platform sets the listener.)
 *
 * Without `MODEL_URL` or `MODEL_KV_KEY` it prints one line saying so and exits with code 2.
 *
 * @module
 */
import { appFor, modelsFromEnv } from "./app.ts";

/**
 * The app `deno serve` runs, configured from the environment.
 *
 * @example
 * ```ts
 * const file = await Deno.readFile(new URL("../../tests/fixtures/v1/linear-sparse.tsm", import.meta.url));
 * Deno.env.set("MODEL_URL", `data:application/octet-stream;base64,${btoa(String.fromCharCode(...file))}`);
 * const { default: app } = await import("./main.ts");
 * Deno.env.delete("MODEL_URL");
 * const res = await app.request("/health");
 * console.log((await res.json()).kind); // linear-sparse
 * ```
 */
const app: ReturnType<typeof appFor> = appFor(await modelsOrExit());
export default app;

/**
 * The model cache from the environment; run as the main module (`deno serve main.ts`) without a
 * usable environment, prints one line naming what to set and exits with code 2 instead of an
 * uncaught error's stack trace (imported as a module, it throws).
 */
async function modelsOrExit(): Promise<Parameters<typeof appFor>[0]> {
  try {
    return await modelsFromEnv((name) => Deno.env.get(name));
  } catch (e) {
    if (!import.meta.main) throw e;
    const why = e instanceof Error ? e.message : String(e);
    console.error(
      `deno-deploy example: ${why} (MODEL_URL: the model file's URL, e.g. ` +
        `http://127.0.0.1:8080/model of 'tagstream serve --public-read'; MODEL_KV_KEY: a key ` +
        `stored by seed_kv.ts, with --unstable-kv); see examples/deno-deploy/README.md`,
    );
    Deno.exit(2);
  }
}
