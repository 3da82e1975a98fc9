/**
 * One check of a caller's sparse row (`checkRow` of src/models/query_check.ts) for every model's
 * `learnOne` and `predictTopK`/`predictScores`: learnOne had a twin (`checkSparseRow` of
 * src/models/learn_one.ts) that showed a value that is not a row by its type ("got number")
 * where a query showed the value ("got 5"). Now both show the value; learnOne still asks for the
 * typed arrays a row is stored in, a query reads any array of numbers, and both refuse an entry
 * out of order with the same words.
 */
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { checkRow } from "../../src/models/query_check.ts";
import { assert, assertEquals, refusalOf } from "../helpers.ts";

const x = { indices: Int32Array.of(1), values: Float32Array.of(1) };

Deno.test("learnOne and predict: a value that is not a row is shown the same way by both", async () => {
  for (const name of MODEL_NAMES) {
    const m = (await loadFactory(name)).create({ seed: 1, numFeatures: 4, numLabels: 3 });
    m.learnOne(x, [0]);
    for (const [bad, shown] of [[5, "5"], ["1:1", "1:1"], [undefined, "undefined"]] as const) {
      assertEquals(
        refusalOf(() => m.learnOne(bad as never, [0])),
        `TypeError: ${name}.learnOne: x must be a sparse row { indices, values }, got ${shown}`,
      );
      assertEquals(
        refusalOf(() => m.predictTopK(bad as never, 1)),
        `TypeError: ${name}.predictTopK: x must be a sparse row { indices, values }, got ${shown}`,
      );
    }
    const unsorted = { indices: Int32Array.of(2, 1), values: Float32Array.of(1, 1) };
    for (
      const [f, where] of [[() => m.learnOne(unsorted, [0]), "learnOne"], [
        () => m.predictScores(unsorted),
        "predictScores",
      ]] as const
    ) {
      assertEquals(
        refusalOf(f),
        `RangeError: ${name}.${where}: x: feature indices are not strictly increasing (1 after 2)`,
      );
    }
  }
});

Deno.test("checkRow: a query reads any array of numbers, a row to learn must be typed", () => {
  const plain = { indices: [0, 3], values: [1, 2] } as never;
  checkRow(plain, "demo.predictTopK"); // fine
  assertEquals(
    refusalOf(() => checkRow(plain, "demo.learnOne", "learn")),
    "TypeError: demo.learnOne: x.indices must be an Int32Array, got Array",
  );
  // a row to learn: its entries are its learnMany's (one read of the row)
  checkRow({ indices: Int32Array.of(3, 0), values: Float32Array.of(1, 1) }, "demo", "learn");
  assert(
    refusalOf(() => checkRow({ indices: Int32Array.of(3, 0), values: Float32Array.of(1, 1) }, "d"))
      .endsWith("d: x: feature indices are not strictly increasing (0 after 3)"),
  );
});
