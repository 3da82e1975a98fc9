/**
 * The Deno Deploy example run locally answers this machine only: `deno serve` listens on every
 * interface (0.0.0.0) unless given `--host`, and the module cannot choose its address, so every
 * `deno serve` command of the example's README and of main.ts's doc passes `--host 127.0.0.1`.
 */
import { assert } from "../helpers.ts";

const DIR = new URL("../../examples/deno-deploy/", import.meta.url);

/** The `deno serve` commands of `text` (continuation lines joined). */
function serveCommands(text: string): string[] {
  const joined = text.replace(/\\\n\s*(?:\*\s*)?/g, " ");
  return joined.split("\n").filter((l) => /\bnpx deno serve /.test(l) && /main\.ts/.test(l));
}

Deno.test("Deno Deploy example: every local `deno serve` command passes --host 127.0.0.1", async () => {
  for (const file of ["README.md", "main.ts"]) {
    const commands = serveCommands(await Deno.readTextFile(new URL(file, DIR)));
    assert(commands.length > 0, `${file}: no deno serve command`);
    for (const c of commands) {
      assert(/\bdeno serve\b.* --host 127\.0\.0\.1 /.test(c), `${file}: ${c.trim()}`);
    }
  }
});
