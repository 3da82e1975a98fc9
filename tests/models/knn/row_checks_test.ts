// The kNN store and its searches refuse malformed rows, naming the entry: a NaN value was stored
// as a NaN similarity that kept better rows out of later answers, and a repeated query feature
// counted twice (similarities above 1).
import { CosineIndex, KnnEstimator } from "../../../src/models/knn/mod.ts";
import { assert } from "../../helpers.ts";

function refused(run: () => unknown, pattern: RegExp, what: string): void {
  let err: unknown;
  try {
    run();
  } catch (e) {
    err = e;
  }
  assert(err instanceof RangeError && pattern.test(err.message), `${what}: ${err}`);
}

Deno.test("CosineIndex.add refuses a non-finite value or bad indices, and later answers stay right", () => {
  const idx = new CosineIndex();
  const one = (v: number) => ({ indices: Int32Array.of(0), values: Float32Array.of(v) });
  for (const v of [NaN, Infinity, -Infinity]) {
    refused(() => idx.add(one(v), Int32Array.of(0)), /CosineIndex\.add: x: non-finite/, `${v}`);
  }
  refused(
    () => idx.add({ indices: Int32Array.of(3, 1), values: Float32Array.of(1, 1) }, [0]),
    /CosineIndex\.add: x: feature indices are not strictly increasing/,
    "unsorted features",
  );
  refused(() => idx.add(one(1), [2, 2]), /CosineIndex\.add: labels/, "repeated label");
  refused(() => idx.add(one(1), [-1]), /CosineIndex\.add: labels/, "negative label");
  assert(idx.numRows === 0 && idx.nnz === 0, `stored ${idx.numRows} rows`);
  idx.add(one(1), Int32Array.of(1));
  idx.add({ indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) }, Int32Array.of(2));
  const nb = idx.neighbours(one(1), 1);
  assert(nb.rows.length === 1 && nb.rows[0] === 0 && nb.sims[0] === 1, `nearest ${nb.rows}`);
});

Deno.test("knn neighbours: a query with repeated, unsorted or non-finite entries is refused", () => {
  const m = new KnnEstimator({ k: 2 });
  m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
  m.learnOne({ indices: Int32Array.of(1), values: Float32Array.of(1) }, [1]);
  for (
    const [x, what] of [
      [{ indices: Int32Array.of(0, 0), values: Float32Array.of(1, 1) }, "repeated"],
      [{ indices: Int32Array.of(1, 0), values: Float32Array.of(1, 1) }, "unsorted"],
      [{ indices: Int32Array.of(0), values: Float32Array.of(NaN) }, "NaN"],
      [{ indices: Int32Array.of(0, 1), values: Float32Array.of(1) }, "short values"],
    ] as const
  ) {
    refused(() => m.neighbours(x), /^knn\.neighbours: x/, what);
    refused(() => new CosineIndex().neighbours(x, 1), /^CosineIndex\.neighbours: x/, what);
  }
  refused(
    () =>
      new CosineIndex().neighbours({ indices: Int32Array.of(0), values: Float32Array.of(1) }, -1),
    /CosineIndex\.neighbours: k/,
    "k = -1",
  );
  const nb = m.neighbours({ indices: Int32Array.of(0), values: Float32Array.of(2) });
  assert(nb.rows.length === 1 && nb.sims[0] === 1, `similarity ${nb.sims[0]}`);
});

Deno.test("CosineIndex.fromArrays refuses arrays that do not hold together, naming the part", () => {
  const good = new CosineIndex();
  good.add({ indices: Int32Array.of(0, 2), values: Float32Array.of(3, 4) }, [1]);
  good.add({ indices: Int32Array.of(1), values: Float32Array.of(1) }, [0, 2]);
  const a = good.toArrays();
  const back = CosineIndex.fromArrays(a);
  assert(back.numRows === 2 && back.nnz === 3, `restored ${back.numRows} rows`);
  const nanVal = a.rowVal.slice();
  nanVal[1] = NaN;
  const downPtr = Int32Array.of(0, 2, 1);
  const swapped = Int32Array.of(2, 0, 1);
  const badLabels = Int32Array.of(1, 2, 0);
  for (
    const [what, arrays, pattern] of [
      ["NaN value", { ...a, rowVal: nanVal }, /non-finite value/],
      ["decreasing row pointer", { ...a, rowPtr: downPtr }, /rows\.indptr decreases/],
      ["unsorted features", { ...a, rowIdx: swapped }, /not strictly increasing/],
      ["unsorted labels", { ...a, labelIdx: badLabels }, /stored row 1 of labels/],
    ] as const
  ) {
    refused(
      () => CosineIndex.fromArrays(arrays),
      new RegExp(`^CosineIndex\\.fromArrays: .*${pattern.source}`),
      what,
    );
  }
});

Deno.test("knn scores and top-k from neighbours refuse a row that is not stored", () => {
  const m = new KnnEstimator({ k: 2 });
  m.learnOne({ indices: Int32Array.of(0), values: Float32Array.of(1) }, [0]);
  m.learnOne({ indices: Int32Array.of(1), values: Float32Array.of(1) }, [1, 2]);
  for (const r of [7, 2, -1]) {
    const nb = { rows: Int32Array.of(r), sims: Float32Array.of(1) };
    const pattern = new RegExp(`^knn: neighbour 0 is row ${r}, not one of the 2 stored rows`);
    refused(() => m.topKFromNeighbours(nb, 1, 3), pattern, `top-k, row ${r}`);
    refused(() => m.scoresFromNeighbours(nb, 1), pattern, `scores, row ${r}`);
  }
  // the stored rows still vote
  const nb = { rows: Int32Array.of(1, 0), sims: Float32Array.of(1, 1) };
  const top = m.topKFromNeighbours(nb, 2, 3);
  assert(String(top.labels) === "0,1,2" && top.scores.every((s) => s === 0), `${top.labels}`);
});
