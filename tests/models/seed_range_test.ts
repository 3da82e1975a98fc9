/**
 * Every model takes the same seeds: an integer in [0, 2³² − 1]. Every random draw keeps a seed's
 * low 32 bits, so -1 was silently the model of 4294967295 and 2³² the model of 0; only "ova"
 * refused them, the other models took them. Now every model refuses them where options enter
 * (create, the batch trainers, restore) with the same words.
 *
 * @module
 */
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { trainLemlBatch } from "../../src/models/leml/batch.ts";
import { trainBr } from "../../src/models/br/mod.ts";
import { trainSleec } from "../../src/models/sleec/batch.ts";
import { fitCoEmbed } from "../../src/models/coembed/fit.ts";
import { assert, assertBadInput } from "../helpers.ts";

const BAD_SEEDS = [-1, 2 ** 32, -(2 ** 40), 2 ** 52, 1.5];

Deno.test("every model refuses a seed outside [0, 2^32 - 1] at create, with the same words", async () => {
  for (const name of MODEL_NAMES) {
    const factory = await loadFactory(name);
    for (const seed of BAD_SEEDS) {
      const re = new RegExp(
        `^${name}: option seed must be an integer in \\[0, 4294967295\\], got "?${seed}"?$`,
      );
      assertBadInput([
        [() => factory.create({ seed, numFeatures: 3, numLabels: 2 }), re],
        // the command line's strings too
        [
          () =>
            factory.create({
              seed: String(seed) as unknown as number,
              numFeatures: 3,
              numLabels: 2,
            }),
          re,
        ],
      ]);
    }
    // the ends of the range are seeds
    for (const seed of [0, 2 ** 32 - 1]) {
      assert(factory.create({ seed, numFeatures: 3, numLabels: 2 }).numFeatures === 3, name);
    }
  }
});

Deno.test("every model refuses a state whose seed is outside [0, 2^32 - 1]", async () => {
  for (const name of MODEL_NAMES) {
    const factory = await loadFactory(name);
    const state = factory.create({ seed: 1, numFeatures: 3, numLabels: 2 }).toState();
    assertBadInput([[
      () => factory.restore({ ...state, config: { ...state.config, seed: -1 } }),
      new RegExp(`^${name}: option seed must be an integer in \\[0, 4294967295\\], got -1$`),
    ]]);
  }
});

Deno.test("the batch trainers refuse a seed outside [0, 2^32 - 1]", () => {
  const x = {
    numRows: 2,
    numCols: 2,
    indptr: Int32Array.of(0, 1, 2),
    indices: Int32Array.of(0, 1),
    values: Float32Array.of(1, 1),
  };
  const y = {
    numRows: 2,
    numCols: 2,
    indptr: Int32Array.of(0, 1, 2),
    indices: Int32Array.of(0, 1),
  };
  const range = "must be an integer in \\[0, 4294967295\\], got -1";
  assertBadInput([
    [() => trainLemlBatch(x, y, { rank: 1, seed: -1 }), new RegExp(`option seed ${range}`)],
    [() => trainBr(x, y, { seed: -1 }), new RegExp(`option seed ${range}`)],
    [() => trainSleec(x, y, { seed: -1 }), new RegExp(`^sleec: option seed ${range}$`)],
    [
      () => fitCoEmbed({ x, y }, { variant: "L", seed: -1 }, { epochs: 1 }),
      new RegExp(`^coembed: option seed ${range}$`),
    ],
  ]);
});
