/**
 * `inspect --state-dir` and `export --state-dir` on a state directory whose write-ahead log holds
 * events after its checkpoint (a server stopped by a crash or a kill, or one still running): the
 * counts inspect prints are those a restart resumes with (it printed the checkpoint's alone), and
 * export, which writes the checkpoint's model, says that the log's events are not in it.
 */
import { factory as ova } from "../../src/models/ova/mod.ts";
import { factory as br } from "../../src/models/br/mod.ts";
import type { EstimatorFactory } from "../../src/models/estimator.ts";
import { LearningService } from "../../src/service/service.ts";
import { decodeCheckpoint } from "../../src/service/checkpoint.ts";
import { type WalPosition, WriteAheadLog } from "../../src/service/wal.ts";
import { assert, assertEquals, expectRun, withTempDir } from "./helpers.ts";

const event = (i: number) =>
  JSON.stringify({ id: `e${i}`, features: { [String(i % 3)]: 1 }, labels: [`l${i % 2}`] });

/** `dir/state`: 3 events checkpointed, then 2 events on the log only (as after a kill). */
async function stateWithLog(
  dir: string,
  factory: EstimatorFactory = ova,
  ev: (i: number) => string = event,
): Promise<string> {
  const state = `${dir}/state`;
  const s = await LearningService.open({
    factory,
    stateDir: state,
    batchSize: 1,
    log: () => {},
  });
  await s.ingestBody([0, 1, 2].map(ev).join("\n") + "\n", "t");
  await s.stop();
  const ck = decodeCheckpoint(await Deno.readFile(`${state}/checkpoint.msgpack`)) as {
    position: { wal: WalPosition };
  };
  const p = ck.position.wal;
  const wal = await WriteAheadLog.open(`${state}/wal`, p.segment, { nextSeq: p.seq });
  await wal.append(new TextEncoder().encode([3, 4].map(ev).join("\n") + "\n"));
  await wal.close();
  return state;
}

/** The events a restart of `state` resumes with (on a copy: a start rewrites the directory). */
async function appliedAfterRestart(dir: string, state: string): Promise<number> {
  const copy = `${dir}/copy`;
  await new Deno.Command("cp", { args: ["-r", state, copy] }).output();
  const s = await LearningService.open({ factory: ova, stateDir: copy, log: () => {} });
  const n = s.learner.applied;
  await s.stop();
  return n;
}

Deno.test("inspect --state-dir counts the events of the write-ahead log a restart replays", async () => {
  await withTempDir(async (dir) => {
    const state = await stateWithLog(dir);
    const before = await Deno.readFile(`${state}/checkpoint.msgpack`);
    const r = await expectRun(["inspect", "--state-dir", state, "--json"], 0);
    const d = JSON.parse(r.out) as { events: { applied: number } };
    const restarted = await appliedAfterRestart(dir, state);
    assert(restarted > 3, `the restart replayed the log: ${restarted}`);
    assertEquals(d.events.applied, restarted);
    // read-only: the checkpoint is as it was, the log still there
    assertEquals(await Deno.readFile(`${state}/checkpoint.msgpack`), before);
  });
});

Deno.test("export --state-dir warns that the write-ahead log's events are not in the model", async () => {
  await withTempDir(async (dir) => {
    const state = await stateWithLog(dir);
    const r = await expectRun(
      ["export", "--state-dir", state, "--out", `${dir}/m.tsm`],
      0,
      /warning: 2 event\(s\) in .*wal after the checkpoint are not in the model/,
    );
    assertEquals((JSON.parse(r.out) as { warnings: string[] }).warnings.length, 1);
  });
});

Deno.test("export --state-dir warns when the state has learned nothing", async () => {
  await withTempDir(async (dir) => {
    for (const [name, events, batchSize] of [["empty", 0, 1], ["queued", 3, 8]] as const) {
      const state = `${dir}/${name}`;
      const s = await LearningService.open({
        factory: ova,
        stateDir: state,
        batchSize,
        log: () => {},
      });
      if (events > 0) {
        await s.ingestBody(Array.from({ length: events }, (_, i) => event(i)).join("\n"), "t");
      }
      await s.stop();
      await expectRun(
        ["export", "--state-dir", state, "--out", `${dir}/${name}.tsm`],
        0,
        new RegExp(
          `warning: the checkpoint of ${state} has learned no events \\(${events} applied`,
        ),
      );
    }
    // a state that learned: no warning
    const state = await stateWithLog(dir);
    await expectRun(["inspect", "--state-dir", state], 0); // read-only
    const r = await expectRun(["export", "--state-dir", state, "--out", `${dir}/m.tsm`], 0);
    assert(!/learned no events/.test(r.err), r.err);
  });
});

Deno.test("export --state-dir: a log it cannot read is a warning, not a failed export", async () => {
  await withTempDir(async (dir) => {
    const state = await stateWithLog(dir);
    await Deno.remove(`${state}/wal`, { recursive: true });
    await Deno.writeTextFile(`${state}/wal`, "not a directory");
    await expectRun(
      ["export", "--state-dir", state, "--out", `${dir}/m.tsm`],
      0,
      /warning: cannot read the write-ahead log after the checkpoint \(.*wal/,
    );
    assert((await Deno.stat(`${dir}/m.tsm`)).size > 0, "no model written");
  });
});

Deno.test("inspect --state-dir lists a damaged log record instead of failing", async () => {
  await withTempDir(async (dir) => {
    const state = await stateWithLog(dir);
    const seg = [...Deno.readDirSync(`${state}/wal`)].map((e) => e.name).sort().at(-1)!;
    // a record without its checksum between the log's records and a new one
    await Deno.writeTextFile(`${state}/wal/${seg}`, '{"features": {}}\n', { append: true });
    const r = await expectRun(["inspect", "--state-dir", state, "--json"], 0);
    const d = JSON.parse(r.out) as { events: { fromLog: number }; walDamage: string[] };
    assertEquals(d.events.fromLog, 2);
    assert(d.walDamage.length === 1 && d.walDamage[0].startsWith(`wal/${seg}`), d.walDamage[0]);
  });
});

Deno.test("eval --state-dir evaluates the model a restart serves: the log's events replayed", async () => {
  await withTempDir(async (dir) => {
    const state = await stateWithLog(dir);
    await Deno.writeTextFile(
      `${dir}/test.ndjson`,
      [0, 1, 2, 3, 4, 5].map(event).join("\n") + "\n",
    );
    await appliedAfterRestart(dir, state); // dir/copy: restarted, the log now in its checkpoint
    const run = async (stateDir: string) =>
      JSON.parse(
        (await expectRun(["eval", "--state-dir", stateDir, "--data", `${dir}/test.ndjson`], 0))
          .out,
      ) as { fromLog: number; metrics: Record<string, number> };
    const [logged, restarted] = [await run(state), await run(`${dir}/copy`)];
    assertEquals([logged.fromLog, restarted.fromLog], [2, 0]);
    assertEquals(logged.metrics, restarted.metrics);
  });
});

Deno.test("prune --state-dir prunes the model a restart serves: the log's events replayed", async () => {
  await withTempDir(async (dir) => {
    // labels and features named by their indices, in order: the dataset's label order
    const indexed = (i: number) =>
      JSON.stringify({ id: `e${i}`, features: { [String(i % 3)]: 1 }, labels: [String(i % 2)] });
    const state = await stateWithLog(dir, br, indexed);
    const rows = Array.from({ length: 20 }, (_, i) => `${i % 2} ${i % 3}:1`);
    await Deno.writeTextFile(`${dir}/t.train.txt`, `20 3 2\n${rows.join("\n")}\n`);
    const r = await expectRun(
      ["prune", "--dataset", "t", "--data-dir", dir, "--state-dir", state, "--no-plot"],
      0,
    );
    assertEquals((JSON.parse(r.out.trim().split("\n").at(-1)!) as { fromLog: number }).fromLog, 2);
  });
});
