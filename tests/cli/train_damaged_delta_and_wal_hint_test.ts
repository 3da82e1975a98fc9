/**
 * `train --state-dir` on a damaged incremental checkpoint (`checkpoint.deltas/`) or a damaged
 * write-ahead log (`wal/`) used to answer "'serve --repair' sets it ... aside" / "'serve --repair'
 * drops the damaged part": train has no `--repair`, and its user was sent to another command. It
 * now says train's way on: set the incremental checkpoints (or the log) aside with the `mv` it
 * prints and run the same command again. Following it works: an NDJSON file is read on from the
 * line the base checkpoint had reached; the log's events (train logs none: a serve of the
 * directory took them) are lost.
 */
import { CheckpointChain } from "../../src/service/checkpoint_chain.ts";
import { factory as ova, type OvaEstimator } from "../../src/models/ova/mod.ts";
import type { WalPosition } from "../../src/service/wal.ts";
import { WriteAheadLog } from "../../src/service/wal_writer.ts";
import { assert, assertEquals, expectRun, withTempDir } from "./helpers.ts";

/** `n` NDJSON events, ids `e<from>`... */
function events(from: number, n: number): string {
  return Array.from(
    { length: n },
    (_, i) =>
      JSON.stringify({
        id: `e${from + i}`,
        features: { [(from + i) % 5]: 1 },
        labels: ["a", "b"],
      }) +
      "\n",
  ).join("");
}

/** `s` as a regular expression's literal text. */
function literal(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Flips the bits of the byte at `at` (a fraction of the length) of `path`. */
async function flipByte(path: string, at: number): Promise<void> {
  const bytes = await Deno.readFile(path);
  bytes[Math.floor(bytes.length * at)] ^= 0xff;
  await Deno.writeFile(path, bytes);
}

/**
 * Runs `args`: refused with `code`, naming the damage (`damage`) in train's words, without
 * sending the user to serve; then does the `mv` the message says, checks it moves `expected`, and
 * runs `args` again; returns its summary and stderr.
 */
async function followTheHint(
  args: string[],
  code: number,
  damage: RegExp,
  expected: string,
): Promise<{ summary: Record<string, unknown>; err: string }> {
  const r = await expectRun(args, code, damage, /train has no --repair/);
  assert(!/serve --repair/.test(r.err), `sends train's user to serve: ${r.err}`);
  const mv = /\(mv (\S+) (\S+)\)/.exec(r.err);
  assert(mv !== null, `no mv in: ${r.err}`);
  assertEquals(mv[1], expected);
  await Deno.rename(mv[1], mv[2]);
  const again = await expectRun([...args.filter((a) => a !== "--quiet")], 0);
  return { summary: JSON.parse(again.out.trim().split("\n").at(-1)!), err: again.err };
}

Deno.test("train on a damaged incremental checkpoint says train's way on: the base, then the file from its line", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/events.ndjson`, state = `${dir}/state`;
    await Deno.writeTextFile(file, events(0, 20));
    const args = ["train", "--data", file, "--state-dir", state, "--model", "ova", "--quiet"];
    await expectRun(args, 0);
    // the state directory of a process that checkpointed twice: a base (at line 20), a delta
    const r = (await CheckpointChain.restore(state, ova))!;
    (r.learner.estimator as OvaEstimator).stateDeltaMaxFraction = 1; // a tiny model
    const chain = new CheckpointChain(state);
    await chain.write(chain.take(r.learner));
    const delta = chain.take(r.learner);
    assert(delta.delta, "the second checkpoint is not a delta");
    await chain.write(delta);
    await flipByte(`${state}/${delta.name}`, 0.5);
    await Deno.writeTextFile(file, events(20, 10), { append: true });
    const { summary, err } = await followTheHint(
      args,
      2,
      new RegExp(
        `Cannot apply checkpoint delta ${literal(`${state}/checkpoint.deltas/`)}delta-.*: ` +
          `checkpoint is damaged.*resumes from ${literal(`${state}/checkpoint.msgpack`)} and ` +
          `reads ${literal(file)} on from the line`,
      ),
      `${state}/checkpoint.deltas`,
    );
    assert(/resumed from .*checkpoint\.msgpack: 20 events applied/.test(err), err);
    // the base's 20 events and the 10 lines after them, each once
    assertEquals(summary.eventsApplied, 30);
    assertEquals((summary.position as { line: number }).line, 30);
  });
});

Deno.test("train on a damaged write-ahead log says train's way on: the log's events are lost", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/events.ndjson`, state = `${dir}/state`;
    await Deno.writeTextFile(file, events(0, 20));
    const args = ["train", "--data", file, "--state-dir", state, "--model", "ova", "--quiet"];
    await expectRun(args, 0);
    // train logs nothing: the log holds what a serve of the directory took after the checkpoint
    assertEquals([...Deno.readDirSync(`${state}/wal`)].filter((e) => e.name.endsWith(".wal")), []);
    const r = (await CheckpointChain.restore(state, ova, { readOnly: true }))!;
    const pos = r.learner.position.wal as WalPosition;
    const wal = await WriteAheadLog.open(`${state}/wal`, pos.segment, { nextSeq: pos.seq });
    await wal.append(new TextEncoder().encode(events(100, 3).replaceAll('"e', '"h')));
    await wal.close();
    const [segment] = [...Deno.readDirSync(`${state}/wal`)].filter((e) => e.name.endsWith(".wal"));
    await flipByte(`${state}/wal/${segment.name}`, 0.5);
    await Deno.writeTextFile(file, events(20, 5), { append: true });
    const { summary, err } = await followTheHint(
      args,
      1,
      new RegExp(
        `The write-ahead log is damaged: ${literal(`${state}/wal/${segment.name}`)} at byte ` +
          `\\d+: .*resumes from ${literal(`${state}/checkpoint.msgpack`)} .*without the log's ` +
          `events`,
      ),
      `${state}/wal`,
    );
    assert(!/replayed/.test(err), err);
    // the file's 25 events; the log's 3 are lost
    assertEquals(summary.eventsApplied, 25);
  });
});
