// `deno task eval --help` stated the propensity weight wrongly: "weigh labels by inverse
// propensities 1/(1 + C·(N_l + B)^-A)" is p_l itself (the weight is 1/p_l = 1 + C·(N_l + B)^-A),
// C was never defined, and neither the Hamming threshold (score > 0) nor how rows with no true
// label count, nor which rows and labels the AUCs average over, were said.
import { assert, assertEquals, runDenoScript } from "./helpers.ts";

const EVAL = new URL("../../src/cli/eval.ts", import.meta.url).pathname;

Deno.test("deno task eval --help states the propensity weight, C, the threshold and empty rows", async () => {
  const r = await runDenoScript(EVAL, ["--allow-read", "--allow-env"], ["--help"]);
  assertEquals(r.code, 0, r.stderr);
  const text = r.stdout.replace(/\s+/g, " ");
  assert(!text.includes("inverse propensities 1/(1 + C"), text);
  assert(text.includes("1/p_l, where p_l = 1/(1 + C·(N_l + B)^-A)"), text);
  assert(text.includes("C = (ln N − 1)·(B + 1)^A"), text);
  assert(text.includes("score > 0 counts as predicted"), text);
  assert(text.includes("no true label counts 0 in P@k"), text);
  assert(text.includes("macroAUC over the labels true in some rows and false in others"), text);
});
