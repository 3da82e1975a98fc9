/**
 * An error whose message begins with a path named `tagstream…` (`tagstream.tsm: no such file`,
 * `tagstream-state/checkpoint.msgpack does not exist`) is still prefixed with the command
 * (`tagstream inspect: …`): main took any message starting with "tagstream" for one that names
 * the command already, and printed it bare.
 */
import { assert, expectRun } from "./helpers.ts";

Deno.test("errors about a path named tagstream… still name the command", async () => {
  const r = await expectRun(["inspect", "tagstream-no-such.tsm"], 2);
  assert(r.err.startsWith("tagstream inspect: tagstream-no-such.tsm: no such file"), r.err);
  const e = await expectRun(
    ["export", "--state-dir", "tagstream-no-such", "--out", "/tmp/tagstream-no-such.tsm"],
    2,
  );
  assert(e.err.startsWith("tagstream export: tagstream-no-such/checkpoint.msgpack"), e.err);
  // a message that names its command is left as it is
  const s = await expectRun(["inspect"], 2);
  assert(s.err.startsWith("tagstream inspect: give a model file"), s.err);
});
