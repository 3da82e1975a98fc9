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
import { loadModel } from "../../sdk/mod.ts";
import { runScript } from "../../src/cli/run_script.ts";

const USAGE = `usage: seed_kv.ts --key part1,part2 [--kv path] model.tsm
Checks that the SDK loads model.tsm, then stores it in Deno KV under the key (chunked; the manifest
switches versions atomically) and prints the manifest as JSON. Needs --unstable-kv.`;

if (import.meta.main) {
  await runScript("seed_kv.ts", async () => {
    const { values, positionals } = parseArgs({
      args: Deno.args,
      options: { key: { type: "string" }, kv: { type: "string" }, help: { type: "boolean" } },
      allowPositionals: true,
    });
    if (values.help) {
      console.log(USAGE);
      return;
    }
    if (!values.key || positionals.length !== 1) {
      throw new TypeError(`give --key and one model file (${USAGE.split("\n")[0]})`);
    }
    const openKv = (Deno as unknown as { openKv?: (path?: string) => Promise<KvLike> }).openKv;
    if (!openKv) throw new TypeError("Deno KV is needed: run with --unstable-kv");
    // the file is checked before the KV is opened: a file the SDK cannot load would replace the
    // model every instance serves
    const file = positionals[0];
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(file);
    } catch (e) {
      const why = e instanceof Deno.errors.NotFound
        ? "no such file"
        : e instanceof Deno.errors.IsADirectory
        ? "it is a directory"
        : (e as Error).message;
      throw new TypeError(`Cannot read model file ${file}: ${why}`);
    }
    try {
      loadModel(bytes);
    } catch (e) {
      throw new TypeError(`${file} is not a model the SDK loads: ${(e as Error).message}`);
    }
    if (values.kv === "") throw new TypeError("--kv is empty: give the KV database file");
    let kv: KvLike;
    try {
      kv = await openKv(values.kv);
    } catch (e) {
      // "file is not a database" or "unable to open database file": which file, and why
      const what = values.kv === undefined ? "the default Deno KV database" : `--kv ${values.kv}`;
      throw new TypeError(`Cannot open ${what}: ${(e as Error).message}`);
    }
    try {
      const manifest = await saveModelToKv(kv, values.key.split(","), bytes);
      console.log(
        JSON.stringify({
          ...manifest,
          maxChunkBytes: Math.min(KV_CHUNK_BYTES, manifest.byteLength),
        }),
      );
    } finally {
      (kv as unknown as { close(): void }).close();
    }
  });
}
