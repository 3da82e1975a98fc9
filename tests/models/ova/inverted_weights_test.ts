import { InvertedWeights } from "../../../src/models/ova/inverted_weights.ts";
import { mulberry32 } from "../../mulberry32.ts";
import { assert, assertEquals } from "../../helpers.ts";

/** A reference map (feature, label) → weight, filled alongside the tables. */
function fill(t: InvertedWeights, n: number, features: number, labels: number, seed: number) {
  const rand = mulberry32(seed);
  const ref = new Map<string, number>();
  t.ensureFeatures(features);
  for (let i = 0; i < n; i++) {
    const j = Math.floor(rand() * features), l = Math.floor(rand() ** 3 * labels);
    const s = t.findOrInsert(j, l);
    const w = t.weights[s] + (rand() - 0.5);
    t.weights[s] = w;
    t.sums[s] += 1;
    ref.set(`${j},${l}`, Math.fround(w));
  }
  return ref;
}

Deno.test("InvertedWeights finds every inserted weight through growth and pool compaction", () => {
  const t = new InvertedWeights(2, 16);
  const ref = fill(t, 20000, 300, 5000, 1);
  assertEquals(t.size, ref.size);
  for (const [k, w] of ref) {
    const [j, l] = k.split(",").map(Number);
    const s = t.find(j, l);
    assert(s >= 0 && t.weights[s] === w, `(${j}, ${l}): slot ${s}`);
  }
  assertEquals(t.find(0, 999999), -1);
  // no slot is reachable from two keys and every stored weight is counted once
  let seen = 0;
  t.forEachFeature((j, l, s) => {
    assertEquals(t.find(j, l), s);
    seen++;
  }, 300);
  assertEquals(seen, ref.size);
});

Deno.test("InvertedWeights compaction: moved, shrunk and emptied blocks all keep working indexes", () => {
  const t = new InvertedWeights(2, 16);
  const ref = fill(t, 6000, 200, 3000, 7);
  // shrink some blocks (their indexes must be rebuilt), keep the others as they are (their
  // indexes move), and empty one feature's block
  const check = () => {
    for (const [k, w] of ref) {
      const [j, l] = k.split(",").map(Number);
      const s = t.find(j, l);
      assert(s >= 0 && t.weights[s] === w, `(${j}, ${l}): slot ${s}`);
    }
    assertEquals(t.size, ref.size);
  };
  for (let j = 0; j < 200; j += 7) {
    const n = t.countOf(j);
    t.evictSmallest(j, 0.9);
    if (n > 0) {
      // the reference loses what the table lost
      for (const k of [...ref.keys()]) {
        const [jj, l] = k.split(",").map(Number);
        if (jj === j && t.find(j, l) < 0) ref.delete(k);
      }
    }
  }
  check();
  const layout = t.layout;
  assertEquals(t.prune(0), 0); // a compaction that drops nothing
  assert(t.layout > layout, "prune(0) compacted the pools");
  check();
  // inserts after the compaction probe the moved and the rebuilt indexes alike
  const more = fill(t, 6000, 200, 3000, 8);
  for (const [k, w] of more) ref.set(k, w);
  check();
});

Deno.test("InvertedWeights.accumulate sums value × weight per label over a row's features", () => {
  const t = new InvertedWeights();
  const ref = fill(t, 3000, 40, 50, 2);
  const indices = Int32Array.of(3, 7, 39, 45); // 45 is beyond the tables: skipped
  const values = Float64Array.of(0.5, -2, 1.25, 9);
  const acc = new Float64Array(50), stamp = new Int32Array(50), touched = new Int32Array(50);
  const n = t.accumulate(indices, values, 4, acc, stamp, 7, touched, 0);
  const want = new Map<number, number>();
  for (let p = 0; p < 3; p++) {
    for (let l = 0; l < 50; l++) {
      const w = ref.get(`${indices[p]},${l}`);
      if (w !== undefined) want.set(l, (want.get(l) ?? 0) + values[p] * w);
    }
  }
  assertEquals(n, want.size);
  for (let q = 0; q < n; q++) {
    const l = touched[q];
    assert(Math.abs(acc[l] - want.get(l)!) < 1e-9, `label ${l}: ${acc[l]} vs ${want.get(l)}`);
    assertEquals(stamp[l], 7);
  }
});

Deno.test("InvertedWeights.evictSmallest drops exactly the smallest magnitudes of one feature", () => {
  const t = new InvertedWeights();
  t.ensureFeatures(2);
  for (let l = 0; l < 40; l++) {
    t.weights[t.findOrInsert(0, l)] = (l % 2 ? -1 : 1) * (l + 1);
    t.weights[t.findOrInsert(1, l)] = 1;
  }
  assertEquals(t.evictSmallest(0, 0.25), 10);
  assertEquals(t.countOf(0), 30);
  for (let l = 0; l < 40; l++) assertEquals(t.find(0, l) >= 0, l >= 10, `label ${l}`);
  assertEquals(t.countOf(1), 40); // the other feature is untouched
  assertEquals(t.size, 70);
});

Deno.test("InvertedWeights.prune keeps weights at or above the threshold, and shrinks", () => {
  const t = new InvertedWeights();
  const ref = fill(t, 5000, 100, 200, 3);
  const before = t.bytes;
  const dropped = t.prune(0.4);
  let kept = 0;
  for (const [k, w] of ref) {
    const [j, l] = k.split(",").map(Number);
    const s = t.find(j, l);
    if (Math.abs(w) >= 0.4) {
      kept++;
      assert(s >= 0 && t.weights[s] === w, `kept (${j}, ${l})`);
    } else assertEquals(s, -1, `dropped (${j}, ${l})`);
  }
  assertEquals(t.size, kept);
  assertEquals(dropped, ref.size - kept);
  assert(t.bytes <= before, `${t.bytes} > ${before}`);
});

Deno.test("InvertedWeights.thresholdKeeping: the smallest threshold that keeps at most k, ties included", () => {
  const t = new InvertedWeights();
  const ref = fill(t, 5000, 100, 200, 5);
  // ties: a run of equal magnitudes, of both signs
  let i = 0;
  t.forEachFeature((_, __, s) => {
    if (i++ % 3 === 0) t.weights[s] = i % 2 ? 0.25 : -0.25;
  }, 100);
  const mags: number[] = [];
  t.forEachFeature((_, __, s) => mags.push(Math.abs(t.weights[s])), 100);
  mags.sort((a, b) => b - a);
  assertEquals(mags.length, ref.size);
  for (const keep of [0, 1, 17, 500, mags.indexOf(0.25), mags.lastIndexOf(0.25), mags.length - 1]) {
    const th = t.thresholdKeeping(keep);
    const kept = mags.filter((m) => m >= th).length;
    assert(kept <= keep, `keep ${keep}: threshold ${th} keeps ${kept}`);
    // the smallest such: the (keep + 1)-th largest magnitude itself keeps more
    assert(mags.filter((m) => m >= mags[keep]).length > keep, `keep ${keep}`);
    assert(th > mags[keep] && Math.fround(th) === th, `keep ${keep}: ${th} vs ${mags[keep]}`);
    assertEquals(kept, mags.filter((m) => m > mags[keep]).length, `keep ${keep}`);
  }
  assertEquals(t.thresholdKeeping(mags.length), 0);
  const before = t.size;
  t.prune(t.thresholdKeeping(500));
  assert(t.size <= 500 && t.size > 400, `${before} → ${t.size}`);
});

Deno.test("InvertedWeights.toCompact → fromCompact rebuilds every table slot for slot", () => {
  const t = new InvertedWeights();
  fill(t, 4000, 60, 3000, 4);
  const c = t.toCompact(true);
  const u = InvertedWeights.fromCompact(c.ptr, c.keys, c.weights, c.sums, c.logs);
  const d = u.toCompact(true);
  assertEquals([...d.keys], [...c.keys]);
  assertEquals([...d.weights], [...c.weights]);
  assertEquals([...d.sums!], [...c.sums!]);
  assertEquals([...d.ptr], [...c.ptr]);
  let same = 0;
  t.forEachFeature((j, l, s) => {
    if (u.weights[u.find(j, l)] === t.weights[s]) same++;
  }, 60);
  assertEquals(same, t.size);
  let threw = false;
  try {
    InvertedWeights.fromCompact(c.ptr, c.keys.subarray(1), c.weights, c.sums, c.logs);
  } catch (e) {
    threw = e instanceof RangeError;
  }
  assert(threw, "inconsistent arrays are refused");
});
