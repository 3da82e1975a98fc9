// Minibatching: examplesToBatch and the Minibatcher stream (sizes, growth, masks, no loss).
import { batchStream, examplesToBatch, Minibatcher } from "../../src/data/batcher.ts";
import { readExamples } from "../../src/data/readers.ts";
import { syntheticExamples } from "../../src/data/synthetic.ts";
import type { Batch, Example } from "../../src/data/types.ts";
import { assert, assertEquals, assertThrowsMsg } from "./helpers.ts";

function ex(idx: number[], labels: number[], extra: Partial<Example> = {}): Example {
  return {
    x: { indices: Int32Array.from(idx), values: Float32Array.from(idx, (j) => j + 0.5) },
    labels: Int32Array.from(labels),
    ...extra,
  };
}

async function collect(s: ReadableStream<Batch>): Promise<{ batches: Batch[]; error?: Error }> {
  const batches: Batch[] = [];
  try {
    for await (const b of s) batches.push(b);
  } catch (e) {
    return { batches, error: e as Error };
  }
  return { batches };
}

Deno.test("examplesToBatch builds CSR rows and an observed mask for explicit negatives", () => {
  const b = examplesToBatch(
    [
      ex([1, 4], [2]),
      ex([0], [1, 5], { negatives: Int32Array.of(0, 5, 6), id: "b" }),
    ],
    3,
    2,
  );
  assert(b.x.numCols === 5 && b.y.numCols === 7, `sizes ${b.x.numCols} ${b.y.numCols}`);
  assertEquals(b.x.indptr, [0, 2, 3]);
  assertEquals(b.x.values, [1.5, 4.5, 0.5]);
  assertEquals(b.y.indptr, [0, 1, 3]);
  assertEquals(b.y.indices, [2, 1, 5]);
  assert(b.observed !== undefined && b.fullyObserved !== undefined, "mask present");
  assertEquals(b.observed.indptr, [0, 0, 4], "fully observed row has an empty mask row");
  assertEquals(b.observed.indices, [0, 1, 5, 6], "labels ∪ negatives");
  assertEquals(b.fullyObserved, [1, 0]);
  assertEquals(b.ids, [undefined, "b"]);
  const plain = examplesToBatch([ex([0], [0])], 1, 1);
  assert(plain.observed === undefined && plain.ids === undefined, "no mask, no ids");
  const empty = examplesToBatch([], 4, 3);
  assert(empty.x.numRows === 0 && empty.x.numCols === 4 && empty.y.numCols === 3, "empty");
});

Deno.test("examplesToBatch copies: changing the batch leaves the examples alone", () => {
  const e = ex([1], [0]);
  const b = examplesToBatch([e], 2, 1);
  (b.x.values as Float32Array)[0] = 99;
  assert(e.x.values[0] === 1.5, "example unchanged");
});

Deno.test("Minibatcher: batch sizes 1, 3, 7, 500 keep every row in order; the last batch is short", async () => {
  const rows = [...syntheticExamples({ rows: 100, numFeatures: 50, numLabels: 8, seed: 5 })];
  for (const size of [1, 3, 7, 500]) {
    const { batches, error } = await collect(batchStream(rows, { batchSize: size }));
    assert(error === undefined, String(error));
    const counts = batches.map((b) => b.x.numRows);
    assert(counts.slice(0, -1).every((c) => c === size), `size ${size}: ${counts}`);
    assert(counts[counts.length - 1] === (100 % size || Math.min(size, 100)), `last ${counts}`);
    let r = 0;
    for (const b of batches) {
      for (let i = 0; i < b.x.numRows; i++, r++) {
        const a = b.x.indptr[i], z = b.x.indptr[i + 1];
        assertEquals(b.x.indices.subarray(a, z), rows[r].x.indices, `row ${r} indices`);
        assertEquals(b.x.values.subarray(a, z), rows[r].x.values, `row ${r} values`);
        assertEquals(b.y.indices.subarray(b.y.indptr[i], b.y.indptr[i + 1]), rows[r].labels);
      }
    }
    assert(r === 100, `size ${size}: ${r} rows`);
  }
  await assertThrowsMsg(
    () => new Minibatcher({ batchSize: 0 }),
    RangeError,
    "batchSize must be an integer in [1, 16777216], got 0",
  );
});

Deno.test("Minibatcher: spaces only grow, following the reader's vocabulary sizes", async () => {
  const lines = [
    { features: { a: 1 }, labels: ["x"] },
    { features: { b: 1 }, labels: ["y"] },
    { features: { a: 1 }, labels: ["x"] },
    { features: { c: 1, d: 1 }, labels: ["z", "w"] },
    { features: { a: 1 }, labels: ["x"] },
  ].map((o) => JSON.stringify(o)).join("\n");
  const r = await readExamples([lines], { format: "ndjson", featureKeys: "name" });
  const { batches } = await collect(
    r.stream.pipeThrough(new Minibatcher({ batchSize: 2, sizes: r })),
  );
  // the reader reads ahead within a chunk, so sizes may exceed the rows of a batch, never shrink
  const cols = batches.map((b) => [b.x.numCols, b.y.numCols]);
  for (let k = 1; k < cols.length; k++) {
    assert(cols[k][0] >= cols[k - 1][0] && cols[k][1] >= cols[k - 1][1], `monotone ${cols}`);
  }
  assertEquals(cols[cols.length - 1], [4, 4]);
  const fixed = await collect(
    batchStream([ex([0], [0]), ex([3], [1])], { batchSize: 1, numFeatures: 10, numLabels: 5 }),
  );
  assertEquals(fixed.batches.map((b) => [b.x.numCols, b.y.numCols]), [[10, 5], [10, 5]]);
});

Deno.test("Minibatcher: negatives give an observed mask per batch", async () => {
  const lines = [
    '{"features": {"0": 1}, "labels": ["a"], "negatives": ["b"]}',
    '{"features": {"1": 1}, "labels": ["b"]}',
  ].join("\n");
  const r = await readExamples([lines], { format: "ndjson" });
  const { batches } = await collect(r.stream.pipeThrough(new Minibatcher({ batchSize: 8 })));
  assert(batches.length === 1, "one batch");
  const b = batches[0];
  assertEquals(b.observed?.indices, [0, 1]);
  assertEquals(b.observed?.indptr, [0, 2, 2]);
  assertEquals(b.fullyObserved, [0, 1]);
});

Deno.test("Minibatcher: on an upstream error the rows received are delivered, then the error", async () => {
  const text = "5 4 2\n0 0:1\n1 1:1\n0 2:1\n1 9:1\n0 0:1\n";
  const r = await readExamples([text], { name: "e.txt" });
  const { batches, error } = await collect(r.stream.pipeThrough(new Minibatcher({ batchSize: 2 })));
  assertEquals(batches.map((b) => b.x.numRows), [2, 1], "2 full + the partial batch");
  assert(error instanceof RangeError, String(error));
  assert(
    error.message === "Cannot parse line 5 of e.txt: feature index 9 is out of range [0, 4)",
    error.message,
  );
  // errors from a generic source too
  async function* failing() {
    yield ex([0], [0]);
    yield ex([1], [0]);
    yield ex([2], [0]);
    throw new TypeError("source broke");
  }
  const g = await collect(batchStream(failing(), { batchSize: 2 }));
  assertEquals(g.batches.map((b) => b.x.numRows), [2, 1]);
  assert(g.error?.message === "source broke", String(g.error));
});

Deno.test("Minibatcher: maxDelayMs flushes a partial batch of a slow stream", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  async function* slow() {
    yield ex([0], [0]);
    yield ex([1], [1]);
    await gate;
    yield ex([2], [0]);
  }
  const reader = batchStream(slow(), { batchSize: 10, maxDelayMs: 20 }).getReader();
  const first = await reader.read();
  assert(!first.done && first.value.x.numRows === 2, "partial batch after the delay");
  release();
  const second = await reader.read();
  assert(!second.done && second.value.x.numRows === 1, "rest at the end");
  assert((await reader.read()).done, "closed");
});

Deno.test("Minibatcher: cancelling the batches cancels the source; counters", async () => {
  let cancelled = false;
  let i = 0;
  const src = new ReadableStream<Example>({
    pull(c) {
      c.enqueue(ex([i % 5], [i % 2]));
      i++;
    },
    cancel() {
      cancelled = true;
    },
  });
  const mb = new Minibatcher({ batchSize: 4 });
  const reader = src.pipeThrough(mb).getReader();
  for (let k = 0; k < 3; k++) assert((await reader.read()).value!.x.numRows === 4, "batch");
  await reader.cancel("enough");
  await new Promise((r) => setTimeout(r, 0));
  assert(cancelled, "source cancelled");
  assert(mb.batches === 3 && mb.rows === 12, `${mb.batches} ${mb.rows}`);
});
