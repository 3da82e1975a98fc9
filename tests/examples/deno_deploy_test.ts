/**
 * The Deno Deploy example (examples/deno-deploy, a Hono app) under real `deno serve` on
 * 127.0.0.1: a pruned BR model of bibtex served from a URL answers exactly as the trainer, is
 * hot-swapped when the URL's ETag changes, and the same model stored in Deno KV in chunks under
 * 64 KiB is served too. Needs bibtex (TAGSTREAM_DATA or `-- --data-dir`); skipped with a message
 * without it.
 */
import {
  assertSameAnswers,
  BIBTEX,
  type BibtexModel,
  bibtexModel,
  noteSkipped,
} from "./bibtex_model.ts";
import { type Child, postJson, start } from "./process.ts";
import { assert } from "../helpers.ts";

const MAIN = new URL("../../examples/deno-deploy/main.ts", import.meta.url).pathname;
const SEED = new URL("../../examples/deno-deploy/seed_kv.ts", import.meta.url).pathname;
const LISTENING = /Listening on (http:\/\/127\.0\.0\.1:\d+)\//;

async function checkAnswers(base: string, m: BibtexModel, what: string): Promise<void> {
  const rows = m.rows.map((x) => ({ indices: [...x.indices], values: [...x.values] }));
  const batch = await postJson(`${base}/predict`, { rows, k: 5 });
  assertSameAnswers(batch.results as never, m, 5, `${what} (batch)`);
  // named features, one request per row
  const single = [];
  for (const x of m.rows.slice(0, 10)) {
    const features: Record<string, number> = {};
    x.indices.forEach((j, p) => (features[m.featureNames[j]] = x.values[p]));
    single.push(await postJson(`${base}/predict`, { features, k: 5 }));
  }
  assertSameAnswers(single as never, { ...m, rows: m.rows.slice(0, 10) }, 5, `${what} (names)`);
}

async function health(base: string): Promise<{ etag?: string; kind?: string }> {
  const res = await fetch(`${base}/health`);
  return await res.json();
}

noteSkipped("the Deno Deploy example test");
Deno.test({
  ignore: !BIBTEX.present,
  name: "Deno Deploy example: deno serve answers like the trainer; ETag hot swap; Deno KV chunks",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const m1 = await bibtexModel(0, 1500), m2 = await bibtexModel(1500, 3000);
    assert(m1.file.length > 65536, "the model must span several KV chunks");
    let served = { bytes: m1.file, etag: '"v1"' };
    const ac = new AbortController();
    const files = Deno.serve(
      { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
      (req) =>
        req.headers.get("if-none-match") === served.etag
          ? new Response(null, { status: 304 })
          : new Response(served.bytes as Uint8Array<ArrayBuffer>, {
            headers: { etag: served.etag },
          }),
    );
    const dir = await Deno.makeTempDir();
    const children: Child[] = [];
    try {
      const serve = start(Deno.execPath(), [
        "serve",
        "--allow-net",
        "--allow-env",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        MAIN,
      ], {
        MODEL_URL: `http://127.0.0.1:${files.addr.port}/bibtex.tsm`,
        MODEL_KV_KEY: "",
        MODEL_REFRESH_MS: "100",
      });
      children.push(serve);
      const base = (await serve.waitFor(LISTENING, 60_000))[1];
      assert((await health(base)).etag === '"v1"', "first model");
      await checkAnswers(base, m1, "URL model");
      // hot swap: the URL now serves another model under a new ETag
      served = { bytes: m2.file, etag: '"v2"' };
      const until = Date.now() + 15_000;
      while ((await health(base)).etag !== '"v2"') {
        assert(Date.now() < until, "the new model was not swapped in within 15 s");
        await new Promise((r) => setTimeout(r, 100));
      }
      await checkAnswers(base, m2, "hot-swapped model");
      await serve.stop();

      // Deno KV: seed with the example's script, then serve from KV
      const modelPath = `${dir}/bibtex.tsm`, kvPath = `${dir}/kv.sqlite`;
      await Deno.writeFile(modelPath, m1.file);
      const seed = start(Deno.execPath(), [
        "run",
        "--unstable-kv",
        "--allow-read",
        "--allow-write",
        SEED,
        "--kv",
        kvPath,
        "--key",
        "models,bibtex",
        modelPath,
      ]);
      children.push(seed);
      const manifest = JSON.parse((await seed.waitFor(/^\{.*"chunks".*\}$/, 60_000))[0]);
      assert((await seed.exited(30_000)) === 0, `seed_kv.ts failed:\n${seed.lines.join("\n")}`);
      assert(manifest.chunks === Math.ceil(m1.file.length / 60_000), JSON.stringify(manifest));
      assert(manifest.chunkBytes <= 65536 && manifest.byteLength === m1.file.length, "chunking");
      const kvServe = start(Deno.execPath(), [
        "serve",
        "--unstable-kv",
        "--allow-net",
        "--allow-env",
        "--allow-read",
        "--allow-write",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        MAIN,
      ], { MODEL_URL: "", MODEL_KV_KEY: "models,bibtex", MODEL_KV_PATH: kvPath });
      children.push(kvServe);
      const kvBase = (await kvServe.waitFor(LISTENING, 60_000))[1];
      assert((await health(kvBase)).etag === manifest.version, "served from KV");
      await checkAnswers(kvBase, m1, "Deno KV model");
      const bad = await fetch(`${kvBase}/predict`, { method: "POST", body: '{"features": 1}' });
      assert(bad.status === 400, `bad request: ${bad.status}`);
      await bad.body?.cancel();
      assert((await health(kvBase)).kind === "linear-sparse", "still serving after a bad request");
    } finally {
      await Promise.all(children.map((c) => c.stop()));
      ac.abort();
      await files.finished;
      await Deno.remove(dir, { recursive: true });
    }
  },
});
