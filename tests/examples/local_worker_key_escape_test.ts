// `node examples/cloudflare-worker/scripts/local.mjs --key ../name.tsm` copied the model to a path
// outside its temporary asset directory (any file `..` reaches, replaced; left behind at exit),
// where the worker, whose asset URL cannot climb above `/`, never finds it; a key that names the
// asset directory itself (".", "a/..") was copied as a file in its place, so workerd could not
// start. Such keys are refused before anything is written, naming the flag, exit status 2.
import { assert, assertEquals } from "../helpers.ts";

const LOCAL = new URL("../../examples/cloudflare-worker/scripts/local.mjs", import.meta.url)
  .pathname;
const MODEL = new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url).pathname;

Deno.test("local.mjs refuses a --key that climbs out of the asset directory; nothing is written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_local_key_" });
  try {
    // a bundle that needs no bundling: the refusal must come before the copy either way
    const bundle = `${dir}/worker.js`;
    await Deno.writeTextFile(bundle, "export default { fetch() { return new Response('x'); } };\n");
    // the work directory is made in TMPDIR: `../../<dir>/victim.tsm` from its asset directory
    // (TMPDIR/tagstream-worker-XXXX/assets) reaches `<dir>/victim.tsm`
    const name = dir.split("/").pop();
    const victim = `${dir}/victim.tsm`;
    await Deno.writeTextFile(victim, "not to be replaced");
    const tmp = dir.slice(0, dir.length - name!.length - 1);
    for (const key of [`../../${name}/victim.tsm`, `/../../${name}/victim.tsm`, ".", "a/.."]) {
      const out = await new Deno.Command("node", {
        args: [LOCAL, "--model", MODEL, "--source", "asset", "--key", key, "--bundle", bundle],
        env: { TMPDIR: tmp },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert(
        await Deno.readTextFile(victim) === "not to be replaced",
        `${key}: a file outside the asset directory was replaced`,
      );
      assertEquals(out.code, 2, `${key}: ${stderr}`);
      assert(stderr.startsWith(`local.mjs: --key `) && stderr.includes(".."), stderr);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// A --refresh-ms past 2^53 passed the digits check, then the worker refused MODEL_REFRESH_MS and
// answered every request with a 500: refused here before bundling, like other non-whole values.
Deno.test("local.mjs refuses a --refresh-ms the worker cannot read exactly", async () => {
  const out = await new Deno.Command("node", {
    args: [
      LOCAL,
      "--model",
      MODEL,
      "--refresh-ms",
      "99999999999999999999",
      "--bundle",
      "/nonexistent",
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 2, stderr);
  assertEquals(
    stderr.split("\n")[0],
    "local.mjs: --refresh-ms must be a whole number of milliseconds, got '99999999999999999999'",
  );
});
