#!/usr/bin/env node
// Runs the worker locally in real workerd (through Miniflare) on 127.0.0.1, with the model in
// the chosen binding. Node >= 20.
//
//   node examples/cloudflare-worker/scripts/local.mjs --model bibtex.tsm [--source kv|r2|asset]
//        [--key bibtex.tsm] [--port 0] [--refresh-ms 0] [--bundle dist/worker.js]
//
// Without --bundle the worker is bundled first with wrangler (`deploy --dry-run`, using
// wrangler.toml). Prints one JSON line {"url", "source", "bundle"} when ready. Then reads
// commands on stdin, one per line: `put PATH` replaces the model in the binding (KV, R2 or the
// asset) and answers {"put": PATH}. Exits, stopping workerd, at the end of stdin or on
// SIGINT/SIGTERM.
import { spawnSync } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, posix, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Miniflare } from "miniflare";

const here = dirname(fileURLToPath(import.meta.url));
const project = resolve(here, "..");
const USAGE =
  "usage: node examples/cloudflare-worker/scripts/local.mjs --model FILE [--source kv|r2|asset]\n" +
  "  [--key bibtex.tsm] [--port 0] [--refresh-ms 0] [--bundle dist/worker.js]";
/** A usage error: one line naming the problem, then the usage, exit status 2. */
function refuse(message) {
  console.error(`local.mjs: ${message}\n${USAGE}`);
  process.exit(2);
}
let values;
try {
  ({ values } = parseArgs({
    options: {
      model: { type: "string" },
      source: { type: "string", default: "kv" },
      key: { type: "string", default: "bibtex.tsm" },
      port: { type: "string", default: "0" },
      "refresh-ms": { type: "string", default: "0" },
      bundle: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (e) {
  refuse(e.message);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.model) refuse("--model FILE is required");
if (!["kv", "r2", "asset"].includes(values.source)) {
  refuse(`--source must be kv, r2 or asset, got '${values.source}'`);
}
if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) {
  refuse(`--port must be an integer in [0, 65535], got '${values.port}'`);
}
if (!/[^/]/.test(values.key) || values.key.endsWith("/")) {
  refuse(`--key must name a file (a KV key, R2 object or asset path), got '${values.key}'`);
}
// the model is copied to the key's path in the asset directory: a key that climbs out of it
// would replace a file elsewhere (and the worker, whose asset URL stops at "/", never find it)
const keyPath = posix.normalize(values.key.replace(/^\/+/, ""));
if (keyPath === "." || keyPath.split("/")[0] === "..") {
  refuse(`--key must name a file inside the asset root (no '..' above it), got '${values.key}'`);
}
// as the worker reads MODEL_REFRESH_MS (refreshMsSetting): a whole number that is exact in a double
if (!/^\d+$/.test(values["refresh-ms"]) || !Number.isSafeInteger(Number(values["refresh-ms"]))) {
  refuse(`--refresh-ms must be a whole number of milliseconds, got '${values["refresh-ms"]}'`);
}
// checked before the worker is bundled (a missing model used to fail after it, with a stack)
for (const [flag, path] of [["model", values.model], ["bundle", values.bundle]]) {
  const stat = path === undefined ? undefined : statSync(path, { throwIfNoEntry: false });
  if (path !== undefined && !stat?.isFile()) {
    refuse(
      `--${flag} ${path}: ${stat?.isDirectory() ? "a directory, not a file" : "no such file"}`,
    );
  }
}
// a file that is not a model at all (the events, a bundle) used to start a worker that answered
// every request with a 503; a damaged model still does (the SDK checks the rest in the worker)
if (!hasModelMagic(values.model)) {
  refuse(`--model ${values.model}: not a Tagstream model file (no "TAGSTREAM" magic at its start)`);
}
// a port in use used to fail after the bundling, with workerd's and Miniflare's stack traces
if (values.port !== "0") {
  const code = await new Promise((done) => {
    const probe = createServer();
    probe.once("error", (e) => done(e.code ?? String(e)));
    probe.listen(Number(values.port), "127.0.0.1", () => probe.close(() => done(undefined)));
  });
  if (code === "EADDRINUSE") {
    refuse(
      `--port ${values.port}: 127.0.0.1:${values.port} is already in use (another server, or an ` +
        "earlier local.mjs still running?); pick another, or --port 0 for a free one",
    );
  } else if (code !== undefined) {
    refuse(`--port ${values.port}: cannot listen on 127.0.0.1:${values.port} (${code})`);
  }
}

/**
 * Whether `path` starts as a Tagstream model file does (docs/model-format.md, "Header"): a map
 * header of 1, 3 or 5 bytes, then "magic" → "TAGSTREAM".
 */
function hasModelMagic(path) {
  const head = Buffer.alloc(21);
  const fd = openSync(path, "r");
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const at = head[0] === 0xde ? 3 : head[0] === 0xdf ? 5 : (head[0] & 0xf0) === 0x80 ? 1 : -1;
  const magic = Buffer.concat([Buffer.from([0xa5]), Buffer.from("magic"), Buffer.from([0xa9])]);
  return at > 0 &&
    head.subarray(at, at + 16).equals(Buffer.concat([magic, Buffer.from("TAGSTREAM")]));
}

const work = mkdtempSync(join(tmpdir(), "tagstream-worker-"));
// removed however the process ends: Miniflare's own SIGINT/SIGTERM handler exits it before stop()
// gets past its await
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
let bundle = values.bundle;
if (!bundle) {
  const wrangler = resolve(project, "../../node_modules/wrangler/bin/wrangler.js");
  const out = join(work, "dist");
  const r = spawnSync(process.execPath, [
    wrangler,
    "deploy",
    "--dry-run",
    "--outdir",
    out,
    "--config",
    join(project, "wrangler.toml"),
  ], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  if (r.status !== 0) {
    console.error(`wrangler could not bundle the worker (exit ${r.status})`);
    process.exit(1);
  }
  bundle = join(out, "worker.js");
}

// run a copy of the bundle without its source map comment (the map is not copied)
const script = join(work, "worker.js");
writeFileSync(
  script,
  readFileSync(bundle, "utf8").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"),
);

const assets = join(work, "assets");
const assetPath = (values.key.startsWith("/") ? values.key : `/${values.key}`).slice(1);
const toml = readFileSync(join(project, "wrangler.toml"), "utf8");
const compatibilityDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(toml)?.[1] ?? "2025-01-01";

async function put(path) {
  const file = readFileSync(path); // a pooled Buffer: pass a plain ArrayBuffer to the bindings
  const bytes = file.buffer.slice(file.byteOffset, file.byteOffset + file.length);
  await (await mf.getKVNamespace("MODELS")).put(values.key, bytes);
  await (await mf.getR2Bucket("MODEL_BUCKET")).put(values.key, bytes);
  copyFileSync(path, join(assets, assetPath));
}

// the asset directory must hold the model before workerd starts
mkdirSync(dirname(join(assets, assetPath)), { recursive: true });
copyFileSync(values.model, join(assets, assetPath));
const mf = new Miniflare({
  modules: true,
  scriptPath: script,
  modulesRoot: work, // module names are relative to it (the default, the cwd, may not hold it)
  compatibilityDate,
  host: "127.0.0.1",
  port: Number(values.port),
  bindings: {
    MODEL_SOURCE: values.source,
    MODEL_KEY: values.key,
    MODEL_REFRESH_MS: values["refresh-ms"],
  },
  kvNamespaces: ["MODELS"],
  r2Buckets: ["MODEL_BUCKET"],
  assets: {
    directory: assets,
    binding: "ASSETS",
    routerConfig: { has_user_worker: true, invoke_user_worker_ahead_of_assets: true },
  },
});
let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  await mf.dispose().catch(() => {});
  rmSync(work, { recursive: true, force: true });
  process.exit(code);
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
try {
  const url = await mf.ready;
  await put(values.model);
  console.log(JSON.stringify({ url: url.href, source: values.source, bundle }));
} catch (e) {
  // Miniflare's own errors say what is wrong; their stack is of its internals
  const why = /^Miniflare\w*Error\b/.test(e?.name ?? "") ? e.message : e?.stack ?? e;
  console.error(`workerd did not start: ${why}`);
  await stop(1);
}
const lines = createInterface({ input: process.stdin });
lines.on("line", async (line) => {
  const [cmd, arg] = line.trim().split(/\s+/, 2);
  try {
    if (cmd === "put" && arg) {
      await put(arg);
      console.log(JSON.stringify({ put: arg }));
    } else if (cmd) console.log(JSON.stringify({ error: `unknown command '${line.trim()}'` }));
  } catch (e) {
    console.log(JSON.stringify({ error: String(e) }));
  }
});
lines.on("close", () => stop(0));
