/**
 * What a state directory's model says its user should know (`trainingNote`, the `note` of
 * `train`'s summary) is also where a user of that state directory reads what the model is:
 * `eval --state-dir`'s JSON report (XC and NDJSON test sets) and `inspect --state-dir` (JSON and
 * text). knn with `k` above the rows it learnt votes over every row, and says so; with `k`
 * within them, no note.
 */
import { assert, assertEquals, runMain, withTempDir } from "./helpers.ts";

const TOY = "4 3 2\n0 0:1\n1 1:1\n0 0:1 2:0.5\n1 1:1\n";
const EVENTS = '{"features":{"0":1},"labels":["0"]}\n{"features":{"1":1},"labels":["1"]}\n';

/** The note of the JSON object on the last line of `out`. */
const noteOf = (out: string): unknown => JSON.parse(out.trim().split("\n").at(-1)!).note;

Deno.test("eval --state-dir and inspect --state-dir: knn with k above the rows learnt says so; k within, no note", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.txt`, TOY);
    await Deno.writeTextFile(`${dir}/toy.ndjson`, EVENTS);
    for (const [state, k, noted] of [["big", 100000, true], ["small", 2, false]] as const) {
      const stateDir = `${dir}/${state}`;
      const train = await runMain([
        "train",
        ...["--data", `${dir}/toy.txt`, "--quiet", "--model", "knn"],
        ...["--option", `k=${k}`, "--state-dir", stateDir],
      ]);
      assertEquals(train.code, 0, train.err);
      const want = noteOf(train.out);
      assertEquals(typeof want, noted ? "string" : "undefined", train.out);
      if (noted) assert(String(want).includes(`k = ${k}`), String(want));
      const runs = {
        "eval (XC)": ["eval", "--state-dir", stateDir, "--data", `${dir}/toy.txt`],
        "eval (NDJSON)": ["eval", "--state-dir", stateDir, "--data", `${dir}/toy.ndjson`],
        "inspect --json": ["inspect", "--state-dir", stateDir, "--json"],
      };
      for (const [what, args] of Object.entries(runs)) {
        const r = await runMain(args);
        assertEquals(r.code, 0, `${what}: ${r.err}`);
        // the same sentence as train's, under the same name
        assertEquals(noteOf(r.out), want, `${state}, ${what}: ${r.out}`);
      }
      const text = await runMain(["inspect", "--state-dir", stateDir]);
      assertEquals(text.code, 0, text.err);
      const line = text.out.split("\n").find((l) => l.startsWith("note: "));
      assertEquals(line, noted ? `note: ${want}` : undefined, text.out);
    }
  });
});
