// Every model the CLI and the service accept (src/models/registry.ts) runs the shared estimator
// checks (tests/models/estimator_checks.ts) and declares typed settings.
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { assert } from "../helpers.ts";

/** The test files under tests/models/ (recursively), with their text. */
async function testFiles(dir: URL): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) out.push(...await testFiles(url));
    else if (e.name.endsWith("_test.ts")) {
      out.push({ path: url.pathname, text: await Deno.readTextFile(url) });
    }
  }
  return out;
}

Deno.test("every registered model runs the shared estimator checks and declares its settings", async () => {
  const files = await testFiles(new URL("./", import.meta.url));
  for (const name of MODEL_NAMES) {
    const factory = await loadFactory(name);
    assert(factory.kind === name, `model ${name}: factory kind ${factory.kind}`);
    assert(factory.settings !== undefined, `model ${name}: the factory declares no settings`);
    const module = `src/models/${name}/mod.ts`;
    const running = files.filter((f) =>
      /\bcheckEstimator\(/.test(f.text) && f.text.includes(module)
    );
    assert(
      running.length > 0,
      `model ${name}: no test under tests/models/ calls checkEstimator with ${module}'s factory`,
    );
  }
});
