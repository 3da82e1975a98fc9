/**
 * `repro leml-stream` and `repro sleec-stream` evaluate one model on the test file, so their JSON
 * carries `stdErr`, the standard errors of the ranking metrics over the test rows, as the README
 * says such experiments do (it was left out).
 */
import { assert } from "../helpers.ts";
import { plantedData } from "../models/estimator_checks.ts";
import { Progress } from "../../src/progress/mod.ts";
import lemlStream from "../../bench/repro/experiments/leml-stream.ts";
import sleecStream from "../../bench/repro/experiments/sleec-stream.ts";

/** A folder with `toy.train.txt` (60 planted rows) and `toy.test.txt` (20 rows). */
async function trainTestFolder(): Promise<string> {
  const data = plantedData(80, 4, 5);
  const line = (r: (typeof data.rows)[number]) =>
    `${Array.from(r.labels).join(",")} ${
      Array.from(r.x.indices, (j, e) => `${j}:${r.x.values[e]}`).join(" ")
    }`;
  const dir = await Deno.makeTempDir({ prefix: "tagstream_stream_stderr_" });
  const write = async (name: string, rows: typeof data.rows) => {
    const head = `${rows.length} ${data.numFeatures} ${data.numLabels}`;
    await Deno.writeTextFile(`${dir}/${name}`, [head, ...rows.map(line)].join("\n") + "\n");
  };
  await write("toy.train.txt", data.rows.slice(0, 60));
  await write("toy.test.txt", data.rows.slice(60));
  return dir;
}

function context(dataDir: string, flags: Record<string, string>) {
  return {
    dataset: "toy",
    dataDir,
    seed: 0,
    flags,
    progress: new Progress({ silent: true, intervalMs: 0 }),
  };
}

Deno.test("repro leml-stream and sleec-stream report the standard errors of their test metrics", async () => {
  const dir = await trainTestFolder();
  try {
    const runs = [
      [
        "leml-stream",
        () =>
          lemlStream(context(dir, {
            rank: "2",
            lr: "0.01",
            lrH: "0.01",
            batch: "8",
            l2: "true",
            "replay-steps": "1",
          })),
      ],
      [
        "sleec-stream",
        () => sleecStream(context(dir, { k: "5", neighbours: "5", rank: "2", reservoir: "100" })),
      ],
    ] as const;
    for (const [name, run] of runs) {
      const r = await run();
      for (const m of ["P@1", "P@3", "P@5", "nDCG@5", "PSP@5"]) {
        const se = r.stdErr?.[m];
        assert(typeof se === "number" && se >= 0 && se <= 100, `${name}: stdErr ${m} = ${se}`);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
