// The state-directory hints of `namedCheckpointError` (src/cli/commands/state.ts) follow the
// learner's errors by their class and the data they carry, not by their message: it used to match
// the text "Checkpoint holds a 'X' model but 'Y' was asked for" / "Not a Tagstream checkpoint", so
// a reworded message in the learner silently dropped the hint (the user got the bare message,
// naming neither the file nor --model), and an unrelated error starting with the same words (a
// delta's "Not a Tagstream checkpoint delta") was renamed as if checkpoint.msgpack were at fault.
import { namedCheckpointError } from "../../src/cli/commands/state.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import type { LearnerCheckpoint } from "../../src/service/learner.ts";
import { factory as popularity } from "../../src/models/popularity/mod.ts";
import { factory as br } from "../../src/models/br/mod.ts";
import { assert, assertEquals } from "./helpers.ts";

/** What `StreamLearner.fromCheckpoint(factory, ck)` throws (the test fails if nothing). */
function thrownBy(factory: typeof br, ck: unknown): Error {
  try {
    StreamLearner.fromCheckpoint(factory, ck as LearnerCheckpoint);
  } catch (e) {
    return e as Error;
  }
  throw new Error("fromCheckpoint did not throw");
}

Deno.test("namedCheckpointError: another model's checkpoint keeps its hint when the learner rewords its message", () => {
  const ck = StreamLearner.create(popularity).toCheckpoint();
  const e = thrownBy(br, ck);
  // the learner's wording may change; the CLI's hint must not depend on it
  e.message = "the checkpoint is of another model family";
  const named = namedCheckpointError(e, "st") as Error;
  assert(named instanceof TypeError, String(named));
  assert(named.message.startsWith("st/checkpoint.msgpack: "), named.message);
  assert(
    named.message.endsWith("(--model popularity resumes it; a new --state-dir starts a br model)"),
    named.message,
  );
});

Deno.test("namedCheckpointError: data that is no checkpoint names the file whatever the learner's wording", () => {
  const e = thrownBy(br, { some: "msgpack map" });
  e.message = "this is not a checkpoint";
  const named = namedCheckpointError(e, "st") as Error;
  assert(named instanceof SyntaxError, String(named));
  assertEquals(
    named.message,
    "Cannot read checkpoint st/checkpoint.msgpack: not a Tagstream checkpoint (format field missing)",
  );
});

Deno.test("namedCheckpointError: an error that only reads like the learner's is left as it is", () => {
  const delta = new TypeError("Not a Tagstream checkpoint delta (format field missing)");
  const d = namedCheckpointError(delta, "st");
  assert(d === delta, `renamed: ${(d as Error).message}`);
  const kinds = new TypeError("Checkpoint holds a 'leml' model but 'br' was asked for");
  const k = namedCheckpointError(kinds, "st");
  assert(k === kinds, `renamed: ${(k as Error).message}`);
});

Deno.test("fromCheckpoint: a map with another format says which, not that the field is missing", () => {
  const e = thrownBy(br, { format: "tagstream-checkpoint-delta" });
  assert(e instanceof TypeError, String(e));
  assertEquals(
    e.message,
    `Not a Tagstream checkpoint (format is "tagstream-checkpoint-delta", not "tagstream-checkpoint")`,
  );
});
