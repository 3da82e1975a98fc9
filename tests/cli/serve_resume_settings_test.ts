// `tagstream serve --state-dir DIR` resumes DIR's model with the settings it was created with:
// the batch size, the prequential window, the feature keys, the hashing and whether text is read.
// A flag giving another value was ignored without a word (`--hash-dim 8192` on a 4096-column
// model served the 4096 columns). It is now refused (exit 2) naming the flag, the value given and
// the model's; the same value as the model's is fine.
import { assert, assertEquals, runMain, runServe, withTempDir } from "./helpers.ts";

/** A state directory of 20 text events learned with --text-only --hash-dim 4096. */
async function textState(dir: string): Promise<string> {
  const events = Array.from(
    { length: 20 },
    (_, i) => JSON.stringify({ text: `word${i % 4} other${i % 3}`, labels: [`t${i % 3}`] }),
  ).join("\n") + "\n";
  await Deno.writeTextFile(`${dir}/e.ndjson`, events);
  const state = `${dir}/state`;
  const r = await runMain([
    "train",
    ...["--data", `${dir}/e.ndjson`, "--model", "popularity", "--state-dir", state],
    ...["--text-only", "--hash-dim", "4096", "--publish-every", "0", "--quiet"],
  ]);
  assertEquals(r.code, 0, r.err);
  return state;
}

Deno.test("serve refuses a learner flag that differs from the resumed model's", async () => {
  await withTempDir(async (dir) => {
    const state = await textState(dir);
    const cases: [string[], RegExp][] = [
      [
        ["--text-only", "--hash-dim", "8192"],
        /--hash-dim 8192 differs from the 4096 that --state-dir .*state was created with/,
      ],
      [["--window", "10"], /--window 10 differs from the 1000 that --state-dir .*state was/],
      [
        ["--text-only", "--batch-size", "7"],
        /--batch-size 7 differs from the 32 that --state-dir .*state was/,
      ],
      [
        ["--feature-keys", "index"],
        /--feature-keys index differs from the hash that --state-dir .*state was/,
      ],
      [
        ["--same-thread", "--text"],
        /--text differs from the --text-only that --state-dir .*state was/,
      ],
    ];
    for (const [args, re] of cases) {
      const r = await runServe(state, ["--model", "popularity", ...args]);
      const what = args.join(" ");
      assertEquals(r.code, 2, `${what}: ${r.code === null ? "still serving" : r.stderr}`);
      assert(re.test(r.stderr), `${what}: ${r.stderr}`);
    }
    // the model's own settings given again: it serves (killed after a while)
    const same = await runServe(
      state,
      ["--model", "popularity", "--text-only", "--hash-dim", "4096", "--batch-size", "32"],
      5000,
    );
    assertEquals(same.code, null, same.stderr);
    assert(same.stdout.includes('"event":"listening"'), same.stdout);
  });
});
