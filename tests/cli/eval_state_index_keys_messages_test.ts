// `tagstream eval --state-dir` of NDJSON events with an index-keyed model: which error a bad
// event gets. A key that is not a feature index is named with the key-mode hint even when another
// field of the event fails first in the parser's order (a bad value before it); an event with
// index keys only gets the parser's own message. (The keys are checked a second time only when
// the parser refuses the event.)
import { assert, assertEquals, expectRun, runMain, tempDirWith } from "./helpers.ts";

const KEY_HINT =
  /^tagstream eval: Cannot score line (\d+) of .*bad\.ndjson: features: key "w" is not a feature index \(a non-negative integer\); the model .*state reads feature indices \(--feature-keys index, or XC\/LIBSVM rows\): events that name their features need a model trained with --feature-keys name or hash$/;

function lines(events: Record<string, unknown>[]): string {
  return events.map((e) => JSON.stringify(e)).join("\n") + "\n";
}

/** The stderr of `eval --state-dir` on `bad.ndjson`: one good event, then `event`. */
async function evalError(
  dir: string,
  state: string,
  event: Record<string, unknown>,
): Promise<string> {
  await Deno.writeTextFile(
    `${dir}/bad.ndjson`,
    lines([{ features: { "0": 1 }, labels: ["l0"] }, event]),
  );
  const r = await runMain(["eval", "--state-dir", state, "--data", `${dir}/bad.ndjson`]);
  assertEquals(r.code, 2, `${r.out}\n${r.err}`);
  assertEquals(r.out, "", "metrics were printed");
  return r.err;
}

Deno.test("eval --state-dir of an index-keyed model: the error of each bad event", async () => {
  const train = Array.from({ length: 30 }, (_, i) => ({
    features: { [String(i % 3)]: 1 },
    labels: [`l${i % 3}`],
  }));
  const dir = await tempDirWith("tagstream_eval_state_keys_", { "idx.ndjson": lines(train) });
  try {
    const state = `${dir}/state`;
    await expectRun(
      ["train", "--data", `${dir}/idx.ndjson`, "--model", "ova", "--quiet", "--state-dir", state],
      0,
    );
    // a key that is not an index is named with the hint, also after a bad value of the event
    for (
      const features of [{ w: 1 }, { "0": 1, w: 1 }, { "0": "x", w: 1 }, { "1": null, w: "y" }]
    ) {
      const err = await evalError(dir, state, { features, labels: ["l0"] });
      const m = KEY_HINT.exec(err);
      assert(m !== null, `${JSON.stringify(features)}: ${err}`);
      assertEquals(m[1], "2");
    }
    // index keys only: the parser's message for the value
    assertEquals(
      await evalError(dir, state, { features: { "0": 1, "2": "x" }, labels: ["l0"] }),
      `tagstream eval: Cannot score line 2 of ${dir}/bad.ndjson: features["2"]: value must be a ` +
        `finite number, got "x"`,
    );
    // a text and no features, for a model that reads no text
    assertEquals(
      await evalError(dir, state, { text: "abc", labels: ["l0"] }),
      `tagstream eval: Cannot score line 2 of ${dir}/bad.ndjson: the event has no 'features' and ` +
        `the model was not trained on text`,
    );
    // and good events are scored
    await Deno.writeTextFile(`${dir}/good.ndjson`, lines(train.slice(0, 6)));
    const r = await runMain(["eval", "--state-dir", state, "--data", `${dir}/good.ndjson`]);
    assertEquals(r.code, 0, r.err);
    assertEquals(JSON.parse(r.out).rows, 6);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
