/**
 * Every model family checks the state it restores from (a full state, a replica state, an ova
 * state or replica delta) before it takes any of it: a corrupted or hostile value the learner
 * never writes — a NaN or infinite weight, a negative second moment, a fractional or negative
 * count, a counter that goes backwards, a generator state past 32 bits, sizes past the limits,
 * a replay row with a feature or label past the model's, unsorted or NaN — is a RangeError (a
 * TypeError for a missing scalar) whose message names the field, and a model a delta is refused
 * by is left exactly as it was (it still predicts as before).
 *
 * @module
 */
import type { Estimator, ModelState } from "../../src/models/estimator.ts";
import { OvaEstimator } from "../../src/models/ova/mod.ts";
import { LemlStream } from "../../src/models/leml/stream.ts";
import { LemlBatch } from "../../src/models/leml/batch_estimator.ts";
import { BrEstimator } from "../../src/models/br/estimator.ts";
import { PopularityEstimator } from "../../src/models/popularity/estimator.ts";
import { coembedFactory } from "../../src/models/coembed/estimator.ts";
import { SleecStream } from "../../src/models/sleec/stream.ts";
import { SleecReplica } from "../../src/models/sleec/replica.ts";
import { factory as sleecFactory } from "../../src/models/sleec/mod.ts";
import { makeBatch, stateDifference } from "./estimator_checks.ts";
import { syntheticRows } from "./ova/helpers.ts";
import { assert, assertEquals } from "../helpers.ts";

type Tensors = Record<string, Float32Array | Float64Array | Int32Array | Uint8Array>;
type Edit = (t: Tensors, sc: Record<string, number>, config: Record<string, unknown>) => void;

/** A deep copy of `s` with `edit` applied. */
function edited(s: ModelState, edit: Edit): ModelState {
  const c = structuredClone(s) as ModelState & { config: Record<string, unknown> };
  edit(c.tensors as Tensors, c.scalars, c.config);
  return c;
}

/**
 * Collects refusal checks: each case of {@linkcode Refusals.refusals} must throw `cls`
 * (RangeError unless given) with a message matching its pattern; `done` reports every case that
 * did not, at once (so each case shows on its own against code that takes it).
 */
class Refusals {
  #failed: string[] = [];

  refusals(
    what: string,
    f: (s: ModelState) => unknown,
    base: ModelState,
    cases: readonly (readonly [string, Edit, RegExp, (new (m?: string) => Error)?])[],
  ): void {
    for (const [name, edit, re, cls = RangeError] of cases) {
      let got = "accepted";
      try {
        f(edited(base, edit));
      } catch (e) {
        got = e instanceof cls ? (e as Error).message : `${(e as Error)?.constructor?.name}: ${e}`;
      }
      if (!re.test(got)) {
        this.#failed.push(`${what}, ${name}: expected ${cls.name} ${re}, got ${got}`);
      }
    }
    f(structuredClone(base)); // the unedited state restores
  }

  done(): void {
    assert(this.#failed.length === 0, `\n  ${this.#failed.join("\n  ")}`);
  }
}

/** Feeds `n` synthetic rows to `m` in minibatches of 16. */
function feed(m: Estimator, n: number, D: number, L: number, seed: number): void {
  const data = syntheticRows(n, D, L, seed);
  for (let s = 0; s < data.length; s += 16) {
    const part = data.slice(s, s + 16).map((e) => ({ x: e.x, labels: Int32Array.from(e.labels) }));
    m.learnMany(makeBatch(part, Math.max(m.numFeatures, D), Math.max(m.numLabels, L)));
  }
}

/** Probe rows and their scores, to show a model still predicts as before. */
function scoresOf(m: Estimator, D: number): string {
  const out: string[] = [];
  for (let j = 0; j + 2 < D; j += Math.max(1, Math.floor(D / 16))) {
    const x = { indices: Int32Array.of(j, j + 2), values: Float32Array.of(1, 0.5) };
    out.push(m.predictScores(x).join());
  }
  return out.join("|");
}

/** Reservoir edits every replay-carrying state takes: a row past the sizes, unsorted, NaN. */
function reservoirCases(
  D: number,
  L: number,
  where: string,
): [string, Edit, RegExp][] {
  const w = where.replace(".", "\\.");
  // the first reservoir row with at least two features / one label
  const rowWith = (ptr: Int32Array, min: number) => {
    for (let i = 0; i + 1 < ptr.length; i++) if (ptr[i + 1] - ptr[i] >= min) return i;
    throw new Error("no reservoir row to edit");
  };
  return [
    [
      "a replay row's feature past the features",
      (t) => {
        const p = t.resXIndptr as Int32Array, i = rowWith(p, 1);
        t.resXIndices[p[i + 1] - 1] = D + 3;
      },
      new RegExp(
        `^${w}: resXIndices/resXValues row \\d+: feature index ${
          D + 3
        } is out of range \\[0, ${D}\\)$`,
      ),
    ],
    ["a replay row's label past the labels", (t) => {
      const p = t.resYIndptr as Int32Array, i = rowWith(p, 1);
      t.resYIndices[p[i + 1] - 1] = L;
    }, new RegExp(`^${w}: resYIndices row \\d+: label index ${L} is out of range \\[0, ${L}\\)$`)],
    [
      "a replay row's NaN value",
      (t) => {
        t.resXValues[0] = NaN;
      },
      new RegExp(
        `^${w}: resXIndices/resXValues row 0: non-finite value at feature \\d+ \\(NaN\\)$`,
      ),
    ],
    [
      "a replay row's unsorted features",
      (t) => {
        const p = t.resXIndptr as Int32Array, i = rowWith(p, 2), a = p[i];
        const x = t.resXIndices, v = x[a];
        x[a] = x[a + 1];
        x[a + 1] = v;
      },
      new RegExp(
        `^${w}: resXIndices/resXValues row \\d+: feature indices are not strictly increasing`,
      ),
    ],
  ];
}

// ---------------------------------------------------------------- ova

function ovaModel() {
  const m = new OvaEstimator({ seed: 7, maxLabelsPerFeature: 5, replay: 16, maxFeatures: 1000 });
  m.replicaDeltaMaxFraction = 1;
  feed(m, 200, 800, 100, 3);
  return m;
}

Deno.test("ova.restore: non-finite weights and biases, bad sums, counts, window and generator states are refused naming the field", () => {
  const check = new Refusals();
  const m = ovaModel(), D = m.numFeatures, L = m.numLabels;
  const restore = (s: ModelState) => OvaEstimator.restore(s);
  check.refusals("full state", restore, m.toState(), [
    ["NaN weight", (t) => t.weights[12] = NaN, /^ova\.restore: weights\[12\] = NaN is not finite$/],
    [
      "infinite bias",
      (t) => t.bias[3] = -Infinity,
      /^ova\.restore: bias\[3\] = -Infinity is not finite$/,
    ],
    ["negative sum", (t) => t.sums[0] = -1, /^ova\.restore: sums\[0\] = -1 is not a sum >= 0$/],
    [
      "NaN bias sum",
      (t) => t.biasSums[1] = NaN,
      /^ova\.restore: biasSums\[1\] = NaN is not a sum >= 0$/,
    ],
    [
      "fractional count",
      (t) => t.counts[2] = 0.5,
      /^ova\.restore: counts\[2\] = 0\.5 is not a count$/,
    ],
    [
      "window label past the labels",
      (t) => t.window[0] = L + 1,
      new RegExp(`^ova\\.restore: window\\[0\\] = ${L + 1} is out of range \\[0, ${L}\\)$`),
    ],
    [
      "windowPos past the window",
      (_t, sc) => sc.windowPos = 1e9,
      /^ova\.restore: scalar windowPos 1000000000 is out of range$/,
    ],
    [
      "rng past 32 bits",
      (_t, sc) => sc.rng = 2 ** 32,
      /^ova\.restore: scalar rng 4294967296 is not a generator state$/,
    ],
    [
      "reservoirRng negative",
      (_t, sc) => sc.reservoirRng = -1,
      /^ova\.restore: scalar reservoirRng -1 is not a generator state$/,
    ],
    [
      "reservoirSeen below the rows kept",
      (_t, sc) => sc.reservoirSeen = 1,
      /^ova\.restore: scalar reservoirSeen 1 is not a count$/,
    ],
    ...reservoirCases(D, L, "ova.restore"),
  ]);
  check.refusals("replica state", restore, m.toReplicaState(), [
    ["NaN weight", (t) => t.weights[5] = NaN, /^ova\.restore: weights\[5\] = NaN is not finite$/],
    [
      "infinite bias",
      (t) => t.bias[0] = Infinity,
      /^ova\.restore: bias\[0\] = Infinity is not finite$/,
    ],
  ]);
  check.done();
});

for (const state of [true, false]) {
  const what = state ? "state" : "replica";
  Deno.test(`ova ${what} deltas: counters that go backwards${state ? " and replay rows past the model" : ""} are refused; the model predicts as before`, () => {
    const m = ovaModel();
    if (state) m.beginStateDeltas();
    else m.beginReplicaDeltas();
    const base = structuredClone(state ? m.toState() : m.toReplicaState());
    // each case on a fresh model (a delta taken by mistake would move the next one's base)
    const fresh = () => OvaEstimator.restore(structuredClone(base));
    const snapshot = (r: OvaEstimator) => structuredClone(state ? r.toState() : r.toReplicaState());
    feed(m, 60, 800, 100, 4);
    const delta = state ? m.toStateDelta(1)! : m.toReplicaDelta()!;
    const before = snapshot(fresh());
    const scores = scoresOf(fresh(), 800);
    const rows = before.scalars.rows, D = delta.scalars.numFeatures, L = delta.scalars.numLabels;
    const apply = (r: OvaEstimator, d: ModelState) =>
      state ? r.applyStateDelta(d) : r.applyReplicaDelta(d);
    const where = state ? "ova.applyStateDelta" : "ova.applyReplicaDelta";
    const cases: [string, Edit, RegExp][] = [
      [
        "rows going back",
        (_t, sc) => sc.rows = rows - 1,
        new RegExp(
          `^${where.replace(".", "\\.")}: scalar rows must be an integer >= ${rows}, got ${
            rows - 1
          }$`,
        ),
      ],
      [
        "updates going back",
        (_t, sc) => sc.updates = 0,
        /scalar updates must be an integer >= \d+, got 0$/,
      ],
    ];
    if (state) cases.push(...reservoirCases(D, L, where));
    const failed: string[] = [];
    for (const [name, edit, re] of cases) {
      const r = fresh();
      let got = "applied";
      try {
        apply(r, edited(delta, edit));
      } catch (e) {
        got = e instanceof RangeError ? e.message : String(e);
      }
      if (!re.test(got)) failed.push(`${name}: expected ${re}, got ${got}`);
      const diff = stateDifference(before, snapshot(r));
      if (diff !== undefined) failed.push(`${name}: the model changed: ${diff}`);
      if (scoresOf(r, 800) !== scores) failed.push(`${name}: the model predicts differently`);
    }
    assert(failed.length === 0, `\n  ${failed.join("\n  ")}`);
    const r = fresh();
    apply(r, delta); // the delta itself applies
    assertEquals(scoresOf(r, 800), scoresOf(m, 800));
  });
}

// ---------------------------------------------------------------- leml

Deno.test("leml.restore: non-finite factors, bad moments, step, generator state, sizes past the limits and replay rows are refused naming the field", () => {
  const check = new Refusals();
  const m = new LemlStream({
    rank: 4,
    optimizer: "adam",
    replay: 32,
    seed: 2,
    numFeatures: 1500,
    maxFeatures: 2000,
  });
  feed(m, 120, 800, 40, 5);
  const D = m.numFeatures, L = m.numLabels;
  const restore = (s: ModelState) => LemlStream.fromState(s);
  check.refusals("stream state", restore, m.toState(), [
    ["NaN W", (t) => t.W[7] = NaN, /^leml\.restore: W\[7\] = NaN is not finite$/],
    ["infinite H", (t) => t.H[0] = Infinity, /^leml\.restore: H\[0\] = Infinity is not finite$/],
    ["NaN bias", (t) => t.bias[1] = NaN, /^leml\.restore: bias\[1\] = NaN is not finite$/],
    ["NaN first moment", (t) => t.mW[0] = NaN, /^leml\.restore: mW\[0\] = NaN is not finite$/],
    [
      "negative second moment",
      (t) => t.vH[2] = -1,
      /^leml\.restore: vH\[2\] = -1 is not a sum >= 0$/,
    ],
    [
      "fractional step",
      (_t, sc) => sc.step = 2.5,
      /^leml\.restore: scalar step must be an integer >= 0, got 2\.5$/,
    ],
    [
      "negative step",
      (_t, sc) => sc.step = -3,
      /^leml\.restore: scalar step must be an integer >= 0, got -3$/,
    ],
    [
      "rngState past 32 bits",
      (_t, sc) => sc.rngState = 2 ** 32,
      /^leml\.restore: scalar rngState 4294967296 is not a generator state$/,
    ],
    [
      "replaySeen below the rows kept",
      (_t, sc) => sc.replaySeen = 3,
      /^leml\.restore: scalar replaySeen must be an integer >= 32, got 3$/,
    ],
    [
      "numFeatures past maxFeatures",
      (_t, _sc, c) => c.maxFeatures = 1000,
      /^leml\.restore: numFeatures 1500 is above maxFeatures 1000/,
    ],
    ...reservoirCases(D, L, "leml.restore"),
  ]);
  check.refusals("stream state", (s) => LemlStream.fromState(s), m.toState(), [
    [
      "missing step",
      (_t, sc) => delete (sc as Partial<typeof sc>).step,
      /^leml\.restore: scalar step must be a number, got undefined$/,
      TypeError,
    ],
  ]);
  const replica = m.toReplicaState();
  check.refusals("replica state", (s) => LemlStream.fromState(s, true), replica, [
    [
      "NaN calibration query",
      (t) => t.calibration = new Float32Array(8).fill(NaN),
      /^leml\.restore: calibration\[0\] = NaN is not finite$/,
    ],
  ]);
  check.done();
});

Deno.test("leml.restore (local mode): label pool entries past the labels and fractional counters are refused", () => {
  const check = new Refusals();
  const m = new LemlStream({ rank: 4, update: "local", seed: 3 });
  feed(m, 80, 300, 30, 6);
  const L = m.numLabels;
  check.refusals("local state", (s) => LemlStream.fromState(s), m.toState(), [
    [
      "pool label past the labels",
      (t) => t.labelPool[0] = L + 2,
      new RegExp(`^leml\\.restore: labelPool\\[0\\] = ${L + 2} is out of range \\[0, ${L}\\)$`),
    ],
    [
      "fractional pool position",
      (_t, sc) => sc.labelPoolPos = 1.5,
      /^leml\.restore: scalar labelPoolPos must be an integer >= 0, got 1\.5$/,
    ],
    ["NaN Gram", (t) => t.gram[0] = NaN, /^leml\.restore: gram\[0\] = NaN is not finite$/],
    [
      "negative refresh count",
      (_t, sc) => sc.refreshCount = -1,
      /^leml\.restore: scalar refreshCount must be an integer >= 0, got -1$/,
    ],
  ]);
  check.done();
});

Deno.test("leml batch restore: non-finite factors and stored rows that do not fit are refused naming the field", () => {
  const check = new Refusals();
  const m = new LemlBatch({ rank: 2, numFeatures: 30, numLabels: 6, seed: 1 });
  feed(m, 20, 30, 6, 7);
  const D = m.numFeatures;
  check.refusals("batch state", (s) => LemlBatch.fromState(s), m.toState(), [
    ["NaN W", (t) => t.W[3] = NaN, /^leml batch restore: W\[3\] = NaN is not finite$/],
    [
      "infinite bias",
      (t) => t.bias[0] = -Infinity,
      /^leml batch restore: bias\[0\] = -Infinity is not finite$/,
    ],
    [
      "NaN stored value",
      (t) => t.xValues[0] = NaN,
      /^leml batch restore \(stored rows\): row 0 of x: non-finite value at feature \d+ \(NaN\)$/,
    ],
    ["stored feature past the features", (t) => {
      const p = t.xIndptr as Int32Array;
      t.xIndices[p[1] - 1] = D + 4;
    }, new RegExp(`^leml batch restore: the stored rows need ${D + 5} features`)],
  ]);
  check.done();
});

// ---------------------------------------------------------------- br, popularity

Deno.test("br.restore: non-finite weights, biases and first moments, and negative second moments are refused", () => {
  const check = new Refusals();
  const m = new BrEstimator({ numFeatures: 20, numLabels: 5, optimizer: "adam", seed: 1 });
  feed(m, 40, 20, 5, 8);
  check.refusals("br state", (s) => BrEstimator.restore(s), m.toState(), [
    ["NaN weight", (t) => t.w[12] = NaN, /^br\.restore: w\[12\] = NaN is not finite$/],
    ["infinite bias", (t) => t.b[1] = Infinity, /^br\.restore: b\[1\] = Infinity is not finite$/],
    ["NaN first moment", (t) => t.mw[0] = NaN, /^br\.restore: mw\[0\] = NaN is not finite$/],
    [
      "negative second moment",
      (t) => t.vb[2] = -0.5,
      /^br\.restore: vb\[2\] = -0\.5 is not a sum >= 0$/,
    ],
  ]);
  check.refusals("br replica state", (s) => BrEstimator.restore(s), m.toReplicaState(), [
    ["NaN weight", (t) => t.w[0] = NaN, /^br\.restore: w\[0\] = NaN is not finite$/],
  ]);
  check.done();
});

Deno.test("popularity.restore: counts that are not whole numbers of rows, and a missing row count, are refused", () => {
  const check = new Refusals();
  const m = new PopularityEstimator();
  feed(m, 30, 40, 6, 9);
  const rows = m.toState().scalars.rows;
  check.refusals("popularity state", (s) => PopularityEstimator.fromState(s), m.toState(), [
    [
      "NaN count",
      (t) => t.counts[1] = NaN,
      /^popularity\.restore: counts\[1\] = NaN is not a count$/,
    ],
    [
      "fractional count",
      (t) => t.counts[0] = 2.5,
      /^popularity\.restore: counts\[0\] = 2\.5 is not a count$/,
    ],
    [
      "negative count",
      (t) => t.counts[2] = -1,
      /^popularity\.restore: counts\[2\] = -1 is not a count$/,
    ],
    [
      "count above the rows",
      (t) => t.counts[3] = rows + 1,
      new RegExp(
        `^popularity\\.restore: counts\\[3\\] = ${rows + 1} is above the rows seen \\(${rows}\\)$`,
      ),
    ],
    [
      "missing rows",
      (_t, sc) => delete (sc as Partial<typeof sc>).rows,
      /^popularity\.restore: scalar rows must be a number, got undefined$/,
      TypeError,
    ],
  ]);
  check.done();
});

// ---------------------------------------------------------------- coembed

Deno.test("CoEmbed restore: non-finite factors, bad moments and replay rows are refused; sizes past the limits before the tensors are read", () => {
  const check = new Refusals();
  const m = coembedFactory.create({ variant: "L", seed: 4, replay: 32, maxFeatures: 2000 });
  feed(m, 60, 200, 20, 10);
  const D = m.numFeatures, L = m.numLabels;
  check.refusals("learner state", (s) => coembedFactory.restore(s), m.toState(), [
    ["NaN P", (t) => t.P[4] = NaN, /^coembed\.restore: P\[4\] = NaN is not finite$/],
    [
      "infinite first moment",
      (t) => t.m_V[0] = Infinity,
      /^coembed\.restore: m_V\[0\] = Infinity is not finite$/,
    ],
    [
      "negative second moment",
      (t) => t.v_b[0] = -1,
      /^coembed\.restore: v_b\[0\] = -1 is not a sum >= 0$/,
    ],
    [
      "rng past 32 bits",
      (_t, sc) => sc.replayRng = 2 ** 33,
      /^coembed\.restore: scalar replayRng 8589934592 is not a generator state$/,
    ],
    ["numFeatures past maxFeatures", (_t, sc, c) => {
      sc.numFeatures = 1500;
      c.maxFeatures = 1000;
    }, /^coembed: numFeatures 1500 is above maxFeatures 1000/],
    ...reservoirCases(D, L, "coembed.restore"),
  ]);
  check.refusals(
    "replica state",
    (s) => coembedFactory.restore(s, { adopt: true }),
    m.toReplicaState!(),
    [
      ["NaN P", (t) => t.P[0] = NaN, /^CoEmbed replica: P\[0\] = NaN is not finite$/],
      [
        "infinite bias",
        (t) => t.bias[1] = Infinity,
        /^CoEmbed replica: bias\[1\] = Infinity is not finite$/,
      ],
      [
        "infinite lambdaX",
        (_t, _sc, c) => c.lambdaX = Infinity,
        /^CoEmbed replica: config\.lambdaX is Infinity, not a number >= 0$/,
      ],
    ],
  );
  check.done();
});

// ---------------------------------------------------------------- sleec

Deno.test("SLEEC restore: non-finite cluster arrays, stored rows past the sizes and bad counters are refused; a replica's sizes and floats too", () => {
  const check = new Refusals();
  const m = new SleecStream({
    rank: 2,
    firstRefresh: 8,
    numLearners: 1,
    seed: 5,
    reservoirSize: 50,
  });
  feed(m, 80, 30, 8, 11);
  const D = m.numFeatures, L = m.numLabels;
  check.refusals("stream state", (s) => SleecStream.fromState(s), m.toState(), [
    ["NaN V", (t) => t["l0.c0.V"][1] = NaN, /^sleec\.restore: l0\.c0\.V\[1\] = NaN is not finite$/],
    [
      "negative second moment",
      (t) => t["l0.c0.adamV"][0] = -1,
      /^sleec\.restore: l0\.c0\.adamV\[0\] = -1 is not a sum >= 0$/,
    ],
    [
      "NaN point",
      (t) => t["l0.c0.points"][0] = NaN,
      /^sleec\.restore: l0\.c0\.points\[0\] = NaN is not finite$/,
    ],
    [
      "stored feature past the features",
      (t) => {
        const p = t["l0.c0.xPtr"] as Int32Array;
        t["l0.c0.xIdx"][p[1] - 1] = D;
      },
      new RegExp(
        `^sleec\\.restore: l0\\.c0\\.xIdx row 0: feature index ${D} is out of range \\[0, ${D}\\)$`,
      ),
    ],
    [
      "stored label past the labels",
      (t) => t["l0.c0.labels"][0] = L + 7,
      new RegExp(
        `^sleec\\.restore: l0\\.c0\\.labels\\[0\\] = ${L + 7} is out of range \\[0, ${L}\\)$`,
      ),
    ],
    [
      "NaN stored value",
      (t) => t["l0.c0.xVal"][0] = NaN,
      /^sleec\.restore: l0\.c0\.xIdx row 0: non-finite value at feature \d+ \(NaN\)$/,
    ],
    [
      "seen below size",
      (_t, sc) => sc["l0.c0.seen"] = 0,
      /^sleec\.restore: scalar l0\.c0\.seen must be an integer >= \d+, got 0$/,
    ],
    [
      "fractional Adam step",
      (_t, sc) => sc["l0.c0.adamStep"] = 1.5,
      /^sleec\.restore: scalar l0\.c0\.adamStep must be an integer >= 0, got 1\.5$/,
    ],
  ]);
  const replica = (s: ModelState) => SleecReplica.fromState(s, false);
  check.refusals("replica state", replica, m.toReplicaState(), [
    ["NaN point", (t) => t.points[0] = NaN, /^SLEEC replica: points\[0\] = NaN is not finite$/],
    [
      "infinite centroid",
      (t) => t.centroids[0] = Infinity,
      /^SLEEC replica: centroids\[0\] = Infinity is not finite$/,
    ],
    [
      "fractional numLabels",
      (_t, sc) => sc.numLabels = L + 0.5,
      new RegExp(`^SLEEC replica: scalar numLabels must be an integer >= 0, got ${L + 0.5}$`),
    ],
  ]);
  // the factory restores a replica state through the same checks
  check.refusals("factory", (s) => sleecFactory.restore(s), m.toReplicaState(), [
    ["NaN V", (t) => t.V[0] = NaN, /^SLEEC replica: V\[0\] = NaN is not finite$/],
  ]);
  check.done();
});
