import { makeBatch, plantedData } from "../estimator_checks.ts";
import { SleecStream } from "../../../src/models/sleec/stream.ts";
import { trainSleec } from "../../../src/models/sleec/batch.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assert, messageOf } from "../../helpers.ts";

const data = plantedData(400, 8, 21);
const held = plantedData(150, 8, 22);
const small = { rank: 12, svpNeighbours: 30, k: 10 };

function feed(m: SleecStream, rows = data.rows, batch = 25): void {
  for (let s = 0; s < rows.length; s += batch) {
    m.learnMany(makeBatch(rows.slice(s, s + batch), data.numFeatures, data.numLabels));
  }
}

function p1(m: { predictTopK: SleecStream["predictTopK"] }, rows = held.rows): number {
  let hits = 0;
  for (const r of rows) if (r.labels.includes(m.predictTopK(r.x, 1).labels[0])) hits++;
  return hits / rows.length;
}

Deno.test("sleec stream: memory is bounded by the reservoirs", () => {
  const m = new SleecStream({ ...small, reservoirSize: 40, numClusters: 3 });
  feed(m);
  assert(m.rowsSeen === 400, `rows ${m.rowsSeen}`);
  assert(m.storedRows <= 120, `stored ${m.storedRows} rows`);
  const state = m.toState();
  const clusters = state.scalars["l0.clusters"];
  assert(clusters >= 2 && clusters <= 3, `${clusters} clusters`);
  let seen = 0;
  for (let c = 0; c < clusters; c++) {
    assert(state.scalars[`l0.c${c}.size`] <= 40, `cluster ${c} holds more than 40 rows`);
    seen += state.scalars[`l0.c${c}.seen`];
  }
  assert(seen === 400, `every row was routed once (${seen})`);
  assert(p1(m) >= 0.7, `held-out P@1 with small reservoirs ${p1(m)}`);
});

Deno.test("sleec stream: refreshes follow the doubling schedule and can be requested", () => {
  const m = new SleecStream({ ...small, firstRefresh: 10, refreshEvery: 40 });
  feed(m, data.rows.slice(0, 200), 7);
  // after rows 10, 20, 40, 80, 120, 160, 200
  const scheduled = m.refreshes;
  assert(scheduled === 7, `${scheduled} refreshes`);
  m.refresh();
  assert(m.refreshes === scheduled + 1, "a requested refresh counts");
  const none = new SleecStream({ ...small, firstRefresh: 1000 });
  feed(none, data.rows.slice(0, 50));
  assert(none.refreshes === 0, "no refresh before firstRefresh");
});

Deno.test("sleec stream: after a final refresh it is as accurate as the batch trainer", () => {
  const m = new SleecStream({ ...small, firstRefresh: 32, refreshEvery: 128 });
  feed(m);
  m.refresh();
  const batch = makeBatch(data.rows, data.numFeatures, data.numLabels);
  const b = trainSleec(batch.x, batch.y, small);
  assert(p1(m) >= p1(b) - 0.05, `stream ${p1(m)} vs batch ${p1(b)}`);
});

/** ½ Σ_j (⟨Vᵀx, z_j⟩ − cos(y, y_j))² over the first `stored` rows sharing a label with y. */
function rowLoss(
  state: ModelState,
  x: { indices: Int32Array; values: Float32Array },
  y: Int32Array,
  stored = 100,
): number {
  const r = state.config.rank as number;
  const v = state.tensors["l0.c0.V"] as Float32Array;
  const z = state.tensors["l0.c0.z"] as Float64Array;
  const ptr = state.tensors["l0.c0.labelPtr"] as Int32Array;
  const labels = state.tensors["l0.c0.labels"] as Int32Array;
  let norm = 0;
  for (const w of x.values) norm += w * w;
  const u = new Float64Array(r);
  x.indices.forEach((j, e) => {
    for (let a = 0; a < r; a++) u[a] += (x.values[e] / Math.sqrt(norm)) * v[j * r + a];
  });
  let loss = 0;
  for (let s = 0; s < stored; s++) {
    const ls = labels.subarray(ptr[s], ptr[s + 1]);
    const c = ls.filter((l) => y.includes(l)).length;
    if (c === 0) continue;
    const g = c / Math.sqrt(ls.length * y.length);
    let m = 0;
    for (let a = 0; a < r; a++) m += u[a] * z[s * r + a];
    loss += 0.5 * (m - g) ** 2;
  }
  return loss;
}

Deno.test("sleec stream: between refreshes Adam moves V to fit the new rows' neighbourhoods", () => {
  // every stored row sharing a label is a neighbour (n̄ ≥ stored rows), so the Adam objective
  // is exactly rowLoss over the 100 rows of the first refresh (new rows are appended after them)
  const opts = {
    ...small,
    svpNeighbours: 200,
    firstRefresh: 100,
    refreshEvery: 100000,
    reservoirSize: 200,
  };
  const adam = new SleecStream({ ...opts, learningRate: 0.01 });
  const frozen = new SleecStream({ ...opts, learningRate: 0 });
  feed(adam, data.rows.slice(0, 100));
  feed(frozen, data.rows.slice(0, 100));
  assert(adam.refreshes === 1, "one refresh so far");
  const next = data.rows.slice(100, 160);
  const before = next.map((r) => rowLoss(adam.toState(), r.x, r.labels));
  const vFrozen = (frozen.toState().tensors["l0.c0.V"] as Float32Array).slice();
  feed(adam, next, 1);
  feed(frozen, next, 1);
  const after = next.map((r) => rowLoss(adam.toState(), r.x, r.labels));
  const sum = (a: number[]) => a.reduce((s, v) => s + v, 0);
  assert(sum(after) < 0.9 * sum(before), `loss on the new rows ${sum(before)} → ${sum(after)}`);
  const vNow = frozen.toState().tensors["l0.c0.V"] as Float32Array;
  assert(vNow.every((w, i) => w === vFrozen[i]), "learningRate 0 changed V between refreshes");
});

Deno.test("sleec stream: bad rows are rejected with the row named, nothing half-learned", () => {
  const m = new SleecStream(small);
  const x = { indices: Int32Array.of(3, 1), values: Float32Array.of(1, 1) };
  assert(
    messageOf(() => m.learnOne(x, [0])).startsWith(
      "sleec.learnOne: x: feature indices are not strictly increasing (1 after 3)",
    ),
    "order",
  );
  const ok = { indices: Int32Array.of(1, 3), values: Float32Array.of(1, 1) };
  assert(messageOf(() => m.learnOne(ok, [-1])).includes("label -1"), "label");
  assert(m.rowsSeen === 0 && m.numFeatures === 0, "a rejected row changed the model");
  assert(messageOf(() => new SleecStream({ rank: 0 })).includes("option rank"), "config");
});
