// A prune under the ova weight budget visits the features that own blocks, not the feature space:
// with maxWeights far below the features (1024 weights at 10⁶ features) the budget prunes after
// almost every row, and each prune scanned all 10⁶ features (14.4 ms a row; 1.2 without).
import { InvertedWeights } from "../../../src/models/ova/inverted_weights.ts";
import { mulberry32 } from "../../mulberry32.ts";
import { assert, assertEquals } from "../../helpers.ts";

Deno.test("InvertedWeights: thresholdKeeping and prune visit the blocks, not the feature space", () => {
  const t = new InvertedWeights();
  t.ensureFeatures(1 << 20);
  // 40 features spread over 2^20, 8 labels each, every magnitude distinct
  const features: number[] = [];
  for (let k = 0; k < 40; k++) {
    const j = k * 26_000 + 13;
    features.push(j);
    for (let l = 0; l < 8; l++) t.weights[t.findOrInsert(j, 1000 * l + k)] = (8 * k + l + 1) / 1024;
  }
  assertEquals(t.size, 320);
  const v0 = t.featureVisits;
  for (let r = 0; r < 5; r++) t.prune(t.thresholdKeeping(t.size - 10));
  const visits = t.featureVisits - v0;
  // a scan of the feature space is 2^20 visits a pass; the blocks are 40 features
  assert(visits <= 5 * 4 * 40, `5 prunes of 40 blocks visited ${visits} features`);
  // and the prunes did their work: the 50 smallest magnitudes went, nothing else
  assertEquals(t.size, 270);
  for (let k = 0; k < 40; k++) {
    for (let l = 0; l < 8; l++) {
      const s = t.find(features[k], 1000 * l + k), m = 8 * k + l + 1;
      assertEquals(s >= 0, m > 50, `feature ${features[k]} label ${1000 * l + k}`);
      if (s >= 0) assertEquals(t.weights[s], m / 1024);
    }
  }
});

Deno.test("InvertedWeights: blocks moved, reused and compacted across a sparse feature space all stay pruned and found", () => {
  // a small pool: blocks grow (move), freed blocks are reused, waste compactions run inside a
  // move, features lose every weight to a prune and come back; after each prune every weight
  // of the reference is found with its value, and nothing else is stored
  const t = new InvertedWeights(16, 64);
  const D = 1 << 18, rand = mulberry32(11);
  t.ensureFeatures(D);
  const hot = Array.from({ length: 300 }, () => Math.floor(rand() * D));
  const ref = new Map<string, number>();
  for (let round = 0; round < 12; round++) {
    // one feature grows alone first: its block leaves the smaller ones behind as waste, and a
    // move finds the pool full of it (a compaction inside the move)
    const alone = hot[round];
    for (let l = 0; l < 300; l++) {
      const w = Math.fround(rand() - 0.5);
      t.weights[t.findOrInsert(alone, 7 * l + round)] = w;
      ref.set(`${alone},${7 * l + round}`, w);
    }
    for (let i = 0; i < 3000; i++) {
      const j = hot[Math.floor(rand() ** 2 * hot.length)], l = Math.floor(rand() * 500);
      const s = t.findOrInsert(j, l);
      const w = Math.fround(t.weights[s] + rand() - 0.5);
      t.weights[s] = w;
      ref.set(`${j},${l}`, w);
    }
    const threshold = t.thresholdKeeping(Math.floor(t.size / 2));
    t.prune(threshold);
    for (const [k, w] of [...ref]) if (Math.abs(w) < threshold) ref.delete(k);
    assertEquals(t.size, ref.size, `round ${round}`);
    for (const [k, w] of ref) {
      const [j, l] = k.split(",").map(Number);
      const s = t.find(j, l);
      assert(s >= 0 && t.weights[s] === w, `round ${round}: (${j}, ${l}) at slot ${s}`);
    }
    let stored = 0;
    t.forEachFeature(() => stored++, D);
    assertEquals(stored, ref.size, `round ${round}`);
  }
});
