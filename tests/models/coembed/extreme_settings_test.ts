/**
 * CoEmbed settings at their extremes: a value past a setting's declared maximum is refused where
 * the options enter (the error names the key and the range), a value at the maximum trains and
 * predicts finitely, and a step-size setting that makes a batch diverge midway is refused with
 * the model left exactly as before (streaming `learnMany` and `consolidate`), the settings at
 * fault named; the batch fit names them too.
 */
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import { COEMBED_SETTINGS } from "../../../src/models/coembed/settings.ts";
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { factory } from "../../../src/models/coembed/mod.ts";
import { describeAllowed } from "../../../src/models/settings.ts";
import type { Batch, SparseVector } from "../../../src/data/types.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assert, assertEquals, messageOf } from "../../helpers.ts";
import { maskedCsr, rowsBatch, synthetic } from "./helpers.ts";

const s = synthetic(160, 8, 4, 3);
const m = maskedCsr(s, 0, 160, 0.7, 0.3, 5);
const query: SparseVector = { indices: m.x.indices.slice(0, 4), values: m.x.values.slice(0, 4) };

/** Every tensor, scalar and config entry of two states equal, bit for bit. */
function assertSameState(a: ModelState, b: ModelState, what: string): void {
  assertEquals(b.config, a.config, `${what}: config`);
  assertEquals(b.scalars, a.scalars, `${what}: scalars`);
  assertEquals(Object.keys(b.tensors).sort(), Object.keys(a.tensors).sort(), `${what}: tensors`);
  for (const [name, t] of Object.entries(a.tensors)) {
    const u = b.tensors[name] as ArrayLike<number>, v = t as ArrayLike<number>;
    assert(u.length === v.length, `${what}: ${name} has ${u.length} entries, was ${v.length}`);
    for (let i = 0; i < v.length; i++) {
      assert(Object.is(u[i], v[i]), `${what}: ${name}[${i}] is ${u[i]}, was ${v[i]}`);
    }
  }
}

/** A deep copy of a batch's arrays, to check that a refused batch is not mutated. */
function copyOf(b: Batch): unknown[] {
  return [b.x.indptr, b.x.indices, b.x.values, b.y.indptr, b.y.indices].map((a) => a.slice());
}

function allFinite(a: ArrayLike<number>): boolean {
  return Array.from(a).every(Number.isFinite);
}

/** The declared maximum of a CoEmbed setting (asserted to exist). */
function maxOf(key: "initScale" | "gamma"): number {
  const max = COEMBED_SETTINGS.specs[key].max;
  assert(max !== undefined, `coembed setting ${key} declares no maximum`);
  return max;
}

for (const key of ["initScale", "gamma"] as const) {
  Deno.test(`coembed ${key}: past its maximum it is refused at create, naming the range`, () => {
    const max = maxOf(key), range = describeAllowed(COEMBED_SETTINGS.specs[key]);
    for (const v of [max * 10, Number.MAX_VALUE]) {
      for (
        const f of [
          () => CoEmbedLearner.create({ [key]: v }, 3, 2),
          () => factory.create({ [key]: v }),
          () => fitCoEmbed(m, { [key]: v }, { epochs: 1 }),
        ]
      ) {
        const msg = messageOf(f);
        assert(msg.includes(`option ${key} must be ${range}`), `${key} = ${v}: "${msg}"`);
      }
    }
  });

  Deno.test(`coembed ${key}: at its maximum, stream, fit and predictions stay finite`, () => {
    const max = maxOf(key);
    for (const variant of ["L", "NL"] as const) {
      const opts = { variant, numRff: 16, seed: 1, [key]: max };
      const l = CoEmbedLearner.create(opts);
      for (let b = 0; b < 4; b++) l.learnMany(rowsBatch(m, b * 16, 16));
      for (const t of Object.values(l.toState().tensors)) assert(allFinite(t as ArrayLike<number>));
      assert(allFinite(l.predictScores(query)), `${variant} ${key} ${max}: stream scores`);
      const fit = fitCoEmbed(m, opts, { epochs: 2 });
      assert(allFinite(fit.predictScores(query)), `${variant} ${key} ${max}: fit scores`);
    }
  });
}

/**
 * Learns batch `b` (16 rows) of the stream, which `l` must refuse: asserts that the refusal is a
 * RangeError matching `named`, and that the model, its predictions and the batch are exactly as
 * before it.
 */
function assertRefused(l: CoEmbedLearner, batch: Batch, named: RegExp): void {
  const before = l.toState(), input = copyOf(batch), scores = l.predictScores(query);
  let err: unknown;
  try {
    l.learnMany(batch);
  } catch (e) {
    err = e;
  }
  assert(err instanceof RangeError, `a RangeError, got ${err}`);
  assert(named.test(err.message), `expected ${named}, got "${err.message}"`);
  assertSameState(before, l.toState(), "after the refused batch");
  assertEquals(copyOf(batch), input, "the refused batch's arrays");
  const again = l.predictScores(query);
  scores.forEach((v, j) => assert(Object.is(v, again[j]), `score ${j}: ${again[j]}, was ${v}`));
}

/**
 * A learner that has learned `batches` batches of 16 rows with ordinary settings, then continues
 * with `extreme` (a restored state whose config says so: how a service resumes with new
 * settings).
 */
function trainedThen(
  variant: "L" | "NL",
  extreme: Record<string, unknown>,
  batches = 3,
): CoEmbedLearner {
  // warmStart 64: the warm start is due at the fourth batch, the one refused below
  const l = CoEmbedLearner.create({ variant, numRff: 16, seed: 1, replay: 64, warmStart: 64 });
  for (let b = 0; b < batches; b++) l.learnMany(rowsBatch(m, b * 16, 16));
  const state = l.toState();
  return CoEmbedLearner.restore({ ...state, config: { ...state.config, ...extreme } });
}

/** A batch of one row with a feature and a label past the model's spaces (it would grow them). */
const wide: Batch = {
  x: {
    numRows: 1,
    numCols: 40,
    indptr: Int32Array.of(0, 2),
    indices: Int32Array.of(0, 39),
    values: Float32Array.of(1, 2),
  },
  y: { numRows: 1, numCols: 9, indptr: Int32Array.of(0, 1), indices: Int32Array.of(8) },
};

for (const variant of ["L", "NL"] as const) {
  Deno.test(`coembed ${variant} stream: a huge learningRate is refused, model unchanged`, () => {
    for (const learningRate of [1e300, 1e150]) {
      const named = /diverged.*learningRate \(1e\+\d+\).*initScale/;
      // a fresh model, and one that has learned (its warm start, growth and replay due)
      const fresh = CoEmbedLearner.create({ variant, numRff: 16, seed: 1, learningRate });
      assertRefused(fresh, rowsBatch(m, 0, 16), named);
      const l = trainedThen(variant, { learningRate });
      assertRefused(l, rowsBatch(m, 48, 16), named);
      assertRefused(l, wide, named);
      assert(l.rowsSeen === 48 && !l.warmStarted, `rowsSeen ${l.rowsSeen}, ${l.warmStarted}`);
    }
  });

  Deno.test(`coembed ${variant} stream: a huge rowLearningRate is refused and named`, () => {
    const extreme = { rowLearningRate: 1e300, streamRowSteps: 2 };
    assertRefused(
      trainedThen(variant, extreme),
      rowsBatch(m, 48, 16),
      /rowLearningRate \(1e\+300\)/,
    );
  });

  Deno.test(`coembed ${variant} consolidate: a diverging consolidation is undone`, () => {
    const l = trainedThen(variant, { learningRate: 1e300 });
    const before = l.toState();
    const msg = messageOf(() => l.consolidate(2));
    assert(/consolidate.*diverged.*learningRate \(1e\+300\)/.test(msg), `got "${msg}"`);
    assertSameState(before, l.toState(), "after the refused consolidation");
  });

  Deno.test(`coembed ${variant} stream: after a refused batch, ordinary learning goes on`, () => {
    // the refusal leaves nothing behind: the same learner, restored with its own settings,
    // learns the next batch exactly as a learner that never saw the refused one
    const l = trainedThen(variant, { learningRate: 1e300 });
    assertRefused(l, rowsBatch(m, 48, 16), /diverged/);
    const state = l.toState();
    const sane = CoEmbedLearner.restore({
      ...state,
      config: { ...state.config, learningRate: 0.01 },
    });
    const twin = trainedThen(variant, {});
    sane.learnMany(rowsBatch(m, 48, 16));
    twin.learnMany(rowsBatch(m, 48, 16));
    assertSameState(twin.toState(), sane.toState(), "learning after the refusal");
  });
}

Deno.test("coembed fit: a learningRate that overflows float32 is named, not a failed predictor", () => {
  const msg = messageOf(() => fitCoEmbed(m, { numRff: 16, learningRate: 1e150 }, { epochs: 3 }));
  assert(/fit diverged in epoch \d+.*learningRate \(1e\+150\)/.test(msg), `got "${msg}"`);
});

Deno.test("coembed NL: random-feature sizes past the fixed-size limit are refused at create", () => {
  // each setting within its own range, their product (Q is [2·numRff, rankS], allocated at
  // create before any data) absurd: refused naming both settings, before any allocation
  const { numRff, rankS, rankX } = COEMBED_SETTINGS.specs;
  const opts = { variant: "NL", numRff: numRff.max!, rankS: rankS.max! };
  for (
    const f of [
      () => CoEmbedLearner.create(opts),
      () => factory.create(opts),
      () => fitCoEmbed(m, opts, { epochs: 1 }),
    ]
  ) {
    const msg = messageOf(f);
    assert(/numRff \(\d+\) and rankS \(\d+\).*lower numRff or rankS/.test(msg), `got "${msg}"`);
  }
  const wideX = { variant: "NL", numRff: numRff.max!, rankX: rankX.max!, rankS: 1 };
  assert(/numRff \(\d+\) and rankX/.test(messageOf(() => CoEmbedLearner.create(wideX))));
  // ColEmbed-L allocates no random features: the same settings are fine there
  assert(CoEmbedLearner.create({ ...opts, variant: "L" }).core.Q.length === 0);
});
