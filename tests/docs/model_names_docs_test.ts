// The models are listed once, in MODEL_NAMES (src/models/registry.ts); the help texts that name
// them are built from it and DEVELOPERS.md names each. The demo's help had been copied by hand
// ("leml (default), coembed, br, knn, popularity, ...": no sleec, no ova), and a model added to
// the registry was missing from every hand-written list until someone noticed.
import { assert, assertEquals } from "../helpers.ts";
import { runDenoScript } from "../cli/helpers.ts";
import { COMMANDS } from "../../src/cli/main.ts";
import { DEFAULT_DEMO_MODEL } from "../../src/cli/demo.ts";
import { MODEL_NAMES } from "../../src/models/registry.ts";

/**
 * The entries of the `--model NAME` help of `usage` (its wrapped lines joined), and which one is
 * marked "(default)".
 */
function modelsListed(usage: string): { names: string[]; dflt: string[] } {
  const m = /^\s*--model NAME\s+([^]*?)(?=\n\s*--|$(?![^]))/m.exec(usage);
  assert(m !== null, `no --model NAME line in:\n${usage}`);
  const entries = m[1].replace(/\s+/g, " ").trim().split(/,\s*/);
  const names = entries.map((e) => e.replace(/ \(default\)$/, ""));
  const dflt = entries.filter((e) => e.endsWith(" (default)")).map((e) => e.split(" ")[0]);
  return { names, dflt };
}

Deno.test("tagstream train and serve --help list every registered model, leml the default", () => {
  for (const name of ["train", "serve"]) {
    const usage = COMMANDS.find((c) => c.name === name)!.usage;
    const { names, dflt } = modelsListed(usage);
    assertEquals(names.join(", "), MODEL_NAMES.join(", "), `${name} --help`);
    assertEquals(dflt.join(), "leml", `${name} --help: the default`);
  }
});

Deno.test("deno task demo --help lists every registered model (it runs each), its default marked", async () => {
  const demo = new URL("../../src/cli/demo.ts", import.meta.url).pathname;
  const r = await runDenoScript(demo, ["--allow-read", "--allow-env"], ["--help"]);
  assert(r.code === 0, r.stderr);
  const { names, dflt } = modelsListed(r.stdout);
  assertEquals(names.join(", "), MODEL_NAMES.join(", "), "demo --help");
  assertEquals(dflt.join(), DEFAULT_DEMO_MODEL, "demo --help: the default");
});

Deno.test("DEVELOPERS.md names every registered model and says how to add one", async () => {
  const text = await Deno.readTextFile(new URL("../../DEVELOPERS.md", import.meta.url));
  const missing = MODEL_NAMES.filter((n) => !text.includes(`\`${n}\``));
  assert(missing.length === 0, `DEVELOPERS.md does not name \`${missing.join("`, `")}\``);
  assert(/^## Adding a model$/m.test(text), "DEVELOPERS.md has no section 'Adding a model'");
});
