// `tagstream eval` of NDJSON events that name their features against a model that reads feature
// indices (`--feature-keys index`, the default, or XC/LIBSVM rows): the state directory's model
// and its model file both refuse the first such event, naming its line, the key, and the key
// modes that read names (as the learning service's rejection does), instead of scoring the
// events with their features dropped.
import { assert, assertEquals, expectRun, runMain, tempDirWith } from "./helpers.ts";

const HINT =
  /line 1 of .*named\.ndjson: features: key "w0" is not a feature index .*reads feature indices \(--feature-keys index.*--feature-keys name or hash/;

function lines(n: number, event: (i: number) => Record<string, unknown>): string {
  return Array.from({ length: n }, (_, i) => JSON.stringify(event(i))).join("\n") + "\n";
}

Deno.test("eval of events naming their features: an index-keyed model refuses them with the key-mode hint", async () => {
  const dir = await tempDirWith("tagstream_eval_named_index_", {
    "idx.ndjson": lines(60, (i) => ({ features: { [String(i % 3)]: 1 }, labels: [`l${i % 3}`] })),
    "named.ndjson": lines(6, (i) => ({ features: { [`w${i % 3}`]: 1 }, labels: [`l${i % 3}`] })),
  });
  try {
    const state = `${dir}/state`, model = `${dir}/m.tsm`;
    await expectRun(
      ["train", "--data", `${dir}/idx.ndjson`, "--model", "ova", "--quiet"]
        .concat(["--state-dir", state, "--out", model]),
      0,
    );
    for (const source of [["--state-dir", state], ["--model-file", model]]) {
      const r = await runMain(["eval", ...source, "--data", `${dir}/named.ndjson`]);
      assertEquals(r.code, 2, `${source[0]}: ${r.out}\n${r.err}`);
      assertEquals(r.out, "", `${source[0]} printed metrics`);
      assert(HINT.test(r.err), `${source[0]}: ${r.err}`);
      assert(r.err.includes(source[1]), `${source[0]}: the model is not named: ${r.err}`);
    }
    // the same models still score index-keyed events
    for (const source of [["--state-dir", state], ["--model-file", model]]) {
      const r = await runMain(["eval", ...source, "--data", `${dir}/idx.ndjson`]);
      assertEquals(r.code, 0, r.err);
      assertEquals(JSON.parse(r.out).rows, 60);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
