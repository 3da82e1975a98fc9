/**
 * A LEML state without its `scalars` (a damaged or hand-made checkpoint) is refused naming the
 * scalar, as every other model's restore does, for the streaming and the batch trainer's states
 * (it was the engine's "Cannot read properties of undefined").
 */
import { batchFactory, factory } from "../../../src/models/leml/mod.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assertEquals, refusalOf } from "../../helpers.ts";

const withoutScalars = (s: ModelState) => ({ ...s, scalars: undefined }) as unknown as ModelState;

Deno.test("leml.restore of a state without scalars names the missing scalar (stream and batch)", () => {
  const stream = factory.create({ seed: 1, rank: 2, numFeatures: 3, numLabels: 2 });
  assertEquals(
    refusalOf(() => factory.restore(withoutScalars(stream.toState()))),
    "TypeError: leml.restore: scalar numFeatures must be a number, got undefined",
  );
  const batch = batchFactory.create({ seed: 1, rank: 2, numFeatures: 3, numLabels: 2 });
  assertEquals(
    refusalOf(() => batchFactory.restore(withoutScalars(batch.toState()))),
    "TypeError: leml batch restore: scalar numFeatures must be a number, got undefined",
  );
});
