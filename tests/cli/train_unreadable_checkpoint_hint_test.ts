/**
 * `train --state-dir` on a torn `checkpoint.msgpack` used to answer "'serve --repair' sets it
 * aside...": train has no `--repair`, and a user of train was sent to another command. It now
 * says train's way on: set the file aside (the `mv` it prints) and run the same command again,
 * which reads an NDJSON file again from its first line (the offset was in the checkpoint), or
 * starts a new model with an XC file. Following it works.
 */
import { assert, assertEquals, expectRun, withTempDir } from "./helpers.ts";

/** Cuts the checkpoint of `state` to half its length (a torn write). */
async function tear(state: string): Promise<void> {
  const path = `${state}/checkpoint.msgpack`;
  const bytes = await Deno.readFile(path);
  await Deno.writeFile(path, bytes.subarray(0, bytes.length >> 1));
}

/**
 * Runs `args` on the torn checkpoint of `state`: refused (exit 2) with train's words matching
 * `way`; then does the `mv` the message says and runs `args` again; returns its summary.
 */
async function followTheHint(
  args: string[],
  state: string,
  way: RegExp,
): Promise<Record<string, unknown>> {
  await tear(state);
  const r = await expectRun(args, 2, /Cannot read checkpoint .*checkpoint\.msgpack/, way);
  assert(!/serve --repair/.test(r.err), `sends train's user to serve: ${r.err}`);
  assert(/train has no --repair/.test(r.err), r.err);
  const mv = /\(mv (\S+) (\S+)\)/.exec(r.err);
  assert(mv !== null, `no mv in: ${r.err}`);
  assertEquals(mv[1], `${state}/checkpoint.msgpack`);
  await Deno.rename(mv[1], mv[2]);
  const again = await expectRun(args, 0);
  return JSON.parse(again.out.trim().split("\n").at(-1)!);
}

Deno.test("train on a torn checkpoint of an NDJSON run says train's way on: the file is read again", async () => {
  await withTempDir(async (dir) => {
    const events = `${dir}/events.ndjson`, state = `${dir}/state`;
    const lines = Array.from(
      { length: 30 },
      (_, i) => JSON.stringify({ id: `e${i}`, features: { [i % 5]: 1 }, labels: [`l${i % 3}`] }),
    );
    await Deno.writeTextFile(events, lines.join("\n") + "\n");
    const args = ["train", "--data", events, "--state-dir", state, "--model", "ova", "--quiet"];
    await expectRun(args, 0);
    const s = await followTheHint(
      args,
      state,
      new RegExp(
        `reads ${events.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} again from its first line`,
      ),
    );
    // the whole file again, from a new model
    assertEquals(s.eventsApplied, lines.length);
    assertEquals((s.position as { line: number }).line, lines.length);
  });
});

Deno.test("train on a torn checkpoint of an XC run says train's way on: a new model", async () => {
  await withTempDir(async (dir) => {
    const data = `${dir}/tiny.train.txt`, state = `${dir}/state`;
    const rows = Array.from(
      { length: 12 },
      (_, i) => `${[i % 3, (i + 1) % 3].sort().join(",")} ${i % 4}:1 4:0.5`,
    );
    await Deno.writeTextFile(data, `12 5 3\n${rows.join("\n")}\n`);
    const args = ["train", "--data", data, "--state-dir", state, "--model", "ova", "--quiet"];
    await expectRun(args, 0);
    const s = await followTheHint(args, state, /starts a new model with/);
    assertEquals(s.eventsApplied, rows.length);
  });
});
