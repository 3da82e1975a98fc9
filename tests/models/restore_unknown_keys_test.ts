/**
 * Restoring a state whose config holds a key that is not a setting: leml, sleec, br and ova
 * refused it, as `create` refuses an unknown option, while coembed, knn and popularity dropped
 * it and restored a model other than the one the config describes (a state of another model, or
 * a setting misspelt by hand, silently at its default). Every model now refuses it, naming the
 * model and the key. (No model's `toState` has ever written a key that is not a setting.)
 *
 * @module
 */
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { assert, assertBadInput } from "../helpers.ts";

Deno.test("every model refuses a state whose config has a key that is not a setting", async () => {
  for (const name of MODEL_NAMES) {
    const factory = await loadFactory(name);
    const m = factory.create({ seed: 1, numFeatures: 3, numLabels: 2 });
    m.learnMany({
      x: {
        numRows: 1,
        numCols: 3,
        indptr: Int32Array.of(0, 2),
        indices: Int32Array.of(0, 2),
        values: Float32Array.of(1, 1),
      },
      y: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) },
    });
    const state = m.toState();
    // what toState writes restores
    assert(factory.restore(state).numLabels === 2, name);
    for (const key of ["bogus", "rnak", "thresold"]) {
      let error: unknown;
      try {
        factory.restore({ ...state, config: { ...state.config, [key]: 1 } });
      } catch (e) {
        error = e;
      }
      assert(error instanceof TypeError, `${name}: ${key} gave ${error}`);
      assertBadInput([[
        () => {
          throw error;
        },
        new RegExp(`^${name}: unknown option "${key}" \\(known: `),
      ]]);
    }
  }
});

Deno.test("leml refuses a state whose trainer is neither stream nor batch", async () => {
  const factory = await loadFactory("leml");
  const state = factory.create({ seed: 1, rank: 2, numFeatures: 3, numLabels: 2 }).toState();
  assert(state.config.trainer === "stream");
  // a stream state restores as one, with or without its trainer
  const { trainer: _t, ...untagged } = state.config;
  assert(factory.restore({ ...state, config: untagged }).numFeatures === 3);
  for (const trainer of ["batch2", "local", 5]) {
    assertBadInput([[
      () => factory.restore({ ...state, config: { ...state.config, trainer } }),
      /^leml\.restore: config\.trainer is .+, not "stream"/,
    ]]);
  }
});
