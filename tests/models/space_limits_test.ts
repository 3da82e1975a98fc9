import { factory as popularity } from "../../src/models/popularity/mod.ts";
import { factory as ova } from "../../src/models/ova/mod.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { DEFAULT_LIMITS, UNLIMITED } from "../../src/models/space_limits.ts";
import { assert, assertEquals } from "../helpers.ts";

const x = { indices: Int32Array.of(0), values: Float32Array.of(1) };
const past = DEFAULT_LIMITS.maxLabels + 5;

function messageOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "";
}

Deno.test("growth limits: a checkpoint written before the limits existed restores without them", () => {
  const m = popularity.create({});
  m.learnOne(x, [1]);
  const state = m.toState();
  assertEquals(state.config.maxLabels, DEFAULT_LIMITS.maxLabels);
  // today's model refuses a label past its default limit
  const refused = messageOf(() => popularity.restore(state).learnOne(x, [past]));
  assert(refused.includes(`maxLabels ${DEFAULT_LIMITS.maxLabels}`), refused);
  // a state without the keys (an older checkpoint) grows as it did before
  const { maxFeatures: _f, maxLabels: _l, ...old } = state.config;
  const legacy = popularity.restore({ ...state, config: old });
  legacy.learnOne(x, [past]);
  assertEquals(legacy.numLabels, past + 1);
  assertEquals(legacy.toState().config.maxLabels, UNLIMITED.maxLabels);
});

Deno.test("growth limits: the limits a model was created with survive toState and restore", () => {
  const m = ova.create({ seed: 1, maxLabels: 7, maxFeatures: 5 });
  m.learnOne(x, [6]);
  const r = ova.restore(m.toState());
  assertEquals([r.toState().config.maxFeatures, r.toState().config.maxLabels], [5, 7]);
  const message = messageOf(() => r.learnOne(x, [7]));
  assertEquals(
    message,
    "ova.learnOne: y: label index 7 is out of range [0, 7): above the model's maxLabels 7",
  );
  assert(
    messageOf(() => ova.create({ maxLabels: 0 })).includes("option maxLabels must be an integer"),
    "maxLabels 0 is refused",
  );
});

Deno.test("growth limits: the learning service creates its models without a limit of their own (its guard decides)", () => {
  const l = StreamLearner.create(popularity, { batchSize: 1 });
  const c = l.estimator.toState().config;
  assertEquals([c.maxFeatures, c.maxLabels], [UNLIMITED.maxFeatures, UNLIMITED.maxLabels]);
  // an explicit model option still applies
  const own = StreamLearner.create(popularity, { modelOptions: { maxLabels: 9 } });
  assertEquals(own.estimator.toState().config.maxLabels, 9);
});
