// The offline commands (eval, inspect, export --state-dir) only read a state directory. On a
// damaged incremental checkpoint they used to say "'serve --repair' sets it and the deltas after
// it aside and resumes from the checkpoint before it", as if the user had run serve. They now say
// what they read and refuse, and that the directory's writer (serve --repair, or train's advice)
// sets the damage aside; the directory is left as it was.
import { CheckpointChain } from "../../src/service/checkpoint_chain.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { factory as ova, type OvaEstimator } from "../../src/models/ova/mod.ts";
import { assert, assertEquals, expectRun, withTempDir } from "./helpers.ts";

/** A base checkpoint (of 400 events) and three incremental ones after it in `dir`. */
async function threeDeltas(dir: string): Promise<string[]> {
  const chain = new CheckpointChain(dir);
  const l = StreamLearner.create(ova, { batchSize: 1 });
  (l.estimator as OvaEstimator).stateDeltaMaxFraction = 1; // a tiny model: deltas still taken
  const event = (i: number) =>
    `{"features": {"${i}": 1, "${i + 1000}": 1, "${i + 2000}": 1}, "labels": ["t${i % 50}"]}`;
  for (let i = 0; i < 400; i++) l.ingestLine(event(i), "t", i + 1);
  for (let c = 0; c < 4; c++) {
    if (c > 0) l.ingestLine(event(c), "t", 400 + c);
    const taken = chain.take(l);
    assertEquals(taken.delta, c > 0);
    await chain.write(taken);
  }
  return (await Array.fromAsync(Deno.readDir(`${dir}/checkpoint.deltas`), (e) => e.name)).sort();
}

Deno.test("eval, inspect and export on a damaged incremental checkpoint say what they read, and who mends it", async () => {
  await withTempDir(async (dir) => {
    const state = `${dir}/state`;
    await Deno.mkdir(state);
    const names = await threeDeltas(state);
    assertEquals(names.length, 3);
    const second = `${state}/checkpoint.deltas/${names[1]}`;
    const bytes = await Deno.readFile(second);
    await Deno.writeFile(second, bytes.subarray(0, bytes.length >> 1));
    await Deno.writeTextFile(`${dir}/ev.ndjson`, '{"features": {"0": 1}, "labels": ["news"]}\n');
    const runs = [
      ["inspect", "--state-dir", state],
      ["export", "--state-dir", state, "--out", `${dir}/out.tsm`],
      ["eval", "--state-dir", state, "--data", `${dir}/ev.ndjson`],
    ];
    for (const args of runs) {
      const { err } = await expectRun(
        args,
        2,
        new RegExp(`Cannot apply checkpoint delta ${second}: checkpoint is damaged`),
        new RegExp(
          `This command only reads the state directory: it read ${state}/checkpoint\\.msgpack ` +
            `and the 1 incremental checkpoint after it, and refuses a model without the events ` +
            `from this one on \\(this one and the 1 incremental checkpoint after it\\)`,
        ),
        /The directory's writer sets the damage aside: 'serve --repair'/,
        /or train, which names the mv to run/,
      );
      assert(!err.includes("Refusing to start"), err);
    }
    // read-only: nothing moved, nothing written
    assertEquals((await Deno.readFile(second)).length, bytes.length >> 1);
    assertEquals(await Deno.stat(`${dir}/out.tsm`).then(() => true, () => false), false);
  });
});
