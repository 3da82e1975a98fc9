// Publishing with POP: the weight limit counts what POP holds. A sparse model (BR, OVA) is pruned
// as its nonzero weights, however wide its feature space (a hashed text model, 2¹⁸ × 483, was
// published unpruned because numFeatures × numLabels passed the limit); a low-rank model's
// product W·Hᵀ is dense, so it counts numFeatures × numLabels.
import { assert, assertEquals } from "../helpers.ts";
import { factory as ova } from "../../src/models/ova/mod.ts";
import { factory as leml } from "../../src/models/leml/mod.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import type { Estimator } from "../../src/models/estimator.ts";
import { examplesToBatch } from "../../src/data/batcher.ts";
import { publishWithPop } from "./helpers.ts";

// 240 events on 2 labels over features spread across a 2²⁰-column space
const D = 1 << 20, L = 60;
const events = Array.from({ length: 240 }, (_, i) => ({
  x: { indices: Int32Array.of(i % 7, 1000 + (i % 5) * 200_000), values: Float32Array.of(1, 1) },
  labels: Int32Array.of(i % 7 < 4 ? 0 : 1),
}));

const publish = (m: Estimator, maxWeights?: number) => publishWithPop(m, events, { maxWeights });

Deno.test("a sparse model wider than the limit (numFeatures × numLabels > 5e7) is POP-pruned by its nonzero weights", async () => {
  const m = ova.create({ seed: 1, numFeatures: D, numLabels: L });
  m.learnMany(examplesToBatch(events, D, L));
  assert(m.numFeatures * m.numLabels > 5e7, `${m.numFeatures} × ${m.numLabels}`);
  const out = await publish(m);
  assert(!/exceed/.test(out.note ?? ""), out.note);
  const file = decodeModelFile(out.bytes);
  assertEquals(file.kind, "linear-sparse");
  assert(/^(pruned|not pruned: the pruned weights)/.test(out.note ?? ""), out.note);
  // and a limit below its nonzero weights refuses it, saying so
  const nnz = decodeModelFile(m.toModelFile({})).tensors.weights.data.length;
  const small = await publish(m, nnz - 1);
  assertEquals(small.pruned, false);
  assertEquals(small.note, `not pruned: its ${nnz} weights exceed the POP limit of ${nnz - 1}`);
});

Deno.test("a low-rank model counts its dense product numFeatures × numLabels against the limit", async () => {
  const m = leml.create({ seed: 1, numFeatures: 100, numLabels: 4, rank: 2 });
  m.learnMany(
    examplesToBatch(
      events.map((e) => ({
        x: { indices: e.x.indices.subarray(0, 1), values: e.x.values.subarray(0, 1) },
        labels: e.labels,
      })),
      100,
      4,
    ),
  );
  const out = await publish(m, 399);
  assertEquals(out.pruned, false);
  assertEquals(
    out.note,
    "not pruned: its product W·Hᵀ, 100 × 4 weights, exceeds the POP limit of 399",
  );
  const fits = await publish(m, 400);
  assert(!/exceed/.test(fits.note ?? ""), fits.note);
});
