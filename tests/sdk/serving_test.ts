/**
 * Serving pieces of the SDK: the per-isolate model cache (one decode, shared loads, retries,
 * background refresh and hot swap), the URL source against a real local HTTP server with ETags,
 * Deno KV chunking (chunks under the 64 KiB limit, atomic version switch, old chunks removed,
 * damage detected), the Cloudflare sources' conditional reads, and the JSON handler.
 */
import { assetSource, kvNamespaceSource, r2Source } from "../../sdk/cloudflare.ts";
import { KV_CHUNK_BYTES, kvSource, memoryKv, saveModelToKv } from "../../sdk/deno_deploy.ts";
import { predictHandler } from "../../sdk/http.ts";
import { type ModelBytes, ModelCache, sharedModel, urlSource } from "../../sdk/serving.ts";
import { assert } from "./helpers.ts";

const FIXTURES = new URL("../fixtures/v1/", import.meta.url);
const sparse = await Deno.readFile(new URL("linear-sparse.tsm", FIXTURES));
const lowrank = await Deno.readFile(new URL("linear-lowrank.tsm", FIXTURES));
const knn = await Deno.readFile(new URL("knn-embedding.tsm", FIXTURES));

Deno.test("ModelCache: one fetch for concurrent gets, retry after a failed load", async () => {
  let calls = 0, fail = true;
  const cache = new ModelCache({
    id: "t1",
    fetch: async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      if (fail) throw new Error("source down");
      return { bytes: sparse };
    },
  });
  const errors = await Promise.allSettled([cache.get(), cache.get()]);
  assert(errors.every((e) => e.status === "rejected") && calls === 1, `${calls} fetches`);
  fail = false;
  const [a, b, c] = await Promise.all([cache.get(), cache.get(), cache.get()]);
  assert(a === b && b === c && (calls as number) === 2, `retry: ${calls} fetches`);
  assert(a.kind === "linear-sparse" && cache.etag?.startsWith("crc-"), `${cache.etag}`);
  assert(sharedModel(cache.source) === sharedModel(cache.source), "shared by id");
});

Deno.test("ModelCache: background refresh hot-swaps on a new ETag, keeps the model otherwise", async () => {
  let served: ModelBytes | null = { bytes: sparse, etag: "v1" }, down = false;
  const seen: (string | undefined)[] = [], errors: unknown[] = [], pending: Promise<unknown>[] = [];
  const cache = new ModelCache({
    id: "t2",
    fetch: (etag) => {
      seen.push(etag);
      if (down) return Promise.reject(new Error("down"));
      return Promise.resolve(served && served.etag !== etag ? served : null);
    },
  }, { refreshMs: 1, onError: (e) => errors.push(e) });
  const first = await cache.get();
  await new Promise((r) => setTimeout(r, 3));
  assert((await cache.get((p) => pending.push(p))) === first, "served while revalidating");
  await Promise.all(pending.splice(0));
  assert(cache.current === first && seen.at(-1) === "v1", `304 keeps the model: ${seen}`);
  served = { bytes: lowrank, etag: "v2" };
  await new Promise((r) => setTimeout(r, 3));
  await cache.get((p) => pending.push(p));
  await Promise.all(pending.splice(0));
  assert(cache.current?.kind === "linear-lowrank" && cache.etag === "v2", "swapped to v2");
  down = true;
  await new Promise((r) => setTimeout(r, 3));
  await cache.get((p) => pending.push(p));
  await Promise.all(pending.splice(0));
  assert(
    cache.current?.kind === "linear-lowrank" && errors.length === 1,
    "a failed refresh keeps v2",
  );
  down = false;
  served = { bytes: sparse.slice(0, 100), etag: "v3" }; // broken file: refused, v2 stays
  await new Promise((r) => setTimeout(r, 3));
  await cache.get((p) => pending.push(p));
  await Promise.all(pending.splice(0));
  assert(cache.etag === "v2" && (errors.length as number) === 2, `broken update: ${errors.at(-1)}`);
});

Deno.test("urlSource over real HTTP: ETag, 304, errors; hot swap through ModelCache", async () => {
  let body = sparse, etag = '"a"', requests = 0;
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    (req) => {
      requests++;
      if (new URL(req.url).pathname !== "/m.tsm") return new Response("no", { status: 404 });
      if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304 });
      return new Response(body, { headers: { etag } });
    },
  );
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const cache = new ModelCache(urlSource(`${base}/m.tsm`));
    assert((await cache.get()).kind === "linear-sparse" && cache.etag === '"a"', "first load");
    assert(!(await cache.refresh()) && requests === 2, "304: unchanged");
    body = knn;
    etag = '"b"';
    assert(await cache.refresh(), "changed ETag: swapped");
    assert((await cache.get()).kind === "knn-embedding", "new model in service");
    let err: unknown;
    try {
      await urlSource(`${base}/missing.tsm`).fetch();
    } catch (e) {
      err = e;
    }
    assert(err instanceof Error && err.message.includes("404"), `${err}`);
  } finally {
    ac.abort();
    await server.finished;
  }
});

Deno.test("Deno KV: chunks under 64 KiB, atomic version switch, old chunks deleted, damage detected", async () => {
  const kv = memoryKv(), key = ["models", "m"] as const;
  const big = new Uint8Array(150_000);
  big.set(sparse); // any bytes: chunking does not decode
  const m1 = await saveModelToKv(kv, key, big);
  assert(
    m1.chunks === Math.ceil(150_000 / KV_CHUNK_BYTES) && KV_CHUNK_BYTES < 65536,
    `${m1.chunks}`,
  );
  const stored: Uint8Array[] = [];
  for await (const e of kv.list({ prefix: [...key, "chunks", m1.version] })) {
    stored.push(e.value as Uint8Array);
  }
  assert(stored.length === 3 && stored.every((c) => c.length <= KV_CHUNK_BYTES), "chunk sizes");
  const got = await kvSource(kv, key).fetch();
  assert(got?.etag === m1.version && got.bytes.every((b, i) => b === big[i]), "round trip");
  assert((await kvSource(kv, key).fetch(m1.version)) === null, "same version: unchanged");
  // a new version switches the manifest and removes the old chunks
  const m2 = await saveModelToKv(kv, key, lowrank, 100);
  assert(m2.chunks === Math.ceil(lowrank.length / 100) && m2.version !== m1.version, "v2");
  let old = 0;
  for await (const _ of kv.list({ prefix: [...key, "chunks", m1.version] })) old++;
  assert(old === 0, `${old} chunks of the old version left`);
  const cache = new ModelCache(kvSource(kv, key));
  assert((await cache.get()).kind === "linear-lowrank", "served from KV");
  await kv.delete([...key, "chunks", m2.version, 2]);
  let err: unknown;
  try {
    await kvSource(kv, key).fetch();
  } catch (e) {
    err = e;
  }
  assert(err instanceof Error && err.message.includes(`read 2/${m2.chunks} chunks`), `${err}`);
});

Deno.test("Cloudflare sources: KV value, R2 with etagDoesNotMatch, static asset", async () => {
  const kv = kvNamespaceSource({
    get: (k) => Promise.resolve(k === "m" ? sparse.slice().buffer : null),
  }, "m");
  assert((await kv.fetch())?.bytes.length === sparse.length, "KV");
  const calls: (string | undefined)[] = [];
  const r2 = r2Source({
    get: (_k, o) => {
      calls.push(o?.onlyIf?.etagDoesNotMatch);
      return Promise.resolve(
        o?.onlyIf?.etagDoesNotMatch === "e1"
          ? { etag: "e1" }
          : { etag: "e1", arrayBuffer: () => Promise.resolve(sparse.slice().buffer) },
      );
    },
  }, "m");
  assert((await r2.fetch())?.etag === "e1" && (await r2.fetch("e1")) === null, "R2");
  assert(calls.join() === ",e1", `R2 preconditions ${calls}`);
  const asset = assetSource({
    fetch: (r) =>
      Promise.resolve(
        new URL(r.url).pathname === "/models/m.tsm"
          ? new Response(sparse, { headers: { etag: '"x"' } })
          : new Response(null, { status: 404 }),
      ),
  }, "/models/m.tsm");
  assert((await asset.fetch())?.etag === '"x"', "asset");
  let err: unknown;
  try {
    await kvNamespaceSource({ get: () => Promise.resolve(null) }, "none").fetch();
  } catch (e) {
    err = e;
  }
  assert(err instanceof Error && err.message.includes(`"none"`), `${err}`);
});

Deno.test("predictHandler: answers, batch, 400 on bad requests, 405, 503", async () => {
  const cache = new ModelCache({
    id: "h",
    fetch: () => Promise.resolve({ bytes: sparse, etag: "v7" }),
  });
  const handle = predictHandler(cache);
  const post = async (body: unknown) => {
    const res = await handle(
      new Request("http://x/predict", {
        method: "POST",
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
    return { status: res.status, etag: res.headers.get("x-model-etag"), body: await res.json() };
  };
  const one = await post({ features: { alpha: 1, gamma: 1 }, k: 2 });
  assert(one.status === 200 && one.etag === "v7", JSON.stringify(one));
  assert(one.body.labels[0] === "tag-0" && one.body.labels.length === 2, JSON.stringify(one));
  const model = await cache.get();
  const direct = model.predictTopK({ alpha: 1, gamma: 1 }, 2);
  assert(one.body.labels[1] === model.labelName(direct.labels[1]), "same as the model");
  assert(Math.abs(one.body.scores[0] - direct.scores[0]) < 1e-7, "score");
  const batch = await post({
    rows: [{ features: { alpha: 1 } }, { indices: [1], values: [1] }, { indices: [2] }],
    k: 1,
  });
  assert(batch.status === 200 && batch.body.results.length === 3, JSON.stringify(batch));
  assert(
    batch.body.results[2].labels[0] ===
      model.labelName(model.predictTopK({ indices: [2], values: [1] }, 1).labels[0]),
    "indices without values: binary features",
  );
  for (
    const [body, part] of [
      ["{nope", "malformed JSON"],
      [{ features: { alpha: "x" } }, `features["alpha"]: value must be a finite number`],
      [{ features: { alpha: 1 }, k: -1 }, "field 'k' must be an integer in [1, 100]"],
      [{ features: { alpha: 1 }, k: 101 }, "field 'k' must be an integer in [1, 100]"],
      [{ indices: [1, 2], values: [1] }, "as long as 'indices'"],
      [{ alpha: 1 }, `unknown field "alpha"`],
      [{ rows: [{ alpha: 1 }] }, `rows[0]: unknown field "alpha"`],
      [{ rows: "x" }, "field 'rows' must be an array"],
      [{ text: "hello" }, "this model was not trained on text"],
    ] as const
  ) {
    const r = await post(body);
    assert(
      r.status === 400 && r.body.error.includes(part),
      `${JSON.stringify(body)}: ${JSON.stringify(r)}`,
    );
  }
  const get = await handle(new Request("http://x/predict"));
  assert(get.status === 404, `GET: ${get.status}`);
  await get.body?.cancel();
  const big = await post(JSON.stringify({ features: { alpha: 1 }, pad: "x".repeat(1 << 20) }));
  assert(big.status === 413 && big.body.error.includes("larger than the limit"), "413");
  const down = predictHandler(
    new ModelCache({ id: "down", fetch: () => Promise.reject(new Error("gone")) }),
  );
  const res = await down(new Request("http://x", { method: "POST", body: "{}" }));
  assert(res.status === 503 && (await res.json()).error.includes("gone"), "503");
});
