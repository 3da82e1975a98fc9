/**
 * `repro split-check`: one line per member and split (last, first, the random ones, test), the
 * `last` split scored as `sleec-pool` scores it, and the summary computed from the lines.
 */
import experiment from "../../bench/repro/experiments/split-check.ts";
import pool from "../../bench/repro/experiments/sleec-pool.ts";
import { plantedData } from "../models/estimator_checks.ts";
import { reproContext } from "./repro_context.ts";
import { assert } from "../helpers.ts";

function xcLines(rows: ReturnType<typeof plantedData>["rows"], d: number, l: number): string {
  const lines = [`${rows.length} ${d} ${l}`];
  for (const r of rows) {
    const feats = Array.from(r.x.indices, (j, e) => `${j}:${r.x.values[e].toFixed(4)}`);
    lines.push(`${Array.from(r.labels).join(",")} ${feats.join(" ")}`);
  }
  return lines.join("\n") + "\n";
}

async function quiet<T>(run: () => Promise<T>): Promise<{ out: T; printed: string[] }> {
  const log = console.log, printed: string[] = [];
  console.log = (s: string) => printed.push(s);
  try {
    return { out: await run(), printed };
  } finally {
    console.log = log;
  }
}

Deno.test("repro split-check: a line per member and split, the last split as sleec-pool's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_split_check_" });
  try {
    const train = plantedData(120, 8, 3), test = plantedData(40, 8, 4);
    await Deno.writeTextFile(`${dir}/toy.train.txt`, xcLines(train.rows, train.numFeatures, 8));
    await Deno.writeTextFile(`${dir}/toy.test.txt`, xcLines(test.rows, test.numFeatures, 8));
    const flags = { members: "raw", splits: "2", k: "5", "vote-power": "2" };
    const { out: res, printed } = await quiet(() => experiment(reproContext(dir, flags)));
    const rows = res.extra!.rows as Record<string, number | string>[];
    assert(
      rows.map((r) => r.split).join() === "last,first,random#0,random#1,test",
      rows.map((r) => r.split).join(),
    );
    assert(printed.length === rows.length, `${printed.length} lines printed`);
    assert(rows[4].rows === 40 && rows[0].rows === 24, "rows per split");
    const s = (res.extra!.summary as Record<string, Record<string, number>>).raw;
    const means = rows.slice(0, 4).map((r) => r.mean as number);
    assert(
      s.validationMin === Math.min(...means) && s.validationMax === Math.max(...means),
      "range",
    );
    const avg = means.reduce((a, b) => a + b, 0) / 4;
    assert(Math.abs(s.validationMean - avg) < 0.006, `${s.validationMean} vs ${avg}`);
    assert(Math.abs(s.testMinusValidation - (s.test - s.validationMean)) < 0.011, "gap");
    assert(s.test === rows[4].mean, "test mean");
    // the last split is the sleec-pool split, scored by the same vote
    const { out: p } = await quiet(() =>
      pool(reproContext(dir, { members: "raw", "k-grid": "5", "vote-power": "2" }))
    );
    const best = (p.extra!.rows as Record<string, Record<string, number>>[])[0].best;
    for (const k of ["P@1", "P@3", "P@5"]) {
      assert(best[k] === rows[0][k], `${k}: sleec-pool ${best[k]}, split-check ${rows[0][k]}`);
    }
    for (
      const [bad, want] of [[{ splits: "-1" }, "--splits"], [{ k: "0" }, "--k"], [
        { members: "" },
        "--members",
      ]] as const
    ) {
      const e = await quiet(() => experiment(reproContext(dir, { ...flags, ...bad }))).catch((e) =>
        e as Error
      );
      assert(e instanceof Error && e.message.includes(want), `${JSON.stringify(bad)}: ${e}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
