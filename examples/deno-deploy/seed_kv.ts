/**
 * Stores a model file in Deno KV for the Deno Deploy example (chunked under the 64 KiB value
 * limit; the manifest switches versions atomically). Prints the manifest as JSON.
 *
 *   deno run --unstable-kv --allow-read --allow-write seed_kv.ts --key models,bibtex [--kv path] model.tsm
 *
 * On Deno Deploy, run the same code once from the project (or use `saveModelToKv` from
 * sdk/deno_deploy.ts in your own deployment step).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { KV_CHUNK_BYTES, type KvLike, saveModelToKv } from "../../sdk/deno_deploy.ts";

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { key: { type: "string" }, kv: { type: "string" } },
    allowPositionals: true,
  });
  if (!values.key || positionals.length !== 1) {
    console.error("usage: seed_kv.ts --key part1,part2 [--kv path] model.tsm");
    Deno.exit(2);
  }
  const openKv = (Deno as unknown as { openKv?: (path?: string) => Promise<KvLike> }).openKv;
  if (!openKv) {
    console.error("seed_kv.ts needs Deno KV: run with --unstable-kv");
    Deno.exit(2);
  }
  const kv = await openKv(values.kv);
  const manifest = await saveModelToKv(
    kv,
    values.key.split(","),
    await Deno.readFile(positionals[0]),
  );
  console.log(
    JSON.stringify({ ...manifest, maxChunkBytes: Math.min(KV_CHUNK_BYTES, manifest.byteLength) }),
  );
  (kv as unknown as { close(): void }).close();
}
