// `node examples/cloudflare-worker/scripts/local.mjs` runs the worker from a temporary directory
// (the bundle and a copy of the model as the static asset). Stopped the usual way, Ctrl-C
// (SIGINT) or SIGTERM, it removes that directory: Miniflare's own signal handler exited the
// process first, so every stopped run left the bundle and a copy of the model in the temporary
// directory.
import { assert } from "../helpers.ts";

const LOCAL = new URL("../../examples/cloudflare-worker/scripts/local.mjs", import.meta.url)
  .pathname;
const MODEL = new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url).pathname;

/** Starts local.mjs, waits for its ready line, sends `signal`; returns its temporary directory. */
async function runAndStop(signal: Deno.Signal): Promise<string> {
  const child = new Deno.Command("node", {
    args: [LOCAL, "--model", MODEL, "--source", "r2", "--key", "m.tsm"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { WRANGLER_SEND_METRICS: "false" },
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  try {
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    const ready = JSON.parse(out.split("\n")[0]);
    assert(typeof ready.bundle === "string", out);
    // the bundle is WORK/dist/worker.js
    const work = ready.bundle.replace(/\/dist\/worker\.js$/, "");
    assert(work !== ready.bundle && (await Deno.stat(work)).isDirectory, ready.bundle);
    child.kill(signal);
    return work;
  } catch (e) {
    child.kill("SIGKILL");
    throw new Error(`${e}\n${out}\n${await stderr}`);
  } finally {
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    // stdin stays open until the process has exited: its end would stop the script too
    await child.status;
    await child.stdin.close().catch(() => {});
    await stderr;
  }
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test({
    name: `local.mjs removes its temporary directory when stopped by ${signal}`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const work = await runAndStop(signal);
      const left = await Deno.stat(work).then(() => true, () => false);
      if (left) await Deno.remove(work, { recursive: true });
      assert(!left, `${work} (the bundle and a copy of the model) was left behind`);
    },
  });
}
