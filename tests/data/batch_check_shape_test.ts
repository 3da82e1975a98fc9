// learnMany(null) or learnMany({}) failed with the engine's "Cannot destructure property 'x' of
// 'batch'" (or "Cannot read properties of undefined (reading 'numRows')"), naming neither the
// method nor what a batch is. checkBatch, which every model's learnMany runs first, names both.
import { checkBatch } from "../../src/data/batch_check.ts";
import { factories } from "../../mod.ts";
import type { Batch } from "../../src/data/types.ts";
import { assert, assertEquals } from "../helpers.ts";

function refusal(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    assert(e instanceof Error, String(e));
    return e;
  }
  throw new Error("no error");
}

Deno.test("checkBatch: a batch that is not an object holding x and y is a TypeError naming where", () => {
  const x = { numRows: 0, numCols: 0, indptr: Int32Array.of(0), indices: new Int32Array(0) };
  for (
    const [batch, got] of [
      [null, "null"],
      [undefined, "undefined"],
      [3, "3"],
      [{}, "an object without x or y"],
      [{ x: { ...x, values: new Float32Array(0) } }, "an object without x or y"],
    ] as const
  ) {
    const e = refusal(() => checkBatch(batch as unknown as Batch, "toy.learnMany"));
    assert(e instanceof TypeError, e.message);
    assertEquals(
      e.message,
      `toy.learnMany: the batch must be an object { x, y } of two CSR matrices, got ${got}`,
    );
  }
});

Deno.test("learnMany(null) names the model's method in every model", () => {
  for (const [name, factory] of Object.entries(factories)) {
    const model = factory.create({});
    const e = refusal(() => model.learnMany(null as unknown as Batch));
    assert(e instanceof TypeError, `${name}: ${e.message}`);
    assert(e.message.includes("the batch must be an object { x, y }"), `${name}: ${e.message}`);
    assert(e.message.includes("learnMany"), `${name}: ${e.message}`);
  }
});
