// `node examples/cloudflare-worker/scripts/local.mjs` refuses, before bundling the worker, a
// `--key` that names no file (empty, "/" or ending in "/": it bundled, then failed with
// "workerd did not start: Error: ENOTDIR ..." and a stack trace) and a `--refresh-ms` that is not
// a whole number of milliseconds (the worker then answered every request with a 500): one line
// naming the flag, exit status 2.
import { assert, assertEquals } from "../helpers.ts";

const LOCAL = new URL("../../examples/cloudflare-worker/scripts/local.mjs", import.meta.url)
  .pathname;
const MODEL = new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url).pathname;

Deno.test("local.mjs refuses a --key that names no file and a bad --refresh-ms before bundling", async () => {
  const cases: [string[], string][] = [
    [
      ["--key", ""],
      "local.mjs: --key must name a file (a KV key, R2 object or asset path), got ''",
    ],
    [
      ["--key", "/"],
      "local.mjs: --key must name a file (a KV key, R2 object or asset path), got '/'",
    ],
    [
      ["--key", "models/"],
      "local.mjs: --key must name a file (a KV key, R2 object or asset path), got 'models/'",
    ],
    [
      ["--refresh-ms", "abc"],
      "local.mjs: --refresh-ms must be a whole number of milliseconds, got 'abc'",
    ],
    [
      ["--refresh-ms", "1.5"],
      "local.mjs: --refresh-ms must be a whole number of milliseconds, got '1.5'",
    ],
  ];
  for (const [args, first] of cases) {
    const out = await new Deno.Command("node", {
      args: [LOCAL, "--model", MODEL, "--source", "asset", ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 2, `${args.join(" ")}: ${stderr}`);
    assertEquals(stderr.split("\n")[0], first, args.join(" "));
    assert(!stderr.includes("    at "), `a stack trace: ${stderr}`);
  }
});
