/**
 * The ova change log against the weight blocks' slot reuse: a block freed by a feature that grew
 * is reused by another feature's block of that size, and writes there must be logged even though
 * the same slots were logged for the first feature before.
 */
import { ChangeLog } from "../../../src/models/ova/change_log.ts";
import { InvertedWeights } from "../../../src/models/ova/inverted_weights.ts";
import { assert, assertEquals } from "../../helpers.ts";

/** Inserts label `l` into feature `j`, writes its weight and logs the write. */
function write(w: InvertedWeights, log: ChangeLog, j: number, l: number, v: number): number {
  const s = w.findOrInsert(j, l);
  w.weights[s] = v;
  assert(log.logEntry(j, l, s, w), "the log has room");
  return s;
}

Deno.test("ChangeLog logs writes into a reused block, which held another feature's logged slots", () => {
  const w = new InvertedWeights(4, 1 << 12);
  w.ensureFeatures(2);
  const log = new ChangeLog(8);
  // feature 0 fills its first block (2 entries), both logged; a third label moves it to a block
  // of 4 and frees the first
  const first = [write(w, log, 0, 1, 0.1), write(w, log, 0, 2, 0.2)];
  write(w, log, 0, 3, 0.3);
  assert(w.blockStart(0) !== first[0], "feature 0 moved");
  // feature 1's first block (2 entries) is feature 0's old one
  const reused = w.reuseSeq;
  const second = [write(w, log, 1, 5, 0.5), write(w, log, 1, 6, 0.6)];
  assertEquals(w.reuseSeq, reused + 1);
  assertEquals(second.toSorted(), first.toSorted());
  // every (feature, label) written is in the log, with its slot now
  const slots = log.compact(w);
  const got = [...log.features].map((j, i) => `${j}:${log.labels[i]}@${slots[i]}`).sort();
  const want = [[0, 1], [0, 2], [0, 3], [1, 5], [1, 6]].map(([j, l]) =>
    `${j}:${l}@${w.find(j, l)}`
  );
  assertEquals(got, want.sort());
});

Deno.test("InvertedWeights.reusedSince lists the latest reuses, and refuses older ones", () => {
  const w = new InvertedWeights(4, 1 << 16);
  w.ensureFeatures(3000);
  // each feature grows from 2 to 4 entries (freeing a 2-block), and the next feature's first
  // block reuses it
  for (let j = 0; j < 3000; j++) for (let l = 0; l < 3; l++) w.findOrInsert(j, l);
  assert(w.reuseSeq >= 2000, `${w.reuseSeq} reuses`);
  const seen: number[][] = [];
  assert(w.reusedSince(w.reuseSeq - 3, (first, length) => seen.push([first, length])));
  assertEquals(seen.length, 3);
  assert(seen.every(([f, n]) => f >= 0 && n === 2), JSON.stringify(seen));
  assertEquals(w.reusedSince(w.reuseSeq - 2000, () => {}), false);
  assertEquals(w.reusedSince(w.reuseSeq, () => assert(false, "nothing to list")), true);
});
