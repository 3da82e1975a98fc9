// examplesToBatch packs each example's x.indices and x.values at the same offsets: an example
// with fewer values than indices left zeros in its row, one with more wrote them over the next
// row's (and, as the last row, failed with a bare "offset is out of bounds"); the model then
// learned the shifted values, since the packed batch is in step again. Refused, naming the row.
// And a Minibatcher whose batch cannot be built (such a row, an example without x) errors its
// batch stream after the batches before it: it waited for ever (the write failed, the reader
// was never told).
import { examplesToBatch, Minibatcher } from "../../src/data/batcher.ts";
import type { Example } from "../../src/data/types.ts";
import { assertEquals, assertThrowsMsg } from "./helpers.ts";

const row = (indices: number[], values: number[], labels: number[], id?: string): Example => ({
  x: { indices: Int32Array.from(indices), values: Float32Array.from(values) },
  labels: Int32Array.from(labels),
  ...(id === undefined ? {} : { id }),
});

Deno.test("examplesToBatch: a row with fewer values than indices is refused", async () => {
  const rows = [row([0, 2], [1], [0]), row([1], [7], [1])];
  await assertThrowsMsg(
    () => examplesToBatch(rows, 3, 2),
    RangeError,
    "examplesToBatch: row 0: x has 2 indices but 1 values",
  );
});

Deno.test("examplesToBatch: a row with more values than indices is refused, with its id", async () => {
  for (const at of [0, 1]) {
    const rows = [row([1], [5], [1], "a"), row([1], [7], [1], "b")];
    rows[at] = row([1], [5, 6], [1], "e9");
    await assertThrowsMsg(
      () => examplesToBatch(rows, 3, 2),
      RangeError,
      `examplesToBatch: row ${at} (event e9): x has 1 indices but 2 values`,
    );
  }
});

Deno.test("examplesToBatch: rows in step are packed as they are", () => {
  const b = examplesToBatch([row([0, 2], [1, 2], [0]), row([1], [7], [1])], 3, 2);
  assertEquals([...b.x.indptr], [0, 2, 3]);
  assertEquals([...b.x.values], [1, 2, 7]);
});

Deno.test("Minibatcher: a batch that cannot be built errors the stream after the good ones", async () => {
  const [a, b] = [row([0], [1], [0]), row([1], [2], [1])];
  const outOfStep = row([0, 1], [1], [1]);
  const noX = { labels: Int32Array.of(0) } as unknown as Example;
  // rows, batch size, the batches delivered first, the error
  const cases: [Example[], number, number[], new (...a: never[]) => Error, string][] = [
    [[a, b, noX, a], 2, [2], TypeError, ""], // an example without x
    [[a, b, a, outOfStep], 2, [2], RangeError, "row 1: x has 2 indices but 1 values"],
    [[a, b, outOfStep], 4, [], RangeError, "row 2: x has 2 indices but 1 values"], // at close
  ];
  for (const [rows, batchSize, before, cls, message] of cases) {
    const batches = ReadableStream.from(rows).pipeThrough(new Minibatcher({ batchSize }));
    const sizes: number[] = [];
    await assertThrowsMsg(
      async () => {
        for await (const batch of batches) sizes.push(batch.x.numRows);
      },
      cls,
      message,
    );
    assertEquals(sizes, before, `batchSize ${batchSize}`);
  }
});
