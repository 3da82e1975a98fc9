/**
 * The end-to-end check of the benchmark scripts' refusals, shared by the tests of the deno.json
 * tasks and of the scripts run by hand.
 *
 * @module
 */
import { assert, assertEquals, runDenoScript } from "../cli/helpers.ts";

/** Path of the benchmark script `name` (`scale.ts`, `service_load.ts`). */
export function benchScript(name: string): string {
  return new URL(`../../bench/${name}`, import.meta.url).pathname;
}

/**
 * Runs each bench/`name` with `args` and asserts that it exits 2 before printing anything on
 * stdout, with one line on stderr matching the case's pattern.
 */
export async function assertRefusedEndToEnd(
  cases: readonly (readonly [string, string[], RegExp])[],
): Promise<void> {
  for (const [name, args, re] of cases) {
    const r = await runDenoScript(benchScript(name), ["--allow-all"], args);
    const what = `${name} ${args.join(" ")}`;
    assertEquals(r.code, 2, `${what}: exit ${r.code}: ${r.stderr}`);
    assertEquals(r.stdout, "", `${what} printed ${r.stdout}`);
    assertEquals(r.stderr.trim().split("\n").length, 1, `${what}: not one line: ${r.stderr}`);
    assert(re.test(r.stderr.trim()), `${what}: ${re} not in ${r.stderr}`);
  }
}
