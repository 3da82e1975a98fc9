/**
 * One `/predict` protocol (sdk/predict_protocol.ts), three servers: the same case table is sent
 * to the learning service (its HTTP app on 127.0.0.1), the Deno Deploy example under real
 * `deno serve` and the Cloudflare Worker example in real `workerd` (bundled by wrangler, run by
 * Miniflare), the edge ones serving the model the service published (read from its `GET /model`
 * by `deno serve`, from Workers KV by the worker). Every error case gets the same status and
 * the same body byte for byte everywhere; every answer has the same labels, the edge ones the
 * same body byte for byte, the service's scores within float rounding of them. Two models: index
 * feature keys, and names with text. Needs no data set.
 */
import { createApp } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import type { EventLimits } from "../../src/service/events.ts";
import { factory as leml } from "../../src/models/leml/mod.ts";
import { type Child, start } from "./process.ts";
import { assert } from "../helpers.ts";

const MAIN = new URL("../../examples/deno-deploy/main.ts", import.meta.url).pathname;
const EXAMPLE = new URL("../../examples/cloudflare-worker/", import.meta.url).pathname;
const WRANGLER = new URL("../../node_modules/wrangler/bin/wrangler.js", import.meta.url).pathname;
const LISTENING = /Listening on (http:\/\/127\.0\.0\.1:\d+)\//;

interface Case {
  name: string;
  body?: string | Uint8Array;
  method?: string;
  path?: string;
  /** The expected status (and, for errors, a part of the message). */
  status: number;
  error?: string;
}

const post = (name: string, body: unknown, status = 200, error?: string): Case => ({
  name,
  body: typeof body === "string" ? body : JSON.stringify(body),
  status,
  error,
});

/** Cases both models answer alike. */
const COMMON: Case[] = [
  post("malformed JSON", "{", 400, "/predict body is malformed JSON"),
  post("not an object", "[]", 400, "must be a JSON object"),
  post("k = 0", { indices: [1], k: 0 }, 400, "field 'k' must be an integer in [1, 100]"),
  post("k = 101", { indices: [1], k: 101 }, 400, "field 'k' must be an integer in [1, 100]"),
  post("k = 2.5", { indices: [1], k: 2.5 }, 400, "field 'k'"),
  post("unknown field", { indices: [1], what: 1 }, 400, `unknown field "what"`),
  post("rows not an array", { rows: {} }, 400, "field 'rows' must be an array"),
  post("row and rows", { indices: [1], rows: [] }, 400, "not both"),
  post("nothing", {}, 400, "is required"),
  post("repeated index", { indices: [1, 1] }, 400, "listed twice"),
  post("negative index", { indices: [1, -2] }, 400, "indices[1]: must be a feature index"),
  post("fractional index", { indices: [1.5] }, 400, "indices[0]"),
  post("indices not an array", { indices: "1" }, 400, "field 'indices' must be an array"),
  post("values too short", { indices: [1, 2], values: [1] }, 400, "as long as 'indices'"),
  post("value not a number", { indices: [1], values: ["x"] }, 400, "values[0]"),
  post("value beyond float32", { indices: [1], values: [1e39] }, 400, "values[0]"),
  post("values without indices", { values: [1] }, 400, "field 'values' needs 'indices'"),
  post("features and indices", { indices: [1], features: {} }, 400, "either 'features'"),
  post("k inside a row", { rows: [{ indices: [1], k: 2 }] }, 400, `rows[0]: unknown field "k"`),
  post("row not an object", { rows: [1] }, 400, "rows[0]: must be an object"),
  post("feature value", { features: { "1": "x" } }, 400, `features["1"]: value must be`),
  post("text with indices", { text: "a", indices: [1] }, 400, "give 'text'"),
  post("too deep", { rows: [{ features: { a: [[1]] } }] }, 400, "nested deeper than 4 levels"),
  post(
    "too many rows",
    { rows: Array.from({ length: 1001 }, () => ({ indices: [1] })) },
    400,
    "at most 1000 rows per request, got 1001",
  ),
  {
    name: "not UTF-8",
    body: Uint8Array.of(0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d),
    status: 400,
    error: "not valid UTF-8",
  },
  post(
    "body over 1 MiB",
    { indices: [1], pad: "x".repeat(1 << 20) },
    413,
    "larger than the limit of 1048576 bytes",
  ),
  { name: "GET /predict", method: "GET", path: "/predict", status: 404, error: "no route" },
  // /health answers GET (the worker answered every method)
  { name: "POST /health", method: "POST", path: "/health", status: 404, error: "no route" },
  { name: "schema", method: "GET", path: "/schema/predict.json", status: 200 },
  post("indices, binary", { indices: [3, 10], k: 3 }),
  post("rows", { rows: [{ indices: [1] }, { indices: [2], values: [2] }], k: 2 }),
];

/** The index-keys model (features "0".."10"). */
const INDEX_CASES: Case[] = [
  post("features", { features: { "3": 1, "10": 0.5 }, k: 3 }),
  post("indices unsorted, one beyond the width", {
    indices: [10, 3, 999999],
    values: [0.5, 1, 2],
    k: 3,
  }),
  post("feature beyond the width", { features: { "3": 1, "5000": 1 } }),
  post("k over the labels", { features: { "3": 1 }, k: 100 }),
  post("mixed rows", { rows: [{ indices: [1] }, { features: { "2": 1 } }], k: 2 }),
  post("key not an index", { features: { x: 1 } }, 400, `features: key "x" is not a feature index`),
  post("row key not an index", { rows: [{ features: { "01": 1 } }] }, 400, "rows[0]: features"),
  post("text to a model without", { text: "hello" }, 400, "this model was not trained on text"),
];

/** The names + text model. */
const TEXT_CASES: Case[] = [
  post("text", { text: "JSON parser, fast", k: 3 }),
  post("unicode text", { text: "Cafe\u0301 — CAFÉ ＪＳＯＮ 東京", k: 2 }),
  post("text and features", { text: "editor editor", features: { vim: 2, unseen: 3 }, k: 3 }),
  post("names, one unknown", { features: { parser: 1, unseen: 2 }, k: 3 }),
  post("text rows", { rows: [{ text: "vim game" }, { features: { json: 1 } }], k: 2 }),
  post("text not a string", { text: 5 }, 400, "field 'text' must be a string"),
];

const WORDS = ["parser", "json", "fast", "editor", "text", "vim", "game", "3d", "café", "東京"];

function events(kind: "index" | "text"): string {
  const out: string[] = [];
  for (let i = 0; i < 400; i++) {
    const label = `t${i % 5}`;
    out.push(JSON.stringify(
      kind === "index" ? { features: { [String(i % 10)]: 1, "10": 0.5 }, labels: [label] } : {
        text: `${WORDS[i % 10]} ${WORDS[(i * 7 + 3) % 10]}`,
        ...(i % 3 === 0 ? { features: { [WORDS[i % 10]]: 1 } } : {}),
        labels: [label],
      },
    ));
  }
  return out.join("\n");
}

interface Answer {
  status: number;
  text: string;
}

async function ask(base: string, c: Case): Promise<Answer> {
  const res = await fetch(`${base}${c.path ?? "/predict"}`, {
    method: c.method ?? "POST",
    body: c.body as BodyInit | undefined,
  });
  return { status: res.status, text: await res.text() };
}

/** A service of `kind` on 127.0.0.1 that learned and published; its base URL and stop. */
async function service(kind: "index" | "text") {
  const dir = await Deno.makeTempDir();
  const limits: EventLimits = kind === "index"
    ? { featureKeys: "index" }
    : { featureKeys: "name", text: { ngrams: 2 } };
  const s = await LearningService.open({
    factory: leml,
    stateDir: dir,
    batchSize: 4,
    modelOptions: { rank: 4, seed: 1 },
    publishEvery: 0,
    log: () => {},
    limits,
  });
  const app = createApp({ service: s, publicRead: true });
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen() {} },
    app.fetch,
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  const r = await fetch(`${base}/events`, { method: "POST", body: events(kind) });
  const ingest = await r.json();
  assert(r.status === 200 && ingest.accepted === 400, `${kind}: ${JSON.stringify(ingest)}`);
  s.learner.flush();
  const p = await fetch(`${base}/publish`, { method: "POST" });
  const published = await p.text();
  assert(p.status === 200, `publish: ${published}`);
  const file = new Uint8Array(await (await fetch(`${base}/model`)).arrayBuffer());
  await Deno.writeFile(`${dir}/model.tsm`, file);
  return {
    base,
    modelPath: `${dir}/model.tsm`,
    async stop() {
      ac.abort();
      await server.finished;
      await s.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function compare(c: Case, answers: Record<string, Answer>, where: string): void {
  const [svc, deno, worker] = [answers.service, answers["deno serve"], answers.workerd];
  const show = () =>
    Object.entries(answers).map(([k, a]) => `  ${k}: ${a.status} ${a.text.slice(0, 300)}`)
      .join("\n");
  for (const [who, a] of Object.entries(answers)) {
    assert(
      a.status === c.status,
      `${where} ${c.name}: ${who} gave ${a.status}, want ${c.status}\n${show()}`,
    );
  }
  // the two edge runtimes run the same SDK code: the same bytes
  assert(deno.text === worker.text, `${where} ${c.name}: deno serve and workerd differ\n${show()}`);
  if (c.status !== 200 || c.path !== undefined) {
    assert(
      svc.text === deno.text,
      `${where} ${c.name}: the service and the edge differ\n${show()}`,
    );
    if (c.error) {
      const e = JSON.parse(svc.text).error;
      assert(typeof e === "string" && e.includes(c.error), `${where} ${c.name}: ${e}`);
    }
    return;
  }
  // answers: same labels, same model version; the service's scores (the trainer's own
  // prediction code) within float rounding of the SDK's
  type Body = { modelVersion?: number; labels?: string[]; scores?: number[]; results?: Body[] };
  const a = JSON.parse(svc.text) as Body, b = JSON.parse(deno.text) as Body;
  assert(
    a.modelVersion === 1 && b.modelVersion === 1,
    `${where} ${c.name}: model versions\n${show()}`,
  );
  const rowsA = a.results ?? [a], rowsB = b.results ?? [b];
  assert(rowsA.length === rowsB.length, `${where} ${c.name}: rows\n${show()}`);
  rowsA.forEach((ra, i) => {
    const rb = rowsB[i];
    assert(
      JSON.stringify(ra.labels) === JSON.stringify(rb.labels) && ra.labels!.length > 0,
      `${where} ${c.name} row ${i}: labels\n${show()}`,
    );
    ra.scores!.forEach((s, r) => {
      const t = rb.scores![r];
      assert(
        Math.abs(s - t) <= 1e-5 * Math.max(1, Math.abs(t)),
        `${where} ${c.name}: ${s} vs ${t}`,
      );
    });
  });
}

Deno.test({
  name: "one /predict protocol: the service, deno serve and workerd answer the same cases alike",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const children: Child[] = [];
    const services: { stop(): Promise<void> }[] = [];
    try {
      const build = start("node", [
        WRANGLER,
        "deploy",
        "--dry-run",
        "--outdir",
        `${dir}/dist`,
        "--config",
        `${EXAMPLE}wrangler.toml`,
      ], { WRANGLER_SEND_METRICS: "false" });
      children.push(build);
      assert((await build.exited(120_000)) === 0, `wrangler failed:\n${build.lines.join("\n")}`);
      for (const [kind, own] of [["index", INDEX_CASES], ["text", TEXT_CASES]] as const) {
        const svc = await service(kind);
        services.push(svc);
        const serve = start(Deno.execPath(), [
          "serve",
          "--allow-net",
          "--allow-env",
          "--host",
          "127.0.0.1",
          "--port",
          "0",
          MAIN,
        ], { MODEL_URL: `${svc.base}/model`, MODEL_KV_KEY: "" });
        children.push(serve);
        const worker = start("node", [
          `${EXAMPLE}scripts/local.mjs`,
          "--bundle",
          `${dir}/dist/worker.js`,
          "--model",
          svc.modelPath,
          "--source",
          "kv",
          "--key",
          "model.tsm",
        ], { TMPDIR: dir }); // Miniflare's temporary directory goes with dir
        children.push(worker);
        const bases: Record<string, string> = {
          service: svc.base,
          "deno serve": (await serve.waitFor(LISTENING, 60_000))[1],
          workerd: String(JSON.parse((await worker.waitFor(/^\{"url".*\}$/, 60_000))[0]).url)
            .replace(/\/$/, ""),
        };
        for (const c of [...COMMON, ...own]) {
          const answers: Record<string, Answer> = {};
          for (const [who, base] of Object.entries(bases)) answers[who] = await ask(base, c);
          compare(c, answers, kind);
        }
        await serve.stop();
        await worker.stop();
      }
    } finally {
      await Promise.all(children.map((c) => c.stop()));
      for (const s of services) await s.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
