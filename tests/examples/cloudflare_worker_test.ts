/**
 * The Cloudflare Workers example (examples/cloudflare-worker) in real `workerd` on 127.0.0.1:
 * wrangler bundles it (the bundle holds the SDK and msgpackr/pack), Miniflare runs it
 * (examples/cloudflare-worker/scripts/local.mjs under Node), and a pruned BR model of bibtex
 * served from Workers KV, R2 and a static asset answers exactly as the trainer; a new R2 object
 * is hot-swapped by ETag. Needs bibtex (TAGSTREAM_DATA or `-- --data-dir`); skipped with a
 * message without it.
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

const EXAMPLE = new URL("../../examples/cloudflare-worker/", import.meta.url).pathname;
const WRANGLER = new URL("../../node_modules/wrangler/bin/wrangler.js", import.meta.url).pathname;

async function answers(base: string, m: BibtexModel) {
  const rows = m.rows.map((x) => ({ indices: [...x.indices], values: [...x.values] }));
  return (await postJson(`${base}/predict`, { rows, k: 5 })).results as never;
}

async function health(base: string): Promise<{ etag?: string; kind?: string; ok?: boolean }> {
  return await (await fetch(`${base}/health`)).json();
}

noteSkipped("the Cloudflare worker example test");
Deno.test({
  ignore: !BIBTEX.present,
  name: "Cloudflare worker example in workerd: KV, R2 and asset models answer like the trainer",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const m1 = await bibtexModel(0, 1500), m2 = await bibtexModel(1500, 3000);
    const dir = await Deno.makeTempDir();
    const children: Child[] = [];
    try {
      await Deno.writeFile(`${dir}/m1.tsm`, m1.file);
      await Deno.writeFile(`${dir}/m2.tsm`, m2.file);
      // bundle with wrangler, from the example's wrangler.toml
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
      const bundle = await Deno.readTextFile(`${dir}/dist/worker.js`);
      assert(bundle.includes("not a Tagstream model file"), "the bundle lacks the SDK");
      assert(bundle.includes("Unexpected end of MessagePack data"), "the bundle lacks msgpackr");

      for (const source of ["kv", "r2", "asset"]) {
        const worker = start("node", [
          `${EXAMPLE}scripts/local.mjs`,
          "--bundle",
          `${dir}/dist/worker.js`,
          "--model",
          `${dir}/m1.tsm`,
          "--source",
          source,
          "--key",
          "models/bibtex.tsm",
          "--refresh-ms",
          "100",
        ], { TMPDIR: dir }); // Miniflare's temporary directory goes with dir (a stopped worker leaves it)
        children.push(worker);
        const ready = JSON.parse((await worker.waitFor(/^\{"url".*\}$/, 60_000))[0]);
        const base = String(ready.url).replace(/\/$/, "");
        const h = await health(base);
        assert(h.ok && h.kind === "linear-sparse", `${source}: ${JSON.stringify(h)}`);
        assertSameAnswers(await answers(base, m1), m1, 5, `workerd ${source}`);
        const bad = await fetch(`${base}/predict`, { method: "POST", body: "{oops" });
        assert(bad.status === 400, `${source}: bad JSON gave ${bad.status}`);
        await bad.body?.cancel();
        if (source === "r2") {
          // a new object under the same key gets a new ETag: the worker swaps it in
          const before = h.etag;
          await worker.send(`put ${dir}/m2.tsm`);
          await worker.waitFor(/^\{"put"/, 10_000);
          const until = Date.now() + 15_000;
          while ((await health(base)).etag === before) {
            assert(Date.now() < until, "R2: the new model was not swapped in within 15 s");
            await new Promise((r) => setTimeout(r, 100));
          }
          assertSameAnswers(await answers(base, m2), m2, 5, "workerd r2 after the swap");
        }
        assert((await worker.stop()) !== null, "stopped");
      }
    } finally {
      await Promise.all(children.map((c) => c.stop()));
      await Deno.remove(dir, { recursive: true });
    }
  },
});
