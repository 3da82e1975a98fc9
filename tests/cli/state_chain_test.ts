import { CheckpointChain } from "../../src/service/checkpoint_chain.ts";
import type { StreamLearner } from "../../src/service/learner.ts";
import { openState } from "../../src/cli/commands/state.ts";
import { describeState } from "../../src/cli/commands/inspect.ts";
import { assert, assertEquals } from "../helpers.ts";
import { chainStateDir } from "./helpers.ts";

/** A state directory holding a base checkpoint and an incremental one after it (ova). */
async function chainDir(): Promise<{ dir: string; learner: StreamLearner }> {
  const dir = await Deno.makeTempDir();
  const l = await chainStateDir(dir);
  l.ingestLine('{"features": {"2": 1}, "labels": ["music"]}', "t", 3); // not checkpointed
  return { dir, learner: l };
}

async function listDeltas(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dir}/checkpoint.deltas`)) out.push(e.name);
  return out.sort();
}

Deno.test("offline commands read a state directory's incremental checkpoints too", async () => {
  const { dir, learner } = await chainDir();
  try {
    // a file of another chain: a service start would remove it, an offline reader must not
    await Deno.writeFile(
      `${dir}/checkpoint.deltas/delta-other-00000001.msgpack`,
      new Uint8Array(3),
    );
    const before = await listDeltas(dir);
    const l = await openState(dir);
    assertEquals(l.applied, 2);
    assertEquals(learner.applied, 3);
    assertEquals(l.parser.labels.names, ["news", "sport"]);
    assertEquals(l.predict({ "1": 1 }, 1).labels, ["sport"]);
    const d = await describeState(dir);
    assertEquals((d.events as { applied: number }).applied, 2);
    assertEquals(d.labels, 2);
    assertEquals(d.incrementalCheckpoints, 1);
    assertEquals(await listDeltas(dir), before); // read-only: nothing removed
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a read-only chain load refuses to repair", async () => {
  const { dir, learner } = await chainDir();
  try {
    let msg = "";
    try {
      await CheckpointChain.load(dir, learner, learner.toCheckpoint(), {
        readOnly: true,
        repair: true,
      });
    } catch (e) {
      msg = (e as Error).message;
    }
    assert(msg.includes("read-only"), msg);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
