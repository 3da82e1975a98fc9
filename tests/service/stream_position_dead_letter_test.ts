/**
 * `StreamPosition.redis.deadLetter` (the rejected Redis entries waiting for their dead-letter
 * copy) is part of the declared position type, and a checkpoint carries it through a restore.
 */
import {
  type LearnerCheckpoint,
  StreamLearner,
  type StreamPosition,
} from "../../src/service/learner.ts";
import { decodeCheckpoint, encodeCheckpoint } from "../../src/service/checkpoint.ts";
import { factory } from "../../src/models/popularity/mod.ts";
import { assertEquals } from "./helpers.ts";

Deno.test("StreamPosition.redis declares deadLetter, and a checkpoint keeps it through a restore", () => {
  const waiting = [{ id: "5-0", line: "{broken", reason: "malformed JSON" }];
  const position: StreamPosition = {
    redis: { key: "ev", group: "g", lastId: "5-0", deadLetter: waiting },
  };
  const l = StreamLearner.create(factory);
  l.position = position;
  const r = StreamLearner.fromCheckpoint(
    factory,
    decodeCheckpoint(encodeCheckpoint(l.toCheckpoint())) as LearnerCheckpoint,
  );
  const kept: { id: string; line: string; reason: string }[] | undefined = r.position.redis
    ?.deadLetter;
  assertEquals(kept, waiting);
});
