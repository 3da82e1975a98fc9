// `node examples/cloudflare-worker/scripts/local.mjs` refuses, before bundling the worker, a
// `--model` that is a directory (it said "no such file"), a `--model` that is not a model file
// (the events, say: workerd started and answered every request with a 503), and a `--port` in
// use (it failed after the bundling with workerd's and Miniflare's stack traces): one line
// naming the flag, exit status 2.
import { assert, assertEquals } from "../helpers.ts";

const LOCAL = new URL("../../examples/cloudflare-worker/scripts/local.mjs", import.meta.url)
  .pathname;
const MODEL = new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url).pathname;

async function local(args: string[]): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command("node", {
    args: [LOCAL, ...args],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("local.mjs refuses a directory, a file that is not a model and a port in use, naming them", async () => {
  const dir = await Deno.makeTempDir();
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const events = `${dir}/events.ndjson`;
    await Deno.writeTextFile(events, '{"features": {"0": 1}, "labels": ["a"]}\n');
    const port = String(busy.addr.port);
    const cases: [string[], string][] = [
      [["--model", dir], `local.mjs: --model ${dir}: a directory, not a file`],
      [
        ["--model", events],
        `local.mjs: --model ${events}: not a Tagstream model file (no "TAGSTREAM" magic at its start)`,
      ],
      [
        ["--model", MODEL, "--port", port],
        `local.mjs: --port ${port}: 127.0.0.1:${port} is already in use (another server, or an ` +
        "earlier local.mjs still running?); pick another, or --port 0 for a free one",
      ],
    ];
    for (const [args, first] of cases) {
      const r = await local(args);
      assertEquals(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assertEquals(r.stderr.split("\n")[0], first, args.join(" "));
      assert(!r.stderr.includes("    at "), `a stack trace: ${r.stderr}`);
    }
  } finally {
    busy.close();
    await Deno.remove(dir, { recursive: true });
  }
});
