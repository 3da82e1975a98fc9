// `node examples/cloudflare-worker/scripts/local.mjs` (README "Serving models at the edge") checks
// its arguments before bundling the worker: `--help` prints the usage (it was a parseArgs stack
// trace), and a missing `--model` file or an unknown `--source` is one line naming it and exit
// status 2 (a missing model failed after the bundling with an ENOENT stack trace and left its
// temporary directory behind).
import { assert, assertEquals } from "../helpers.ts";

const LOCAL = new URL("../../examples/cloudflare-worker/scripts/local.mjs", import.meta.url)
  .pathname;

async function local(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command("node", {
    args: [LOCAL, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("local.mjs --help prints the usage; bad arguments are refused before bundling", async () => {
  const help = await local(["--help"]);
  assertEquals(help.code, 0, help.stderr);
  assert(
    help.stdout.startsWith("usage: node examples/cloudflare-worker/scripts/local.mjs"),
    help.stdout,
  );
  const cases: [string[], string][] = [
    [
      ["--model", "/nonexistent/m.tsm", "--source", "r2"],
      "local.mjs: --model /nonexistent/m.tsm: no such file",
    ],
    [["--model", LOCAL, "--source", "s3"], "local.mjs: --source must be kv, r2 or asset, got 's3'"],
    [["--model", LOCAL, "--prot", "1"], "local.mjs: Unknown option '--prot'"],
    [
      ["--model", LOCAL, "--port", "0x10"],
      "local.mjs: --port must be an integer in [0, 65535], got '0x10'",
    ],
  ];
  for (const [args, first] of cases) {
    const r = await local(args);
    assertEquals(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assertEquals(r.stderr.split("\n")[0], first, args.join(" "));
    assert(!r.stderr.includes("    at "), `a stack trace: ${r.stderr}`);
  }
});
