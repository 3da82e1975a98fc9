// `--propensity-a A --propensity-b B` set the propensity model of PSP@k and PSnDCG@k in both
// eval commands (`tagstream eval`, `deno task eval`): the data sets with other published values
// (Wikipedia-LSHTC 0.5 / 0.4, Amazon 0.6 / 2.6) were scored with 0.55 / 1.5 only. The expected
// PSP@1 is computed here from Jain et al.'s formula, not by the code under test.
import { assert, assertEquals, runDenoScript, runMain, tempDirWith } from "./helpers.ts";

const EVAL = new URL("../../src/cli/eval.ts", import.meta.url).pathname;

// training label counts N_0 = 7, N_1 = 2, N_2 = 1 over N = 10 rows
const TRAIN = "10 2 3\n" + "0 0:1\n".repeat(7) + "1 1:1\n".repeat(2) + "2 0:1\n";
// test rows {0, 1}, {2}, {0}; top 1 predicted: 0 (a hit), 0 (a miss), 2 (a miss)
const TEST = "3 2 3\n0,1 0:1\n2 1:1\n0 0:1\n";
const PREDICTIONS = "0:0.9 1:0.5\n0:0.9\n2:0.9 0:0.1\n";

/** PSP@1 of the rows above under (A, B), from the formula 1/p = 1 + C (N_l + B)^-A. */
function expectedPsp1(A: number, B: number): number {
  const C = (Math.log(10) - 1) * Math.pow(B + 1, A);
  const w = (n: number) => 1 + C * Math.pow(n + B, -A);
  const [w0, w1, w2] = [w(7), w(2), w(1)];
  // gains: row 1's hit on label 0; best: row 1's rarer label 1, row 2's label 2, row 3's label 0
  return (100 * w0) / (Math.max(w0, w1) + w2 + w0);
}

Deno.test("eval --propensity-a/-b set PSP@k's propensities; the default is 0.55 / 1.5", async () => {
  const dir = await tempDirWith("tagstream_eval_propensity_", {
    "toy.train.txt": TRAIN,
    "toy.test.txt": TEST,
    "p.txt": PREDICTIONS,
  });
  try {
    const base = ["--dataset", "toy", "--data-dir", dir, "--predictions", `${dir}/p.txt`];
    const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;
    for (
      const [extra, A, B] of [[[], 0.55, 1.5], [
        ["--propensity-a", "0.5", "--propensity-b", "0.4"],
        0.5,
        0.4,
      ]] as const
    ) {
      const viaTask = await runDenoScript(EVAL, ["--allow-read", "--allow-env"], [
        ...base,
        ...extra,
      ]);
      assertEquals(viaTask.code, 0, viaTask.stderr);
      const viaCli = await runMain(["eval", ...base, ...extra]);
      assertEquals(viaCli.code, 0, viaCli.err);
      for (const out of [viaTask.stdout, viaCli.out]) {
        const r = JSON.parse(out.trim().split("\n").at(-1)!);
        assertEquals(r.propensity, { A, B });
        assert(
          close(r.metrics["PSP@1"], expectedPsp1(A, B)),
          `${A}/${B}: ${r.metrics["PSP@1"]} vs ${expectedPsp1(A, B)}`,
        );
      }
    }
    assert(!close(expectedPsp1(0.5, 0.4), expectedPsp1(0.55, 1.5)), "the two settings differ");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval refuses a propensity parameter that is not a number > 0 before reading data", async () => {
  for (
    const [flag, value] of [["propensity-a", "0"], ["propensity-b", "-1"], ["propensity-a", "abc"]]
  ) {
    const r = await runMain([
      "eval",
      "--dataset",
      "none",
      "--data-dir",
      "/nonexistent",
      "--predictions",
      "/nonexistent/p.txt",
      `--${flag}`,
      value,
    ]);
    assertEquals(r.code, 2, r.err);
    assert(
      new RegExp(`--${flag} must be a number`).test(r.err) && r.err.includes(`'${value}'`),
      r.err,
    );
  }
});
