/**
 * The shared replay reservoir: bounded, a uniform sample of the rows seen, exact copies (masks
 * included), restorable bit for bit; and `withReplay`, which joins a batch and replayed rows.
 */
import { RowReservoir, withReplay } from "../../src/data/reservoir.ts";
import type { Batch } from "../../src/data/types.ts";
import { assert } from "../helpers.ts";

/** Row r has the single feature r % 7 with value r and the label r % 3. */
function rowsBatch(first: number, n: number): Batch {
  const xp = Int32Array.from({ length: n + 1 }, (_, i) => i);
  return {
    x: {
      numRows: n,
      numCols: 7,
      indptr: xp,
      indices: Int32Array.from({ length: n }, (_, i) => (first + i) % 7),
      values: Float32Array.from({ length: n }, (_, i) => first + i),
    },
    y: {
      numRows: n,
      numCols: 3,
      indptr: xp,
      indices: Int32Array.from({ length: n }, (_, i) => (first + i) % 3),
    },
  };
}

/** rowsBatch with an observed mask on odd rows: row r also observes label (r + 1) % 3 + 3. */
function maskedBatch(first: number, n: number): Batch {
  const b = rowsBatch(first, n);
  const op = new Int32Array(n + 1), oi: number[] = [], full = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const r = first + i;
    if (r % 2 === 1) oi.push(((r + 1) % 3) + 3);
    else full[i] = 1;
    op[i + 1] = oi.length;
  }
  return {
    ...b,
    y: { ...b.y, numCols: 6 },
    observed: { numRows: n, numCols: 6, indptr: op, indices: Int32Array.from(oi) },
    fullyObserved: full,
  };
}

Deno.test("reservoir: bounded, uniform over the rows seen, exact copies", () => {
  const counts = new Float64Array(200);
  for (let seed = 0; seed < 300; seed++) {
    const r = new RowReservoir(20, seed);
    for (let b = 0; b < 200; b += 25) r.addRows(rowsBatch(b, 25));
    assert(r.size === 20 && r.seen === 200, `size ${r.size}, seen ${r.seen}`);
    const all = r.sample(50);
    assert(all.x.numRows === 20, `sampled ${all.x.numRows} rows of 20`);
    assert(all.observed === undefined, "fully observed rows came back with a mask");
    const seen = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const row = Math.round(all.x.values[i]);
      assert(
        all.x.indices[i] === row % 7 && all.y.indices[i] === row % 3,
        `row ${row} was not copied faithfully`,
      );
      assert(!seen.has(row), `row ${row} drawn twice`);
      seen.add(row);
      counts[row]++;
    }
  }
  // every row is kept with probability 20/200: 30 times in 300 runs on average
  const early = counts.slice(0, 100).reduce((a, b) => a + b, 0) / 100;
  const late = counts.slice(100).reduce((a, b) => a + b, 0) / 100;
  assert(
    Math.abs(early - 30) <= 4 && Math.abs(late - 30) <= 4,
    `kept ${early} early vs ${late} late rows per 300 runs (expected 30)`,
  );
});

Deno.test("reservoir: capacity 0 keeps nothing; bad capacities are refused", () => {
  const r = new RowReservoir(0, 1);
  r.addRows(rowsBatch(0, 10));
  assert(r.size === 0 && r.seen === 10 && r.sample(3).x.numRows === 0, "capacity 0 kept rows");
  for (const c of [-1, 1.5, NaN]) {
    let msg = "";
    try {
      new RowReservoir(c, 0);
    } catch (e) {
      msg = (e as Error).message;
    }
    assert(msg.includes("capacity"), `capacity ${c}: ${msg}`);
  }
});

Deno.test("reservoir: masked rows keep their mask; the input batch is not mutated", () => {
  const b = maskedBatch(0, 12);
  const before = JSON.stringify([...b.observed!.indices, ...b.fullyObserved!, ...b.x.values]);
  const r = new RowReservoir(12, 5);
  r.addRows(b);
  assert(
    JSON.stringify([...b.observed!.indices, ...b.fullyObserved!, ...b.x.values]) === before,
    "addRows mutated its batch",
  );
  const s = r.sample(12);
  assert(s.observed !== undefined && s.fullyObserved !== undefined, "masks were dropped");
  for (let i = 0; i < 12; i++) {
    const row = Math.round(s.x.values[i]);
    const mask = [...s.observed.indices.subarray(s.observed.indptr[i], s.observed.indptr[i + 1])];
    if (row % 2 === 1) {
      assert(s.fullyObserved[i] === 0, `row ${row} should be masked`);
      assert(mask.join() === String(((row + 1) % 3) + 3), `row ${row}: mask ${mask}`);
    } else {
      assert(s.fullyObserved[i] === 1 && mask.length === 0, `row ${row} should be full`);
    }
  }
  assert(s.y.numCols === 6, `label space ${s.y.numCols} should cover the masks`);
});

Deno.test("reservoir: restored from its state it continues identically", () => {
  for (const make of [rowsBatch, maskedBatch]) {
    const a = new RowReservoir(10, 3);
    a.addRows(make(0, 40));
    const s = a.toState();
    const b = RowReservoir.fromState(10, 3, s.scalars, s.tensors);
    a.addRows(make(40, 30));
    b.addRows(make(40, 30));
    const sa = a.sample(6), sb = b.sample(6);
    assert(sa.x.values.join() === sb.x.values.join(), `${sa.x.values} vs ${sb.x.values}`);
    assert(
      String(sa.observed?.indices) === String(sb.observed?.indices) &&
        String(sa.fullyObserved) === String(sb.fullyObserved),
      "masks differ after a restore",
    );
  }
  const s = new RowReservoir(10, 3);
  s.addRows(rowsBatch(0, 5));
  const st = s.toState();
  for (
    const [name, tensors] of [
      ["missing", { ...st.tensors, resYIndptr: undefined }],
      ["inconsistent", { ...st.tensors, resXValues: new Float32Array(1) }],
    ] as const
  ) {
    let msg = "";
    try {
      RowReservoir.fromState(10, 3, st.scalars, tensors, "Owner");
    } catch (e) {
      msg = (e as Error).message;
    }
    assert(msg.startsWith("Owner restore") && msg.includes(name), `unexpected: ${msg}`);
  }
  // a state without mask tensors (written before masks were kept) still restores
  const { resOIndptr: _p, resOIndices: _i, resFull: _f, ...old } = st.tensors;
  assert(RowReservoir.fromState(10, 3, st.scalars, old).size === 5, "old state refused");
});

Deno.test("reservoir: rows() hands out every kept row without disturbing the sampling", () => {
  const a = new RowReservoir(10, 4), b = new RowReservoir(10, 4);
  a.addRows(maskedBatch(0, 30));
  b.addRows(maskedBatch(0, 30));
  const all = a.rows();
  assert(all.x.numRows === 10 && all.y.numRows === 10, `${all.x.numRows} rows`);
  // exact copies of distinct offered rows (row r has value r, label r % 3, mask iff r is odd)
  const values = [...all.x.values];
  assert(new Set(values).size === 10, `repeated rows: ${values}`);
  for (let i = 0; i < 10; i++) {
    const r = all.x.values[i];
    assert(Number.isInteger(r) && r >= 0 && r < 30, `row value ${r}`);
    assert(all.x.indices[i] === r % 7 && all.y.indices[all.y.indptr[i]] === r % 3, `row ${r}`);
    const masked = all.fullyObserved![i] === 0;
    assert(masked === (r % 2 === 1), `row ${r}: mask flag ${masked}`);
  }
  // the slot order is the state's order
  assert(String(all.x.values) === String(a.toState().tensors.resXValues), "not in slot order");
  a.rows();
  assert(
    String(a.sample(5).x.values) === String(b.sample(5).x.values),
    "rows() changed the sampling",
  );
  assert(new RowReservoir(3, 0).rows().x.numRows === 0, "an empty reservoir has no rows");
});

Deno.test("withReplay: rows joined in order, masks merged, inputs untouched", () => {
  const plain = rowsBatch(0, 3), masked = maskedBatch(10, 2);
  assert(withReplay(plain, rowsBatch(0, 0)) === plain, "an empty replay should be a no-op");
  const j = withReplay(plain, masked);
  assert(j.x.numRows === 5 && j.x.values.join() === "0,1,2,10,11", `values ${j.x.values}`);
  assert(j.y.indices.join() === "0,1,2,1,2" && j.y.numCols === 6, `labels ${j.y.indices}`);
  assert(j.fullyObserved!.join() === "1,1,1,1,0", `full ${j.fullyObserved}`);
  assert(
    j.observed!.indptr.join() === "0,0,0,0,0,1" && j.observed!.indices.join() === "3",
    `mask ${j.observed!.indptr} / ${j.observed!.indices}`,
  );
  const k = withReplay(masked, plain);
  assert(k.fullyObserved!.join() === "1,0,1,1,1", `full ${k.fullyObserved}`);
  assert(masked.x.values.join() === "10,11" && plain.x.indptr.join() === "0,1,2,3", "mutated");
});

Deno.test("RowReservoir: memory grows with the rows kept, not with the capacity (2^31 - 1 rows)", () => {
  const huge = 2 ** 31 - 1;
  const before = Deno.memoryUsage().rss;
  const r = new RowReservoir(huge, 4), small = new RowReservoir(100, 4);
  for (const b of [rowsBatch(0, 30), maskedBatch(30, 20), rowsBatch(50, 40)]) {
    r.addRows(b);
    small.addRows(b);
  }
  // the old slot tables alone were 8 × 4 bytes per slot of capacity: 64 GB here
  assert(Deno.memoryUsage().rss - before < 256 * 2 ** 20, "memory grew with the capacity");
  assert(r.size === 90 && r.seen === 90, `size ${r.size}, seen ${r.seen}`);
  // below capacity every row is kept, in order, masks included: as a reservoir that is not huge
  const same = (a: RowReservoir, b: RowReservoir) => {
    const s = a.toState(), t = b.toState();
    for (const k of Object.keys(s.tensors)) {
      assert(String(s.tensors[k]) === String(t.tensors[k]), `tensor ${k} differs`);
    }
  };
  same(r, small);
  const s = r.toState();
  const back = RowReservoir.fromState(huge, 4, s.scalars, s.tensors);
  same(back, r);
  const all = back.rows();
  assert(all.fullyObserved!.filter((f) => f === 0).length === 10, "the masked rows survive");
});
