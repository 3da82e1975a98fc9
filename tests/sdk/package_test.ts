/**
 * The SDK as a package. JSR: `sdk/deno.json` names it, versions it and exports every entry point,
 * and `deno publish --dry-run` accepts it. npm: `deno task sdk:npm` (scripts/build_sdk_npm.ts)
 * builds ES modules and `.d.ts` files of sdk/ only; `npm pack --dry-run` lists exactly those;
 * the packed tarball installs into a scratch Node project, where a Node script (Node >= 20) and
 * a Worker bundled by esbuild and run in real workerd (Miniflare) answer every golden file's
 * probes exactly as the SDK does under Deno, reject every broken file with the same reason, and
 * a TypeScript consumer type-checks against the declarations. The Worker bundle holds the
 * msgpack decoder only (no encoder).
 */
import { buildSdkNpm, readSdkConfig, rewriteTsSpecifiers } from "../../scripts/build_sdk_npm.ts";
import { loadModel, ModelFormatError } from "../../sdk/mod.ts";
import { assert } from "./helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const FIXTURES = `${ROOT}tests/fixtures/`;
const expected: { good: Record<string, { input: unknown }[]>; bad: Record<string, string> } = JSON
  .parse(await Deno.readTextFile(`${FIXTURES}expected.json`));

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  const r = await new Deno.Command(cmd, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    // TMPDIR: Miniflare removes its temporary directory without waiting for it when disposed, so
    // the process exits first; under cwd it goes when the test removes its directory
    env: { npm_config_update_notifier: "false", WRANGLER_SEND_METRICS: "false", TMPDIR: cwd },
  }).output();
  const out = new TextDecoder().decode(r.stdout);
  if (!r.success) {
    throw new Error(
      `${cmd} ${args.join(" ")} (exit ${r.code}):\n${out}${new TextDecoder().decode(r.stderr)}`,
    );
  }
  return out;
}

/** What the SDK answers on every golden probe and broken file: the reference for the package. */
async function answers(
  load: (b: Uint8Array) => ReturnType<typeof loadModel>,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, probes] of Object.entries(expected.good)) {
    const model = load(await Deno.readFile(`${FIXTURES}${name}`));
    out[name] = probes.map((p) => {
      const top = model.predictTopK(p.input as Record<string, number>, model.numLabels);
      return { labels: [...top.labels], scores: [...top.scores] };
    });
  }
  for (const name of Object.keys(expected.bad)) {
    try {
      load(await Deno.readFile(`${FIXTURES}bad/${name}`));
      out[`bad/${name}`] = "ok";
    } catch (e) {
      out[`bad/${name}`] = e instanceof ModelFormatError ? `${e.name}:${e.reason}` : String(e);
    }
  }
  return out;
}

// The same probe loop, as plain JS for Node and the Worker (`files` maps name → bytes).
const PROBE_JS = `
export function probe(loadModel, expected, files) {
  const out = {};
  for (const [name, probes] of Object.entries(expected.good)) {
    const model = loadModel(files[name]);
    out[name] = probes.map((p) => {
      const top = model.predictTopK(p.input, model.numLabels);
      return { labels: [...top.labels], scores: [...top.scores] };
    });
  }
  for (const name of Object.keys(expected.bad)) {
    try {
      loadModel(files["bad/" + name]);
      out["bad/" + name] = "ok";
    } catch (e) {
      out["bad/" + name] = e && e.name === "ModelFormatError" ? e.name + ":" + e.reason : String(e);
    }
  }
  return out;
}
`;

Deno.test("sdk/deno.json names, versions and exports the SDK for JSR", async () => {
  const c = await readSdkConfig();
  assert(/^@[a-z0-9-]+\/[a-z0-9-]+$/.test(c.name), `JSR name ${c.name}`);
  assert(/^\d+\.\d+\.\d+/.test(c.version), `version ${c.version}`);
  for (const [key, file] of Object.entries(c.exports)) {
    const st = await Deno.stat(`${ROOT}sdk/${file}`);
    assert(st.isFile, `export ${key} → ${file} is not a file`);
  }
  for (const key of [".", "./http", "./serving", "./deno-deploy", "./cloudflare"]) {
    assert(key in c.exports, `exports lacks ${key}`);
  }
  assert(
    rewriteTsSpecifiers(`import("./a.ts"); from "../b/c.ts"; "x.ts"`) ===
      `import("./a.js"); from "../b/c.js"; "x.ts"`,
    "specifier rewrite",
  );
});

Deno.test({
  name: "deno publish --dry-run accepts the SDK package",
  sanitizeResources: false,
  async fn() {
    const out = await run(Deno.execPath(), ["publish", "--dry-run", "--allow-dirty"], `${ROOT}sdk`)
      .catch((e) => {
        throw new Error(`deno publish --dry-run failed: ${(e as Error).message}`);
      });
    assert(/Dry run complete/.test(out) || out === "", `publish output: ${out}`);
  },
});

Deno.test({
  name: "npm package: only SDK files; Node 20 and a workerd Worker answer like the SDK in Deno",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "tagstream-sdk-pkg-" });
    try {
      const pkg = `${dir}/pkg`;
      const built = await buildSdkNpm(pkg);
      // npm pack --dry-run lists the package's files: README, package.json, esm/*.js + .d.ts of
      // sdk/ sources, every entry point present
      const listed = JSON.parse(await run("npm", ["pack", "--dry-run", "--json"], pkg))[0]
        .files.map((f: { path: string }) => f.path).sort() as string[];
      assert(listed.join() === built.files.join(), `pack lists ${listed} vs built ${built.files}`);
      let sources = 0;
      for (const f of listed) {
        if (f === "README.md" || f === "package.json") continue;
        const m = /^esm\/(.+)\.(js|d\.ts)$/.exec(f);
        assert(m, `unexpected file in the package: ${f}`);
        const st = await Deno.stat(`${ROOT}sdk/${m[1]}.ts`).catch(() => null);
        assert(st?.isFile, `${f} has no source sdk/${m[1]}.ts`);
        sources++;
      }
      const manifest = JSON.parse(await Deno.readTextFile(`${pkg}/package.json`));
      assert(Object.keys(manifest.dependencies).join() === "msgpackr", "dependencies");
      for (const [key, e] of Object.entries(manifest.exports)) {
        if (key === "./package.json") continue;
        const { types, default: js } = e as { types: string; default: string };
        assert(listed.includes(types.slice(2)) && listed.includes(js.slice(2)), `export ${key}`);
      }
      assert(sources >= 30, `only ${sources} compiled files`);
      const tgz =
        JSON.parse(await run("npm", ["pack", "--json", "--pack-destination", dir], pkg))[0]
          .filename;

      // a scratch Node project installs the tarball
      const app = `${dir}/app`;
      await Deno.mkdir(app);
      await Deno.writeTextFile(`${app}/package.json`, '{"private": true, "type": "module"}\n');
      await run("npm", [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        `${dir}/${tgz}`,
      ], app);
      const files: Record<string, string> = {};
      for (const name of Object.keys(expected.good)) files[name] = `${FIXTURES}${name}`;
      for (const name of Object.keys(expected.bad)) files[`bad/${name}`] = `${FIXTURES}bad/${name}`;
      await Deno.writeTextFile(`${app}/probe.js`, PROBE_JS);
      await Deno.writeTextFile(`${app}/files.json`, JSON.stringify({ expected, files }));
      await Deno.writeTextFile(
        `${app}/node.mjs`,
        `import { readFileSync } from "node:fs";
import { loadModel, FORMAT_VERSION } from "@tagstream/sdk";
import * as http from "@tagstream/sdk/http";
import * as serving from "@tagstream/sdk/serving";
import * as denoDeploy from "@tagstream/sdk/deno-deploy";
import * as cloudflare from "@tagstream/sdk/cloudflare";
import { probe } from "./probe.js";
const { expected, files } = JSON.parse(readFileSync("files.json", "utf8"));
const bytes = Object.fromEntries(Object.entries(files).map(([k, p]) => [k, new Uint8Array(readFileSync(p))]));
for (const [n, m] of Object.entries({ http, serving, denoDeploy, cloudflare })) {
  if (Object.keys(m).length === 0) throw new Error("@tagstream/sdk entry " + n + " exports nothing");
}
if (typeof FORMAT_VERSION !== "number") throw new Error("FORMAT_VERSION");
console.log(JSON.stringify({ node: process.versions.node, answers: probe(loadModel, expected, bytes) }));
`,
      );
      const want = await answers(loadModel);
      const node = JSON.parse(await run("node", ["node.mjs"], app));
      assert(+node.node.split(".")[0] >= 20, `node ${node.node}`);
      assert(
        JSON.stringify(node.answers) === JSON.stringify(want),
        `Node answers differ from the SDK's under Deno:\n${JSON.stringify(node.answers)}\n${
          JSON.stringify(want)
        }`,
      );

      // a TypeScript consumer type-checks against the package's declarations
      await Deno.writeTextFile(
        `${app}/consumer.ts`,
        `import { loadModel, type Model, type TopK } from "@tagstream/sdk";
const m: Model = loadModel(new Uint8Array(0));
const t: TopK = m.predictTopK({ text: "a b" }, 3);
const n: number = t.labels.length + m.numLabels;
// @ts-expect-error k must be a number
m.predictTopK({ text: "a" }, "3");
export { n };
`,
      );
      await run("node", [
        `${ROOT}node_modules/typescript/bin/tsc`,
        "--noEmit",
        "--strict",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--target",
        "es2022",
        "--lib",
        "es2024,dom",
        "--skipLibCheck",
        "consumer.ts",
      ], app);

      // a Worker: bundled by esbuild from the installed package (workerd/browser conditions),
      // run in workerd through Miniflare; the golden files are embedded by esbuild's binary loader
      const imports = Object.keys(files).map((k, i) =>
        `import f${i} from ${JSON.stringify(files[k])};`
      );
      await Deno.writeTextFile(
        `${app}/worker.js`,
        `import { loadModel } from "@tagstream/sdk";
import { probe } from "./probe.js";
import data from "./files.json";
${imports.join("\n")}
const bytes = { ${Object.keys(files).map((k, i) => `${JSON.stringify(k)}: f${i}`).join(", ")} };
export default { async fetch() { return Response.json(probe(loadModel, data.expected, bytes)); } };
`,
      );
      const esbuild = `${ROOT}node_modules/.bin/esbuild`;
      const bundleArgs = [
        "--bundle",
        "--minify",
        "--format=esm",
        "--platform=browser",
        "--conditions=workerd,worker",
        "--loader:.tsm=binary",
      ];
      await run(esbuild, ["worker.js", ...bundleArgs, "--outfile=worker.bundle.js"], app);
      await Deno.writeTextFile(
        `${app}/run_worker.mjs`,
        `import { Miniflare } from ${
          JSON.stringify(`${ROOT}node_modules/miniflare/dist/src/index.js`)
        };
const mf = new Miniflare({ modules: true, scriptPath: "worker.bundle.js", compatibilityDate: "2025-01-01", host: "127.0.0.1" });
try {
  const res = await mf.dispatchFetch("http://localhost/");
  console.log(await res.text());
} finally {
  await mf.dispose();
}
`,
      );
      const worker = JSON.parse(await run("node", ["run_worker.mjs"], app));
      assert(
        JSON.stringify(worker) === JSON.stringify(want),
        `Worker answers differ from the SDK's under Deno:\n${JSON.stringify(worker)}`,
      );

      // the Worker's SDK bundle (no model) has msgpackr's decoder and not its encoder
      await Deno.writeTextFile(
        `${app}/size.js`,
        `import { loadModel } from "@tagstream/sdk";
export default { async fetch(r) { return Response.json(loadModel(new Uint8Array(await r.arrayBuffer())).predictTopK({ text: await r.text() }, 5)); } };
`,
      );
      await run(esbuild, ["size.js", ...bundleArgs, "--outfile=size.bundle.js"], app);
      const bundle = await Deno.readTextFile(`${app}/size.bundle.js`);
      assert(
        !bundle.includes("Packed buffer would be larger than maximum buffer size"),
        "the bundle holds msgpackr's encoder",
      );
      assert(bundle.includes("Unexpected end of MessagePack data"), "no msgpack decoder?");
      console.log(
        `npm package: ${listed.length} files; Worker bundle of loadModel ${
          (bundle.length / 1024).toFixed(1)
        } KiB minified`,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
