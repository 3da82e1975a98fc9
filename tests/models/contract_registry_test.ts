// Every model the CLI and the service accept (src/models/registry.ts) runs the shared estimator
// checks (tests/models/estimator_checks.ts) and declares typed settings. A model without the
// checks is told exactly which file to add (DEVELOPERS.md, "Adding a model").
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

/**
 * Why model `name` fails the check that a test calls `checkEstimator` with its factory (a call
 * of `checkEstimator(` in a test file that names `src/models/NAME/mod.ts`), saying which file
 * to add and what to write in it; undefined when some test does.
 */
function missingEstimatorChecks(
  name: string,
  files: readonly { path: string; text: string }[],
): string | undefined {
  const module = `src/models/${name}/mod.ts`;
  const running = files.filter((f) => /\bcheckEstimator\(/.test(f.text) && f.text.includes(module));
  if (running.length > 0) return undefined;
  return `model ${name}: no test under tests/models/ calls checkEstimator with ${module}'s ` +
    `factory. Add tests/models/${name}/estimator_checks_test.ts containing:\n` +
    `  import { checkEstimator } from "../estimator_checks.ts";\n` +
    `  import { factory } from "../../../${module}";\n` +
    `  checkEstimator("${name}", factory);\n` +
    `(options such as createOptions, minTrainP1 or skip: { step: "why" } are in ` +
    `tests/models/estimator_checks.ts; see "Adding a model" in DEVELOPERS.md)`;
}

Deno.test("every registered model runs the shared estimator checks and declares its settings", async () => {
  const files = await testFiles(new URL("./", import.meta.url));
  for (const name of MODEL_NAMES) {
    const factory = await loadFactory(name);
    assert(factory.kind === name, `model ${name}: factory kind ${factory.kind}`);
    assert(factory.settings !== undefined, `model ${name}: the factory declares no settings`);
    const missing = missingEstimatorChecks(name, files);
    assert(missing === undefined, missing!);
  }
});

Deno.test("a model without the estimator checks is told the file to add and what to write in it", () => {
  const files = [
    // imports the module but runs no checks; runs the checks of another model
    { path: "a_test.ts", text: 'import { factory } from "../../src/models/newmodel/mod.ts";' },
    { path: "b_test.ts", text: 'checkEstimator("leml", factory); // src/models/leml/mod.ts' },
  ];
  const message = missingEstimatorChecks("newmodel", files) ?? "";
  for (
    const part of [
      "model newmodel: no test under tests/models/ calls checkEstimator",
      "Add tests/models/newmodel/estimator_checks_test.ts containing:",
      'import { checkEstimator } from "../estimator_checks.ts";',
      'import { factory } from "../../../src/models/newmodel/mod.ts";',
      'checkEstimator("newmodel", factory);',
      "DEVELOPERS.md",
    ]
  ) assert(message.includes(part), `missing "${part}" in:\n${message}`);
  // the snippet it proposes is one the check accepts
  const snippet = message.split("\n").slice(1, 4).join("\n");
  assert(
    missingEstimatorChecks("newmodel", [{ path: "c_test.ts", text: snippet }]) === undefined,
    snippet,
  );
});
