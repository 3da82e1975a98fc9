/**
 * CoEmbed's bounds hold on every way a model comes to be, not only at `create`:
 *
 * - a restored state's settings pass the rules `create` applies (each setting's declared range,
 *   the ColEmbed-NL size limit) and are refused with `create`'s message otherwise, on every
 *   restore path (the estimator's, the learner's, `restoreCore`, the factory's the service
 *   uses); a tensor of another shape than its settings give is refused naming the shape;
 * - a learning step whose factors stay within float32 but whose scores would not (a learningRate
 *   near 1e20) is refused like a diverged one, the model unchanged; a model that learned scores
 *   every finite row finitely; a state or replica state with such factors is refused; prediction
 *   never changes the model;
 * - the step counts are bounded so that one batch cannot take hours, accepting every value the
 *   repository uses.
 *
 * Every test here failed on the code before these bounds.
 */
import { CoEmbedEstimator } from "../../../src/models/coembed/estimator.ts";
import { CoEmbedLearner, restoreCore } from "../../../src/models/coembed/learner.ts";
import { COEMBED_SETTINGS } from "../../../src/models/coembed/settings.ts";
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { factory } from "../../../src/models/coembed/mod.ts";
import type { SparseVector } from "../../../src/data/types.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assert, assertEquals, messageOf } from "../../helpers.ts";
import { maskedCsr, rowsBatch, synthetic } from "./helpers.ts";

const s = synthetic(160, 8, 4, 3);
const m = maskedCsr(s, 0, 160, 0.7, 0.3, 5);

/** Rows [from, from + n) of `m` as queries. */
function queries(from: number, n: number, scale = 1): SparseVector[] {
  const out: SparseVector[] = [];
  for (let r = from; r < from + n; r++) {
    const a = m.x.indptr[r], b = m.x.indptr[r + 1];
    out.push({
      indices: m.x.indices.slice(a, b),
      values: m.x.values.slice(a, b).map((v) => v * scale),
    });
  }
  return out;
}

/** Ordinary rows, and the same rows scaled near float32's largest value (both signs). */
const probes = [...queries(100, 6), ...queries(100, 6, 3e38 / 4), ...queries(100, 6, -3e38 / 4)];

/** A state's tensors, scalars and config, for bit-for-bit comparison. */
function snapshot(st: ModelState): string {
  const t = Object.entries(st.tensors).sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) =>
      `${k}:${Array.from(v as ArrayLike<number>, (x) => Object.is(x, -0) ? "-0" : String(x))}`
    );
  return JSON.stringify([st.config, st.scalars, t]);
}

/** A learner that learned three batches with ordinary settings, NL with 16 directions. */
function trained(variant: "L" | "NL", extra: Record<string, unknown> = {}): CoEmbedLearner {
  const l = CoEmbedLearner.create({ variant, numRff: 16, seed: 1, replay: 64, ...extra });
  for (let b = 0; b < 3; b++) l.learnMany(rowsBatch(m, b * 16, 16));
  return l;
}

/** `state` with its config changed by `config`. */
function withConfig(state: ModelState, config: Record<string, unknown>): ModelState {
  return { ...state, config: { ...state.config, ...config } };
}

const RESTORES: [string, (s: ModelState) => unknown][] = [
  ["CoEmbedEstimator.restore", (st) => CoEmbedEstimator.restore(st)],
  ["CoEmbedLearner.restore", (st) => CoEmbedLearner.restore(st)],
  ["restoreCore", (st) => restoreCore(st)],
  ["factory.restore", (st) => factory.restore(st)],
];

// settings past their declared maximum, and an NL size past the fixed-size limit (each setting
// within its own range): refused by `create`, so they must be by every restore
const { initScale, gamma, rankS, numRff, streamSteps, consolidateEpochs } = COEMBED_SETTINGS.specs;
const OUT_OF_RANGE: Record<string, unknown>[] = [
  { initScale: initScale.max! * 2 },
  { gamma: gamma.max! * 10 },
  { gamma: Number.MAX_VALUE },
  { rankS: rankS.max! + 1 },
  { numRff: numRff.max! + 1 },
  { streamSteps: streamSteps.max! + 1 },
  { consolidateEpochs: consolidateEpochs.max! + 1 },
  { variant: "NL", numRff: numRff.max!, rankX: 257 },
];

Deno.test("coembed restore: settings create refuses are refused with create's message", () => {
  for (const variant of ["L", "NL"] as const) {
    const state = trained(variant).toState();
    for (const bad of OUT_OF_RANGE) {
      const expected = messageOf(() => CoEmbedLearner.create({ variant, ...bad }));
      assert(expected !== "", `create accepts ${JSON.stringify(bad)}`);
      for (const [name, restore] of RESTORES) {
        let err: unknown;
        try {
          restore(withConfig(state, bad));
        } catch (e) {
          err = e;
        }
        assert(err instanceof RangeError, `${name} ${JSON.stringify(bad)}: ${err ?? "accepted"}`);
        assertEquals(err.message, expected, `${name} ${variant} ${JSON.stringify(bad)}`);
      }
    }
    // the state as written restores on every path
    for (const [, restore] of RESTORES) restore(state);
  }
});

Deno.test("coembed restore: a tensor of another shape than the settings give is named with the shape", () => {
  const nl = trained("NL").toState(), l = trained("L").toState();
  const cases: [ModelState, RegExp][] = [
    // more directions than the stored Q has rows for
    [
      withConfig(nl, { numRff: 32 }),
      /tensor Q must be a Float64Array of length \d+ \(\[2·numRff, rankS\]/,
    ],
    [
      withConfig(l, { rankX: 11 }),
      /tensor V must be a Float64Array of length \d+ \(\[numFeatures, rankX\]/,
    ],
    [
      { ...l, scalars: { ...l.scalars, numLabels: l.scalars.numLabels + 1 } },
      /tensor P must be a Float64Array of length \d+ \(\[numLabels, rankS\]/,
    ],
    [
      { ...l, tensors: { ...l.tensors, v_b: new Float64Array(1) } },
      /tensor v_b must be a Float64Array of length \d+ \(\[numLabels\] = \d+\), got length 1/,
    ],
  ];
  for (const [state, re] of cases) {
    for (const [name, restore] of RESTORES) {
      const msg = messageOf(() => restore(state));
      assert(re.test(msg), `${name}: expected ${re}, got "${msg}"`);
    }
  }
});

Deno.test("coembed restore: sizes the state's tensors do not hold are refused before allocating them", () => {
  // 2^24 features of rank 4096 would be 550 GB of V: the state holds 80 entries of it
  const state = trained("L").toState();
  const huge = {
    ...withConfig(state, { rankX: 4096, maxFeatures: 2 ** 24 }),
    scalars: { ...state.scalars, numFeatures: 2 ** 24 },
  };
  const msg = messageOf(() => CoEmbedLearner.restore(huge));
  assert(
    /^coembed\.restore: tensor V must be a Float64Array of length 68719476736 \(\[numFeatures, rankX\]/
      .test(msg),
    `got "${msg}"`,
  );
});

/** Every probe scores finitely. */
function assertServable(l: { predictScores(x: SparseVector): Float32Array }, what: string) {
  for (const x of probes) {
    const sc = l.predictScores(x);
    assert(sc.every(Number.isFinite), `${what}: scores ${sc} for ${x.values[0]}`);
  }
}

for (const variant of ["L", "NL"] as const) {
  Deno.test(`coembed ${variant} stream: factors within float32 whose scores are not are refused, model unchanged`, () => {
    let refused = 0;
    for (const learningRate of [1e10, 1e15, 1e20, 1e25, 1e30, 1e36]) {
      const l = CoEmbedLearner.restore(withConfig(trained(variant).toState(), { learningRate }));
      const before = snapshot(l.toState());
      const scores = probes.map((x) => l.predictScores(x));
      let err: unknown;
      try {
        l.learnMany(rowsBatch(m, 48, 16));
      } catch (e) {
        err = e;
      }
      if (err === undefined) {
        // learned: every finite row, ordinary or near float32's largest value, scores finitely,
        // and predicting (scores, top k from the label index and exact) changes nothing
        const learned = snapshot(l.toState());
        assertServable(l, `${variant} learningRate ${learningRate}`);
        l.indexLabels({ minLabels: 0 });
        for (const x of probes) {
          l.predictTopK(x, 2);
          l.predictTopK(x, 2, { exact: true });
        }
        assertEquals(snapshot(l.toState()), learned, `learningRate ${learningRate}: predicting`);
        continue;
      }
      refused++;
      assert(err instanceof RangeError, `${err}`);
      assert(
        /diverged \(label \d+ can score /.test(err.message) &&
          err.message.includes(`lower learningRate (${learningRate})`),
        `learningRate ${learningRate}: "${err.message}"`,
      );
      assertEquals(snapshot(l.toState()), before, `learningRate ${learningRate}: the model`);
      probes.forEach((x, i) => {
        const again = l.predictScores(x);
        scores[i].forEach((v, j) => assert(Object.is(v, again[j]), `probe ${i} label ${j}`));
      });
    }
    assert(refused > 0, `${variant}: no learningRate was refused`);
  });

  Deno.test(`coembed ${variant} consolidate: scores beyond float32 are refused, model unchanged`, () => {
    const l = CoEmbedLearner.restore(
      withConfig(trained(variant).toState(), { learningRate: 1e20 }),
    );
    const before = snapshot(l.toState());
    const msg = messageOf(() => l.consolidate(2));
    assert(/consolidate: the update diverged \(label \d+ can score/.test(msg), `got "${msg}"`);
    assertEquals(snapshot(l.toState()), before);
  });

  Deno.test(`coembed ${variant}: a state or replica whose factors can score beyond float32 is refused`, () => {
    const est = CoEmbedEstimator.restore(trained(variant).toState());
    const state = est.toState(), replica = est.toReplicaState();
    // P and Q scaled to entries up to 1e36: every factor within float32, the scores not
    const scaled = <T extends Float32Array | Float64Array>(a: T): T => {
      const f = 1e36 / Math.max(...Array.from(a, Math.abs));
      return a.map((v) => v * f) as T;
    };
    const P = scaled(state.tensors.P as Float64Array), Q = scaled(state.tensors.Q as Float64Array);
    const big = { ...state, tensors: { ...state.tensors, P, Q } };
    for (const [name, restore] of RESTORES) {
      const msg = messageOf(() => restore(big));
      assert(/scores beyond float32 \(label \d+ can score/.test(msg), `${name}: "${msg}"`);
    }
    const rP = scaled(replica.tensors.P as Float32Array);
    const rQ = scaled(replica.tensors.Q as Float32Array);
    const msg = messageOf(() =>
      factory.restore({ ...replica, tensors: { ...replica.tensors, P: rP, Q: rQ } })
    );
    assert(/^CoEmbed replica: label \d+ can score .*beyond float32/.test(msg), `"${msg}"`);
    // the states as written restore, and serve every probe finitely
    assertServable(CoEmbedEstimator.restore(state), `${variant} restored`);
    assertServable(factory.restore(replica), `${variant} replica`);
  });

  Deno.test(`coembed ${variant} fit: scores beyond float32 are named, not served`, () => {
    let msg = "";
    const fit = () => fitCoEmbed(m, { variant, numRff: 16, learningRate: 1e20 }, { epochs: 2 });
    try {
      const f = fit();
      // accepted only when every probe scores finitely
      for (const x of probes) {
        const sc = f.predictScores(x);
        assert(sc.every(Number.isFinite), `fit scores ${sc}`);
      }
    } catch (e) {
      msg = (e as Error).message;
    }
    assert(/fit diverged in epoch \d+: label \d+ can score .*learningRate/.test(msg), `"${msg}"`);
  });
}

// ------------------------------------------------------------------------- step counts

const STEP_SETTINGS = [
  "foldInSteps",
  "rowSteps",
  "streamRowSteps",
  "globalSteps",
  "streamSteps",
  "consolidateEpochs",
] as const;

/** The step settings the repository uses (bench/repro, docs/coembed.md, README, tests). */
const USED: Record<string, number>[] = [
  { streamSteps: 60 },
  { streamSteps: 30, foldInSteps: 10 },
  { streamSteps: 30, streamRowSteps: 1 },
  { streamSteps: 60, streamRowSteps: 1, foldInSteps: 10 },
  { consolidateEpochs: 40 },
  { rowSteps: 2, globalSteps: 4 },
];

Deno.test("coembed step counts: the repository's uses are accepted, a batch at the maxima is bounded", () => {
  for (const used of USED) {
    CoEmbedLearner.create(used);
    fitCoEmbed(m, { ...used, numRff: 16 }, { epochs: 1 });
  }
  // the largest accepted combination of the maxima takes at most 100 000 row or global passes
  // per streaming batch (minutes, not the hours of the 2^40 that the earlier maxima allowed)
  const max = Object.fromEntries(STEP_SETTINGS.map((k) => [k, COEMBED_SETTINGS.specs[k].max!]));
  let accepted: Record<string, number> | undefined;
  for (const drop of [[], ["streamRowSteps"], ["foldInSteps"], ["streamRowSteps", "foldInSteps"]]) {
    const opts = { ...max };
    for (const k of drop) delete opts[k];
    if (messageOf(() => CoEmbedLearner.create(opts)) === "") {
      accepted = opts;
      break;
    }
  }
  assert(accepted !== undefined, "no combination of maxima is accepted");
  const passes = accepted.streamSteps *
    (1 + (accepted.streamRowSteps ?? 0) + (accepted.foldInSteps ?? 0));
  assert(passes <= 1e5, `${JSON.stringify(accepted)} accepted: ${passes} passes per batch`);
  // each step setting at its own maximum, the others at their defaults, is accepted
  for (const k of STEP_SETTINGS) CoEmbedLearner.create({ [k]: max[k] });
  // and past it refused, naming the setting and its range, at create and at restore
  const state = trained("L").toState();
  for (const k of STEP_SETTINGS) {
    const msg = messageOf(() => CoEmbedLearner.create({ [k]: max[k] + 1 }));
    assert(msg.includes(`option ${k} must be an integer in [0, ${max[k]}]`), msg);
    assertEquals(
      messageOf(() => CoEmbedLearner.restore(withConfig(state, { [k]: max[k] + 1 }))),
      msg,
    );
  }
  // consolidate's explicit epochs too
  const l = trained("L");
  const msg = messageOf(() => l.consolidate(max.consolidateEpochs + 1));
  assert(msg.includes(`[0, ${max.consolidateEpochs}]`), `consolidate: "${msg}"`);
});
