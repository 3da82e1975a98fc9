/**
 * Indexed models in real workerd: a minimal Worker importing the SDK
 * (tests/fixtures/workers/topk_worker.ts), bundled by esbuild and run by Miniflare, answers an
 * indexed `linear-lowrank` and an indexed `random-features` model with the same top-k (labels and
 * scores, bit for bit through JSON) as the SDK under Deno, on the default probes, one probe and
 * `exact: true`; and the probed answers differ from the exact ones on some queries (the index is
 * used in the Worker, not bypassed).
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import { withLabelIndex } from "../../src/linalg/mips_index.ts";
import { predictorFileContent } from "../../src/models/coembed/learner.ts";
import { loadModel } from "../../sdk/mod.ts";
import { assert, mulberry32 } from "./helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  // TMPDIR: Miniflare removes its temporary directory without waiting for it when disposed, so
  // the process exits first; under cwd it goes when the test removes its directory
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { TMPDIR: cwd },
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert(out.success, `${cmd} failed:\n${text}\n${new TextDecoder().decode(out.stderr)}`);
  return text;
}

function models() {
  const rand = mulberry32(21), g = () => rand() - 0.5, L = 5000, D = 40, r = 8;
  const lowrank = withLabelIndex({
    kind: "linear-lowrank",
    numFeatures: D,
    numLabels: L,
    params: { rank: r },
    tensors: {
      W: { dtype: "f32", shape: [D, r], data: Float32Array.from({ length: D * r }, g) },
      H: { dtype: "f32", shape: [L, r], data: Float32Array.from({ length: L * r }, g) },
      bias: { dtype: "f32", shape: [L], data: Float32Array.from({ length: L }, g) },
    },
  }, "H");
  const coembed = predictorFileContent({
    variant: "L",
    numFeatures: D,
    numLabels: L,
    rankS: r,
    rankX: 2,
    numRff: 0,
    lambdaX: 0.5,
    absent: "zero",
    input: "raw",
    Q: Float32Array.from({ length: D * r }, g),
    P: Float32Array.from({ length: L * r }, g),
    bias: Float32Array.from({ length: L }, g),
    V: Float32Array.from({ length: D * 2 }, g),
  }, 0.1);
  const queries = Array.from({ length: 25 }, () => {
    const indices = [...new Set(Array.from({ length: 5 }, () => Math.floor(rand() * D)))].sort((
      a,
      b,
    ) => a - b);
    return { indices, values: indices.map(() => rand()) };
  }).flatMap((x) => [
    { x, k: 5 },
    { x, k: 5, options: { probes: 1 } },
    { x, k: 5, options: { exact: true } },
  ]);
  return { lowrank: encodeModelFile(lowrank), coembed: encodeModelFile(coembed), queries };
}

Deno.test({
  name: "workerd: indexed linear-lowrank and random-features answer as the SDK in Deno",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { queries, ...files } = models();
    const dir = await Deno.makeTempDir();
    try {
      await run(`${ROOT}node_modules/.bin/esbuild`, [
        `${ROOT}tests/fixtures/workers/topk_worker.ts`,
        "--bundle",
        "--minify",
        "--format=esm",
        "--platform=browser",
        "--conditions=workerd,worker",
        `--outfile=${dir}/worker.js`,
      ], dir);
      const json = new TextEncoder().encode(JSON.stringify({ queries }));
      for (const [name, bytes] of Object.entries(files)) {
        const body = new Uint8Array(4 + json.length + bytes.length);
        new DataView(body.buffer).setUint32(0, json.length, true);
        body.set(json, 4);
        body.set(bytes, 4 + json.length);
        await Deno.writeFile(`${dir}/${name}.bin`, body);
      }
      await Deno.writeTextFile(
        `${dir}/run.mjs`,
        `import { readFileSync } from "node:fs";
import { Miniflare } from ${JSON.stringify(`${ROOT}node_modules/miniflare/dist/src/index.js`)};
const mf = new Miniflare({ modules: true, scriptPath: "worker.js", compatibilityDate: "2025-01-01", host: "127.0.0.1" });
const out = {};
try {
  for (const name of ${JSON.stringify(Object.keys(files))}) {
    const res = await mf.dispatchFetch("http://localhost/", { method: "POST", body: readFileSync(name + ".bin") });
    out[name] = await res.json();
  }
} finally {
  await mf.dispose();
}
console.log(JSON.stringify(out));
`,
      );
      const worker = JSON.parse(await run("node", ["run.mjs"], dir));
      for (const [name, bytes] of Object.entries(files)) {
        const model = loadModel(bytes);
        assert(model.tensors.mipsPtr, `${name}: no index`);
        const deno = queries.map((q) => {
          const t = model.predictTopK(q.x, q.k, q.options);
          return { labels: [...t.labels], scores: [...t.scores] };
        });
        assert(
          JSON.stringify(worker[name]) === JSON.stringify(deno),
          `${name}: workerd differs from Deno\n${JSON.stringify(worker[name]).slice(0, 400)}`,
        );
        const probed = deno.filter((_, i) => i % 3 === 1),
          exact = deno.filter((_, i) => i % 3 === 2);
        assert(
          probed.some((a, i) => JSON.stringify(a) !== JSON.stringify(exact[i])),
          `${name}: one probe always equals exact: the index is not used`,
        );
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
