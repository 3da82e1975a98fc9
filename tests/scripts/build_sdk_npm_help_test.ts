// `npx deno task sdk:npm` (README "The SDK as a package") takes --help like the other tasks
// (it was "sdk:npm: Unknown option '--help'", exit 2) and refuses a typo'd flag or a stray
// argument in one line naming it, before building anything.
import { assert, assertEquals, runDenoScript } from "../cli/helpers.ts";

const SCRIPT = new URL("../../scripts/build_sdk_npm.ts", import.meta.url).pathname;

Deno.test("deno task sdk:npm --help prints the usage; bad arguments are one line", async () => {
  const help = await runDenoScript(SCRIPT, ["--allow-all"], ["--help"]);
  assertEquals(help.code, 0, help.stderr);
  assert(help.stdout.startsWith("deno task sdk:npm [--out DIR"), help.stdout);
  const cases: [string[], string][] = [
    [["--pakc"], "sdk:npm: unknown option '--pakc' (see deno task sdk:npm --help)"],
    [
      ["out/x"],
      "sdk:npm: unexpected argument 'out/x' (sdk:npm takes no positional arguments; " +
      "see deno task sdk:npm --help)",
    ],
    [["--out", ""], "sdk:npm: --out is empty: give a directory"],
  ];
  for (const [args, line] of cases) {
    const r = await runDenoScript(SCRIPT, ["--allow-all"], args);
    assertEquals([r.code, r.stdout, r.stderr.trim()], [2, "", line], args.join(" "));
  }
});
