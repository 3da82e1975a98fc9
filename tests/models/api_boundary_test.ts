/**
 * The models' library API at its boundary, as a TypeScript caller meets it (beyond the shared
 * estimator checks): the batch trainers check their options like settings and their rows like
 * a minibatch before any work; `toModelFile` checks its options in every model; a short `out`
 * of `predictScores` is refused; a feature space that cannot be allocated is a clear error that
 * leaves the model as it was.
 */
import { UNLIMITED } from "../../src/models/space_limits.ts";
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import type { Estimator } from "../../src/models/estimator.ts";
import type { BinaryCsr, CsrMatrix } from "../../src/data/types.ts";
import { trainLemlBatch } from "../../src/models/leml/mod.ts";
import { BrEstimator, trainBr } from "../../src/models/br/mod.ts";
import { SleecStream, trainSleec } from "../../src/models/sleec/mod.ts";
import { fitCoEmbed } from "../../src/models/coembed/mod.ts";
import { makeBatch, plantedData, stateDifference } from "./estimator_checks.ts";
import { assert, assertBadInput, assertEquals, messageOf } from "../helpers.ts";

const data = plantedData(24, 4, 5);
const { x, y } = makeBatch(data.rows, data.numFeatures, data.numLabels);

/** `x` with one entry changed (row 1's first entry: its index and/or value). */
function xWith(change: { index?: number; value?: number; swap?: boolean }): CsrMatrix {
  const indices = x.indices.slice(), values = x.values.slice();
  const p = x.indptr[1];
  if (change.index !== undefined) indices[p] = change.index;
  if (change.value !== undefined) values[p] = change.value;
  if (change.swap) [indices[p], indices[p + 1]] = [indices[p + 1], indices[p]];
  return { ...x, indices, values };
}

/** Malformed training rows every batch trainer refuses, naming row 1. */
const badRows: [string, CsrMatrix][] = [
  ["a NaN value", xWith({ value: NaN })],
  ["features out of order", xWith({ swap: true })],
  ["a feature beyond numCols", xWith({ index: data.numFeatures + 3 })],
];

Deno.test("trainLemlBatch: options are checked like settings, the rows before any work", () => {
  assertBadInput([
    [
      () => trainLemlBatch(x, y, { rank: 2, iteratons: 1 } as never),
      /trainLemlBatch: unknown option "iteratons" \(known: .*iterations.*onIteration\)/,
    ],
    [
      () => trainLemlBatch(x, y, { rank: 2, loss: "hinge" as never }),
      /trainLemlBatch: option loss must be one of squared, logistic, sqhinge, got "hinge"/,
    ],
    [
      () => trainLemlBatch(x, y, { rank: 2, iterations: -1 }),
      /option iterations must be an integer in \[1, 1048576\], got -1/,
    ],
    [
      () => trainLemlBatch(x, y, { rank: 2, lambda: -1 }),
      /option lambda must be a finite number >= 0, got -1/,
    ],
    [() => trainLemlBatch(x, y, { rank: 2, cgIterations: 0 }), /option cgIterations/],
    [
      () => trainLemlBatch(x, y, { rank: 1e9 }),
      /option rank must be an integer in \[1, 4096\], got 1000000000/,
    ],
    [() => trainLemlBatch(x, y, {} as never), /option rank is required/],
    [
      () => trainLemlBatch(x, y, { rank: 2, trackObjective: "yes" as never }),
      /trackObjective must be true or false/,
    ],
  ]);
  for (const [what, bad] of badRows) {
    const m = messageOf(() => trainLemlBatch(bad, y, { rank: 2 }));
    assert(/^trainLemlBatch: row 1 of x: /.test(m), `${what}: "${m}"`);
  }
  // strings are parsed by the declared kind, as everywhere else
  const a = trainLemlBatch(x, y, { rank: "2" as never, iterations: "2" as never });
  const b = trainLemlBatch(x, y, { rank: 2, iterations: 2 });
  assertEquals(Array.from(a.W), Array.from(b.W));
});

Deno.test("trainBr: the solver's options are declared (DCD_SETTINGS), the rows checked first", () => {
  assertBadInput([
    [
      () => trainBr(x, y, { maxiter: 3 } as never),
      /^br batch: unknown option "maxiter" \(known: C, eps, maxIter, bias, seed\)/,
    ],
    [
      () => trainBr(x, y, { maxIter: 1.5 }),
      /^br batch: option maxIter must be an integer in \[1, 1048576\], got 1\.5$/,
    ],
    [
      () => trainBr(x, y, { C: Infinity }),
      /^br batch: option C must be a finite number > 0, got Infinity$/,
    ],
    [() => trainBr(x, y, { eps: 0 }), /option eps must be a finite number > 0, got 0/],
    [() => trainBr(x, y, { bias: Infinity }), /option bias must be a finite number >= 0/],
    [() => trainBr(x, y, { C: {} as never }), /option C must be a finite number > 0, got \{\}/],
    [
      () => trainBr(x, { ...y, indptr: y.indptr.map((v, i) => i === 2 ? 1e6 : v) }),
      /^trainBr: row 1 of y: /,
    ],
  ]);
  for (const [what, bad] of badRows) {
    const m = messageOf(() => trainBr(bad, y));
    assert(/^trainBr: row 1 of x: /.test(m), `${what}: "${m}"`);
  }
  const a = trainBr(x, y, { C: "2" as never }), b = trainBr(x, y, { C: 2 });
  const q = data.rows[0].x;
  assertEquals(Array.from(a.predictScores(q)), Array.from(b.predictScores(q)));
});

Deno.test("trainSleec: a malformed row of x is refused naming it; labels may come in any order", () => {
  for (const [what, bad] of badRows) {
    const m = messageOf(() => trainSleec(bad, y, { rank: 2 }));
    assert(/^trainSleec: row 1 of x: /.test(m), `${what}: "${m}"`);
  }
  // the trainer sorts and de-duplicates a row's labels itself: that stays allowed
  const reversed: BinaryCsr = { ...y, indices: y.indices.slice() };
  for (let i = 0; i < y.numRows; i++) {
    reversed.indices.subarray(y.indptr[i], y.indptr[i + 1]).reverse();
  }
  const q = data.rows[0].x;
  assertEquals(
    Array.from(trainSleec(x, reversed, { rank: 2 }).predictScores(q)),
    Array.from(trainSleec(x, y, { rank: 2 }).predictScores(q)),
  );
});

Deno.test("fitCoEmbed: an unknown or bad model option or fit option is refused before any work", () => {
  const d = { x, y };
  assertBadInput([
    [() => fitCoEmbed(d, { rnak: 3 }), /^coembed: unknown option "rnak"/],
    [
      () => fitCoEmbed(d, { variant: "L" }, { epoch: 3 } as never),
      /^fitCoEmbed: unknown option "epoch" \(known: epochs, batchSize, init, rowUpdate\)/,
    ],
    [
      () => fitCoEmbed(d, {}, { epochs: 1e9 }),
      /^fitCoEmbed: option epochs must be an integer in \[0, 1048576\], got 1000000000$/,
    ],
    [
      () => fitCoEmbed(d, {}, { init: "svd" as never }),
      /option init must be one of spectral, random, got "svd"/,
    ],
    [() => fitCoEmbed(d, {}, { onEpoch: 3 as never }), /option onEpoch must be a function/],
  ]);
});

/** A small model of each kind, trained on the planted rows. */
async function trained(name: string, options: Record<string, unknown> = {}): Promise<Estimator> {
  const f = await loadFactory(name);
  const extra: Record<string, unknown> = name === "sleec" ? { rank: 4, firstRefresh: 8 } : {};
  const m = f.create({
    seed: 1,
    numFeatures: data.numFeatures,
    numLabels: data.numLabels,
    ...extra,
    ...options,
  });
  for (let s = 0; s < data.rows.length; s += 8) {
    m.learnMany(makeBatch(data.rows.slice(s, s + 8), data.numFeatures, data.numLabels));
  }
  return m;
}

Deno.test("toModelFile: every model refuses an unknown option, a bad quantize and names that are not strings", async () => {
  for (const name of MODEL_NAMES.filter((n) => n !== "knn")) {
    const m = await trained(name);
    const names = Array.from({ length: m.numLabels }, (_, l) => `L${l}`).join("");
    assertBadInput([
      [
        () => m.toModelFile({ quantise: "f16" } as never),
        new RegExp(`^${name}\\.toModelFile: unknown option "quantise" \\(known: labelNames, `),
      ],
      [
        () => m.toModelFile({ quantize: "f64" as never }),
        new RegExp(
          `^${name}\\.toModelFile: option quantize must be one of f32, f16, i8, got "f64"$`,
        ),
      ],
      [
        () => m.toModelFile({ labelNames: names.slice(0, m.numLabels) as never }),
        /option labelNames must be an array of strings, got string/,
      ],
      [() => m.toModelFile({ labelNames: [1, 2, 3, 4] as never }), /labelNames\[0\] is number/],
      [() => m.toModelFile(null as never), /the options must be an object, got null/],
      [
        () => m.toModelFile({ labelNames: ["a", "b", "a", "d"] }),
        /option labelNames repeats "a" \(labelNames\[0\] and \[2\]\)/,
      ],
      [() => m.toModelFile({ labelNames: ["a", "", "c", "d"] }), /labelNames\[1\] is empty/],
    ]);
    assert(m.toModelFile({ quantize: "f16", labelNames: ["a", "b", "c", "d"] }).length > 0, name);
  }
  const batch = trainSleec(x, y, { rank: 2 });
  assert(
    /quantize must be one of f32, f16, i8/.test(
      messageOf(() => batch.toModelFile({ quantize: "f64" as never })),
    ),
    "trainSleec's model",
  );
});

/**
 * Registered models that break the longer-`out` contract, each with why, until fixed: their
 * check is reported as ignored (below) rather than left out without a word.
 */
const LONGER_OUT_FAILS: Partial<Record<string, string>> = {};

Deno.test("predictScores: an out shorter than numLabels is refused; a longer one is written into", async () => {
  for (const name of MODEL_NAMES) {
    const m = await trained(name);
    const q = data.rows[2].x;
    const m1 = messageOf(() => m.predictScores(q, new Float32Array(1)));
    assert(/out has (length )?1/.test(m1), `${name}: "${m1}"`);
    if (LONGER_OUT_FAILS[name] === undefined) checkLongerOut(name, m);
  }
});

/** The scores go into the first numLabels entries of a longer `out`; the rest is left alone. */
function checkLongerOut(name: string, m: Estimator): void {
  const q = data.rows[2].x;
  const out = new Float32Array(m.numLabels + 3).fill(7);
  const s = m.predictScores(q, out);
  assertEquals(s.length, m.numLabels, name);
  assertEquals(Array.from(out.subarray(0, m.numLabels)), Array.from(m.predictScores(q)), name);
  assertEquals(Array.from(out.subarray(m.numLabels)), [7, 7, 7], name);
}

for (const [name, why] of Object.entries(LONGER_OUT_FAILS)) {
  Deno.test({
    name: `predictScores: ${name} writes into a longer out (ignored, known failure: ${why})`,
    ignore: true,
    fn: async () => checkLongerOut(name, await trained(name)),
  });
}

Deno.test("SleecStream and BrEstimator: sizes checked like the factory's; a size that cannot be allocated leaves the model as it was", async () => {
  assertEquals(new SleecStream({ numFeatures: "3" as never }).numFeatures, 3);
  assert(
    /^sleec: option numFeatures must be an integer in \[0, 2147483647\], got 1000000000000$/.test(
      messageOf(() => new SleecStream({ numFeatures: 1e12 })),
    ),
    "SleecStream numFeatures 1e12",
  );
  assertEquals(new BrEstimator({ numLabels: "3" as never }).numLabels, 3);
  const far = 2 ** 31 - 2;
  for (
    const [name, expected] of [[
      "sleec",
      /^sleec\.learnOne: cannot grow the model to 2147483647 features/,
    ], [
      "br",
      /^br: cannot allocate the dense weights of 2147483647 features × 2147483647 labels/,
    ]] as const
  ) {
    // without the growth limits (which refuse the row first), the allocation itself fails
    const m = await trained(name, { ...UNLIMITED });
    const before = structuredClone(m.toState());
    const message = messageOf(() =>
      m.learnOne({ indices: Int32Array.of(0, far), values: Float32Array.of(1, 1) }, [0, far])
    );
    assert(expected.test(message), `${name}: "${message}"`);
    const diff = stateDifference(before, structuredClone(m.toState()));
    assert(diff === undefined, `${name}: the refused row changed the model: ${diff}`);
    // and it still works
    m.learnMany(makeBatch(data.rows.slice(0, 4), data.numFeatures, data.numLabels));
    assertEquals(m.predictTopK(data.rows[0].x, 2).labels.length, 2, name);
  }
});

for (const name of ["leml", "coembed"]) {
  Deno.test(`${name}: a growth that cannot be allocated leaves the model as it was, also when the features grew before the labels failed`, async () => {
    const m = await trained(name, { ...UNLIMITED });
    const before = structuredClone(m.toState());
    const far = 2 ** 31 - 2, near = data.numFeatures + 10;
    for (const [indices, labels] of [[[0, far], [0]], [[0, near], [0, far]]] as const) {
      const message = messageOf(() =>
        m.learnOne({ indices: Int32Array.from(indices), values: Float32Array.of(1, 1) }, labels)
      );
      assert(
        new RegExp(`^${name}: cannot grow the model to \\d+ features and \\d+ labels\\b`).test(
          message,
        ),
        message,
      );
      const diff = stateDifference(before, structuredClone(m.toState()));
      assert(
        diff === undefined,
        `the refused row (${indices} / ${labels}) changed the model: ${diff}`,
      );
    }
    // and it still learns, growing as far as it can
    m.learnOne({ indices: Int32Array.of(0, near), values: Float32Array.of(1, 1) }, [0]);
    assertEquals(m.numFeatures, near + 1);
    m.learnMany(makeBatch(data.rows.slice(0, 4), data.numFeatures, data.numLabels));
    assertEquals(m.predictTopK(data.rows[0].x, 2).labels.length, 2);
  });
}
