import { OvaEstimator } from "../../../src/models/ova/mod.ts";
import type { Example, SparseVector } from "../../../src/data/types.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { learn, syntheticRows as rows } from "./helpers.ts";
import { assert, assertEquals } from "../../helpers.ts";

const bytesOf = (st: ModelState) => Object.values(st.tensors).reduce((n, x) => n + x.byteLength, 0);

/** Probe rows: held-out rows, plus a row with no known feature (bias candidates only). */
function probes(numFeatures: number, numLabels: number): SparseVector[] {
  return rows(60, numFeatures, numLabels, 99).map((e) => e.x).concat({
    indices: Int32Array.of(numFeatures + 5),
    values: Float32Array.of(1),
  });
}

/** Asserts that the replica answers like the learner on every probe row (bit for bit). */
function assertSame(r: OvaEstimator, m: OvaEstimator, xs: SparseVector[], where: string): void {
  assertEquals([r.numFeatures, r.numLabels], [m.numFeatures, m.numLabels], `${where}: sizes`);
  xs.forEach((x, i) => {
    const a = m.predictScores(x), b = r.predictScores(x);
    assert(a.join() === b.join(), `${where}: scores of probe ${i} differ`);
    const ta = m.predictTopK(x, 10), tb = r.predictTopK(x, 10);
    assertEquals([...tb.labels], [...ta.labels], `${where}: top 10 labels of probe ${i}`);
    assertEquals([...tb.scores], [...ta.scores], `${where}: top 10 scores of probe ${i}`);
  });
}

/**
 * Learns `data` in steps of `step` rows; after each step the replica takes a delta (or, when the
 * learner asks for one, a full replica state). Returns the counts.
 */
function follow(
  m: OvaEstimator,
  data: Example[],
  steps: number[],
  xs: SparseVector[],
): { deltas: number; fulls: number; blocks: number; biases: number; r: OvaEstimator } {
  m.beginReplicaDeltas();
  // a structured clone, as the learner thread sends it
  let r = OvaEstimator.restore(structuredClone(m.toReplicaState()));
  let deltas = 0, fulls = 0, blocks = 0, biases = 0, s = 0;
  for (const n of steps) {
    learn(m, data.slice(s, s + n), 8);
    s += n;
    const d = m.toReplicaDelta();
    if (d === undefined) {
      m.beginReplicaDeltas();
      r = OvaEstimator.restore(structuredClone(m.toReplicaState()));
      fulls++;
    } else {
      assertEquals(d.scalars.delta, 1);
      blocks += d.tensors.blockFeatures.length;
      if (d.tensors.biasLabels.length > 0) biases++;
      r.applyReplicaDelta(structuredClone(d));
      deltas++;
    }
    assertSame(r, m, xs, `after ${s} rows`);
  }
  return { deltas, fulls, blocks, biases, r };
}

Deno.test("ova replica deltas: a replica kept up to date by deltas predicts bit-identically, with new labels and features and evictions", () => {
  const D = 3000, L = 600;
  const data = rows(2400, D, L, 1);
  const xs = probes(D, L);
  const m = new OvaEstimator({ seed: 2, maxLabelsPerFeature: 12 });
  learn(m, data.slice(0, 400));
  const [d0, l0] = [m.numFeatures, m.numLabels];
  // small steps, and one long one (the log fills up and is deduplicated on the way)
  const steps = [...Array(40).fill(16), 900, ...Array(20).fill(8), 16, 16];
  const { deltas, fulls, blocks, biases, r } = follow(m, data.slice(400), steps, xs);
  assert(m.numLabels > l0 && m.numFeatures > d0, `no new labels/features: ${l0} -> ${m.numLabels}`);
  assert(m.stats.evictions > 0 && blocks > 0, `no evicted blocks sent (${m.stats.evictions})`);
  assert(biases > 0, "no bias ever changed");
  assertEquals(m.stats.prunes, 0);
  assert(deltas >= steps.length - 2, `${deltas} deltas, ${fulls} full states`);
  // the replica writes the same model file
  assertEquals(r.toModelFile({ quantize: "f32" }), m.toModelFile({ quantize: "f32" }));
});

Deno.test("ova replica deltas: a global prune asks for a full state, and deltas go on after it", () => {
  const D = 2000, L = 300;
  const data = rows(2000, D, L, 3);
  const xs = probes(D, L);
  const m = new OvaEstimator({ seed: 4, maxWeights: 9000, loss: "squared-hinge" });
  m.replicaDeltaMaxFraction = 1; // this model is small: deltas every time but after a prune
  learn(m, data.slice(0, 200));
  const prunes0 = m.stats.prunes;
  const { deltas, fulls } = follow(m, data.slice(200), Array(110).fill(16), xs);
  const prunes = m.stats.prunes - prunes0;
  assert(prunes >= 2, `${prunes} prunes`);
  assertEquals(fulls, prunes, "one full state per prune");
  assertEquals(deltas, 110 - prunes);
});

Deno.test("ova replica deltas: a delta's size follows the changes, not the model", () => {
  const D = 5000, L = 2000;
  const m = new OvaEstimator({ seed: 5 });
  learn(m, rows(3000, D, L, 7));
  const full = bytesOf(m.toReplicaState());
  m.beginReplicaDeltas();
  const r = OvaEstimator.restore(m.toReplicaState());
  const few = rows(4, D, L, 8);
  learn(m, few);
  const small = m.toReplicaDelta()!;
  r.applyReplicaDelta(small);
  learn(m, rows(64, D, L, 9));
  const larger = m.toReplicaDelta()!;
  r.applyReplicaDelta(larger);
  const empty = m.toReplicaDelta()!;
  r.applyReplicaDelta(empty);
  const [s, g, e] = [bytesOf(small), bytesOf(larger), bytesOf(empty)];
  assert(s * 50 < full, `4 rows: ${s} B of a ${full} B replica`);
  assert(s * 4 < g && g * 4 < full, `4 rows ${s} B, 64 rows ${g} B, full ${full} B`);
  // at most one entry per weight the rows wrote: non-zeros × labels updated, per row
  const cfg = m.config;
  const bound = few.reduce(
    (n, x) => n + x.x.indices.length * (x.labels.length + cfg.hardNegatives + cfg.negatives),
    0,
  );
  const entries = small.tensors.entryFeatures.length + small.tensors.blockLabels.length;
  assert(entries > 0 && entries <= bound, `${entries} entries, at most ${bound}`);
  assertEquals(e, 4, "nothing learned: an empty delta (a block pointer of one entry)");
  assertSame(r, m, probes(D, L), "after the deltas");
  // a delta larger than a quarter of the replica state: a full state instead
  learn(m, rows(2000, D, L, 10));
  assertEquals(m.toReplicaDelta(), undefined);
  assertEquals(m.toReplicaDelta(), undefined, "logging stays off until the next begin");
});

Deno.test("ova replica deltas: logging changes nothing in learning", () => {
  const data = rows(800, 1500, 200, 11);
  const a = new OvaEstimator({ seed: 6, maxLabelsPerFeature: 6, replay: 32 });
  const b = new OvaEstimator({ seed: 6, maxLabelsPerFeature: 6, replay: 32 });
  a.beginReplicaDeltas();
  for (let s = 0; s < data.length; s += 100) {
    learn(a, data.slice(s, s + 100));
    learn(b, data.slice(s, s + 100));
    if (s % 200 === 0) a.toReplicaDelta();
  }
  const sa = a.toState(), sb = b.toState();
  for (const name of Object.keys(sb.tensors)) {
    assertEquals([...sa.tensors[name]], [...sb.tensors[name]], `tensor ${name}`);
  }
  assertEquals(sa.scalars, sb.scalars);
});

Deno.test("ova replica deltas: a delta that does not fit is refused and leaves the replica as it was", () => {
  const D = 800, L = 100;
  const data = rows(600, D, L, 12);
  const xs = probes(D, L);
  const m = new OvaEstimator({ seed: 7, maxLabelsPerFeature: 5 });
  m.replicaDeltaMaxFraction = 1;
  learn(m, data.slice(0, 300));
  assertEquals(m.toReplicaDelta(), undefined, "not begun");
  m.beginReplicaDeltas();
  const r = OvaEstimator.restore(m.toReplicaState());
  const before = xs.map((x) => r.predictScores(x).join());
  learn(m, data.slice(300, 400));
  const d = m.toReplicaDelta()!;
  assert(d.tensors.blockFeatures.length > 0, "no evicted block in the delta");
  const bad = (edit: (t: Record<string, unknown>, sc: Record<string, number>) => void) => {
    const c = structuredClone(d) as ModelState & { tensors: Record<string, unknown> };
    edit(c.tensors, c.scalars);
    return c as ModelState;
  };
  const cases: [ModelState, RegExp][] = [
    [bad((_t, sc) => sc.deltaBase++), /follows replica \d+, this replica is at/],
    [bad((_t, sc) => sc.numLabels = 3), /scalar numLabels must be an integer >= /],
    [bad((_t, sc) => delete sc.delta), /not a replica delta/],
    [
      bad((t) => t.entryLabels = Int32Array.from(d.tensors.entryLabels, () => L + 1000)),
      /entryLabels\[0\] = \d+ is out of range/,
    ],
    [
      bad((t) => t.entryWeights = new Float64Array(d.tensors.entryWeights.length)),
      /tensor entryWeights must be a Float32Array of length \d+, got Float64Array$/,
    ],
    [bad((t) => t.blockPtr = new Int32Array(1)), /tensor blockPtr must be a Int32Array of length/],
    [
      bad((t) => {
        const bl = (t.blockLabels as Int32Array).slice();
        const bp = t.blockPtr as Int32Array;
        const b = [...bp].findIndex((_, i) => i + 1 < bp.length && bp[i + 1] - bp[i] >= 2);
        bl[bp[b] + 1] = bl[bp[b]];
        t.blockLabels = bl;
      }),
      /twice in the block of feature/,
    ],
    [
      bad((t) => {
        const ef = (t.entryFeatures as Int32Array).slice();
        ef[0] = (t.blockFeatures as Int32Array)[0];
        t.entryFeatures = ef;
      }),
      /whose whole block the delta replaces/,
    ],
  ];
  for (const [c, re] of cases) {
    let msg = "";
    try {
      r.applyReplicaDelta(c);
    } catch (e) {
      // a tensor of another class is a TypeError (state_check's requireTensor), the rest RangeErrors
      assert(
        e instanceof (/got Float64Array/.test(re.source) ? TypeError : RangeError),
        `${re}: ${e}`,
      );
      msg = e.message;
    }
    assert(re.test(msg), `expected ${re}, got '${msg}'`);
    xs.forEach((x, i) =>
      assert(r.predictScores(x).join() === before[i], `${re}: probe ${i} moved`)
    );
  }
  let err: unknown;
  try {
    m.applyReplicaDelta(d); // the learner is no replica
  } catch (e) {
    err = e;
  }
  assert(err instanceof TypeError && /not a replica/.test(err.message), String(err));
  r.applyReplicaDelta(d);
  assertSame(r, m, xs, "the good delta");
  let again = "";
  try {
    r.applyReplicaDelta(d); // once only
  } catch (e) {
    again = (e as Error).message;
  }
  assert(/follows replica/.test(again), again);
});
