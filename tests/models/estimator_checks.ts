/**
 * The shared estimator check suite: every model runs it (see DEVELOPERS.md).
 *
 * `checkEstimator(name, factory)` registers one `Deno.test` with a step per check:
 * learning the planted structure, no mutation of inputs (also of a batch with partially
 * observed labels), no mutation of the model by
 * prediction, top-k consistent with the full scores, new labels and new features mid-stream,
 * save → SDK load gives the same top-k, restore(toState()) gives the same model, a replica
 * (restore of `toReplicaState()`, for the models that have it) predicts exactly like the model
 * and stays put while the model learns on, the same seed gives the same model, a malformed
 * minibatch is refused whole (naming the row) and changes nothing, a row past the model's
 * `maxFeatures`/`maxLabels` is refused (naming the row and the setting) and changes nothing,
 * also after a restore, `learnOne` takes its
 * labels in any order and repeated, and a malformed query row or k is refused by
 * `predictTopK` and `predictScores` (an unknown feature is ignored). Also: `learnOne` on a
 * sequence gives the model of `learnMany` on minibatches of that one row; restore(toState())
 * after the features and labels grew mid-stream gives the same model, which grows on alike;
 * `predictTopK` with any k (0, every k up to numLabels, past it) is the head of the full
 * ranking, and the model file's top-k is the trainer's for every k (a query feature past
 * `numFeatures` ignored by both); the same seed gives the same bytes (state and model file) in
 * another process; settings given as strings (the command line's) give the model of the typed
 * values; an unknown setting is refused by `create`, naming it; `toState()` and `restore` copy
 * (the model learning on does not change an earlier state, writing into a state does not change
 * the model).
 *
 * @module
 */
import type { Batch, SparseVector } from "../../src/data/types.ts";
import type { Estimator, EstimatorFactory, ModelState } from "../../src/models/estimator.ts";
import { loadModel } from "../../sdk/mod.ts";
import { mulberry32 } from "../mulberry32.ts";
import { assert } from "../helpers.ts";

/** Names of the individual checks (to skip one, with a reason). */
export type CheckName =
  | "learns"
  | "inputs"
  | "predictionPure"
  | "topkMatchesScores"
  | "newLabels"
  | "newFeatures"
  | "saveLoad"
  | "restore"
  | "replica"
  | "seed"
  | "badBatch"
  | "limits"
  | "learnOneLabels"
  | "badQuery"
  | "learnOneIsMany"
  | "restoreAfterGrowth"
  | "topkAnyK"
  | "fileTopK"
  | "seedProcesses"
  | "stringSettings"
  | "unknownSetting"
  | "stateCopies";

/** Options of {@linkcode checkEstimator}. */
export interface EstimatorCheckOptions {
  /** Model-specific options passed to `factory.create` (besides seed and sizes). */
  createOptions?: Record<string, unknown>;
  /** Passes over the planted data before the checks that need a trained model (default 3). */
  epochs?: number;
  /** Minimum training P@1 on the planted data (default 0.6; popularity gets about 0.25). */
  minTrainP1?: number;
  /** Absolute tolerance on scores between the trainer, the SDK and a restored model (1e-5). */
  tolerance?: number;
  /** Checks that do not apply to this model, each with the reason. */
  skip?: Partial<Record<CheckName, string>>;
  /** Minibatch size (default 16). */
  batchSize?: number;
}

/** A planted multi-label problem: each label owns 3 features; rows carry 1-2 labels. */
export interface PlantedData {
  numFeatures: number;
  numLabels: number;
  rows: { x: SparseVector; labels: Int32Array }[];
}

/**
 * Generates the planted data: label l owns features 3l..3l+2; a row with labels S has those
 * features (value 1, sometimes one dropped) plus two noise features from the tail block.
 * Label frequencies decay so that popularity alone is a weak predictor.
 */
export function plantedData(
  numRows = 240,
  numLabels = 8,
  seed = 7,
): PlantedData {
  const rand = mulberry32(seed);
  const noiseStart = 3 * numLabels;
  const numFeatures = noiseStart + 16;
  const rows: PlantedData["rows"] = [];
  const weights = Array.from({ length: numLabels }, (_, l) => 1 / Math.sqrt(l + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const draw = () => {
    let u = rand() * total;
    for (let l = 0; l < numLabels; l++) {
      u -= weights[l];
      if (u <= 0) return l;
    }
    return numLabels - 1;
  };
  for (let i = 0; i < numRows; i++) {
    const labels = new Set<number>([draw()]);
    if (rand() < 0.4) labels.add(draw());
    const feats = new Map<number, number>();
    for (const l of labels) {
      const drop = rand() < 0.3 ? Math.floor(rand() * 3) : -1;
      for (let j = 0; j < 3; j++) if (j !== drop) feats.set(3 * l + j, 1);
    }
    for (let n = 0; n < 2; n++) feats.set(noiseStart + Math.floor(rand() * 16), 0.5);
    const idx = [...feats.keys()].sort((a, b) => a - b);
    rows.push({
      x: {
        indices: Int32Array.from(idx),
        values: Float32Array.from(idx.map((j) => feats.get(j)!)),
      },
      labels: Int32Array.from([...labels].sort((a, b) => a - b)),
    });
  }
  return { numFeatures, numLabels, rows };
}

/** Builds a CSR batch from rows; `numFeatures`/`numLabels` are the batch's space sizes. */
export function makeBatch(
  rows: readonly { x: SparseVector; labels: Int32Array }[],
  numFeatures: number,
  numLabels: number,
): Batch {
  const xPtr = new Int32Array(rows.length + 1);
  const yPtr = new Int32Array(rows.length + 1);
  rows.forEach((r, i) => {
    xPtr[i + 1] = xPtr[i] + r.x.indices.length;
    yPtr[i + 1] = yPtr[i] + r.labels.length;
  });
  const xi = new Int32Array(xPtr[rows.length]);
  const xv = new Float32Array(xPtr[rows.length]);
  const yi = new Int32Array(yPtr[rows.length]);
  rows.forEach((r, i) => {
    xi.set(r.x.indices, xPtr[i]);
    xv.set(r.x.values, xPtr[i]);
    yi.set(r.labels, yPtr[i]);
  });
  return {
    x: { numRows: rows.length, numCols: numFeatures, indptr: xPtr, indices: xi, values: xv },
    y: { numRows: rows.length, numCols: numLabels, indptr: yPtr, indices: yi },
  };
}

/**
 * Malformed variants of a batch of `rows` (at least 2; row 1 has 2 or more features and a label):
 * each breaks row 1 only, so a model that learned row by row would have learned row 0.
 */
export function malformedBatches(
  rows: readonly { x: SparseVector; labels: Int32Array }[],
  numFeatures: number,
  numLabels: number,
): [string, Batch][] {
  const withRow1 = (x: SparseVector, labels = rows[1].labels) =>
    makeBatch([rows[0], { x, labels }, ...rows.slice(2)], numFeatures, numLabels);
  const { indices: i, values: v } = rows[1].x;
  const swapped = Int32Array.from(i), nan = Float32Array.from(v), inf = Float32Array.from(v);
  [swapped[0], swapped[1]] = [i[1], i[0]];
  nan[1] = NaN, inf[0] = Infinity;
  const good = makeBatch(rows, numFeatures, numLabels);
  return [
    ["features out of order", withRow1({ indices: swapped, values: v })],
    [
      "a feature repeated",
      withRow1({ indices: Int32Array.of(i[0], ...i), values: Float32Array.of(1, ...v) }),
    ],
    [
      "a negative feature",
      withRow1({ indices: Int32Array.of(-3, ...i), values: Float32Array.of(1, ...v) }),
    ],
    ["a NaN value", withRow1({ indices: i, values: nan })],
    ["an infinite value", withRow1({ indices: i, values: inf })],
    ["a label repeated", withRow1(rows[1].x, Int32Array.of(rows[1].labels[0], ...rows[1].labels))],
    ["a negative label", withRow1(rows[1].x, Int32Array.of(-1, ...rows[1].labels))],
    ["fewer label rows", {
      ...good,
      y: { ...good.y, numRows: rows.length - 1, indptr: good.y.indptr.subarray(0, rows.length) },
    }],
  ];
}

function* batches(
  data: PlantedData,
  batchSize: number,
  numFeatures = data.numFeatures,
  numLabels = data.numLabels,
): Generator<Batch> {
  for (let s = 0; s < data.rows.length; s += batchSize) {
    yield makeBatch(data.rows.slice(s, s + batchSize), numFeatures, numLabels);
  }
}

/**
 * `b` with partially observed labels: every third row fully observed (an empty observed row),
 * the others observing their positives and the label after their first one.
 */
function withObserved(b: Batch, numLabels: number): Batch {
  const n = b.y.numRows, rows: number[][] = [], full = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const pos = Array.from(b.y.indices.subarray(b.y.indptr[i], b.y.indptr[i + 1]));
    full[i] = i % 3 === 0 ? 1 : 0;
    const extra = pos.length ? (pos[0] + 1) % numLabels : 0;
    rows.push(full[i] ? [] : [...new Set([...pos, extra])].sort((a, c) => a - c));
  }
  const indptr = new Int32Array(n + 1);
  rows.forEach((r, i) => indptr[i + 1] = indptr[i] + r.length);
  return {
    ...b,
    observed: { numRows: n, numCols: numLabels, indptr, indices: Int32Array.from(rows.flat()) },
    fullyObserved: full,
  };
}

function cloneBatch(b: Batch): Batch {
  return structuredClone(b);
}

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function sameBytes(a: ArrayBufferView, b: ArrayBufferView): boolean {
  if (a.byteLength !== b.byteLength) return false;
  const x = bytesOf(a), y = bytesOf(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** Describes the first difference between two states, or returns undefined when identical. */
export function stateDifference(a: ModelState, b: ModelState): string | undefined {
  if (a.kind !== b.kind) return `kind ${a.kind} vs ${b.kind}`;
  if (JSON.stringify(a.config) !== JSON.stringify(b.config)) return "config differs";
  const sk = Object.keys(a.scalars).sort(), tk = Object.keys(b.scalars).sort();
  if (sk.join() !== tk.join()) return `scalar names ${sk} vs ${tk}`;
  for (const k of sk) {
    if (!Object.is(a.scalars[k], b.scalars[k])) {
      return `scalar ${k}: ${a.scalars[k]} vs ${b.scalars[k]}`;
    }
  }
  const ak = Object.keys(a.tensors).sort(), bk = Object.keys(b.tensors).sort();
  if (ak.join() !== bk.join()) return `tensor names ${ak} vs ${bk}`;
  for (const k of ak) {
    const x = a.tensors[k], y = b.tensors[k];
    if (x.constructor !== y.constructor) return `tensor ${k} type differs`;
    if (!sameBytes(x, y)) return `tensor ${k} differs`;
  }
  return undefined;
}

/**
 * A state as bytes (kind, config, scalars and tensors, names sorted; scalars as float64 bytes):
 * equal states give equal bytes, so two processes can compare digests of them.
 *
 * @example
 * ```ts ignore
 * import { stateBytes } from "./estimator_checks.ts";
 * const s = { kind: "br", config: {}, scalars: { step: 1 }, tensors: { w: new Float32Array(2) } };
 * console.log(stateBytes(s).length > 8); // true
 * ```
 */
export function stateBytes(state: ModelState): Uint8Array {
  const names = Object.keys(state.tensors).sort(), scalars = Object.keys(state.scalars).sort();
  const head = new TextEncoder().encode(JSON.stringify([
    state.kind,
    state.config,
    scalars,
    names.map((k) => [k, state.tensors[k].constructor.name, state.tensors[k].length]),
  ]));
  const parts = [
    head,
    bytesOf(Float64Array.from(scalars, (k) => state.scalars[k])),
    ...names.map((k) => bytesOf(state.tensors[k])),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, o), o += p.length;
  return out;
}

async function digest(bytes: Uint8Array): Promise<string> {
  const h = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(h, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The other process of the `seedProcesses` check (JavaScript for `deno eval`, given the job as
 * JSON): trains the model on the planted data like the check and prints the digests of its
 * state and model file.
 */
const SEED_CHILD = `
  const job = JSON.parse(Deno.args[0]);
  const { plantedData, makeBatch, stateBytes } = await import(job.checks);
  const factory = (await import(job.module))[job.exported];
  const data = plantedData();
  const m = factory.create({
    ...job.options, numFeatures: data.numFeatures, numLabels: data.numLabels,
  });
  for (let s = 0; s < data.rows.length; s += job.batchSize) {
    m.learnMany(makeBatch(data.rows.slice(s, s + job.batchSize), data.numFeatures, data.numLabels));
  }
  const digest = async (b) => Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", b)),
    (x) => x.toString(16).padStart(2, "0"),
  ).join("");
  let file = "not exportable";
  try {
    file = await digest(m.toModelFile());
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
  console.log(JSON.stringify({ state: await digest(stateBytes(m.toState())), file }));
`;

/** The full ranking of `x`'s labels by `predictScores` (ties by the smaller label). */
function ranking(m: Estimator, x: SparseVector): { labels: number[]; scores: number[] } {
  const s = m.predictScores(x);
  const labels = Array.from(s.keys()).sort((a, b) => s[b] - s[a] || a - b);
  return { labels, scores: labels.map((l) => s[l]) };
}

/** The top-k of a ranking. */
function head(r: { labels: number[]; scores: number[] }, k: number) {
  return { labels: r.labels.slice(0, k), scores: r.scores.slice(0, k) };
}

/** `x` with one more feature at `j` (past every index of `x`). */
function withFeature(x: SparseVector, j: number): SparseVector {
  return { indices: Int32Array.of(...x.indices, j), values: Float32Array.of(...x.values, 1) };
}

/** The message of what `f` throws (with the error's type), or "" when it returns. */
function thrown(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
  return "";
}

function assertSameTopK(
  a: { labels: ArrayLike<number>; scores: ArrayLike<number> },
  b: { labels: ArrayLike<number>; scores: ArrayLike<number> },
  tol: number,
  what: string,
): void {
  assert(a.labels.length === b.labels.length, `${what}: ${a.labels.length} vs ${b.labels.length}`);
  for (let i = 0; i < a.labels.length; i++) {
    const close = Math.abs(a.scores[i] - b.scores[i]) <= tol * Math.max(1, Math.abs(a.scores[i]));
    assert(close, `${what}: score ${i} ${a.scores[i]} vs ${b.scores[i]}`);
    // Labels must agree except where the two scores tie within tolerance.
    if (a.labels[i] !== b.labels[i]) {
      const tie = i + 1 < a.labels.length &&
        Math.abs(a.scores[i] - a.scores[i + 1]) <= tol * Math.max(1, Math.abs(a.scores[i]));
      const prevTie = i > 0 &&
        Math.abs(a.scores[i] - a.scores[i - 1]) <= tol * Math.max(1, Math.abs(a.scores[i]));
      assert(tie || prevTie, `${what}: label ${i} ${a.labels[i]} vs ${b.labels[i]}`);
    }
  }
}

function trainP1(model: Estimator, data: PlantedData): number {
  let hits = 0;
  for (const r of data.rows) {
    const top = model.predictTopK(r.x, 1).labels[0];
    if (r.labels.includes(top)) hits++;
  }
  return hits / data.rows.length;
}

/**
 * Registers the shared checks for a model family as one `Deno.test` with steps.
 *
 * @example
 * ```ts ignore
 * import { checkEstimator } from "./estimator_checks.ts";
 * import { factory } from "../../src/models/leml/mod.ts";
 * checkEstimator("leml streaming", factory);
 * ```
 */
export function checkEstimator(
  name: string,
  factory: EstimatorFactory,
  options: EstimatorCheckOptions = {},
): void {
  const epochs = options.epochs ?? 3;
  const minP1 = options.minTrainP1 ?? 0.6;
  const tol = options.tolerance ?? 1e-5;
  const bs = options.batchSize ?? 16;
  const skip = options.skip ?? {};
  const data = plantedData();
  const create = (seed: number, numFeatures = data.numFeatures, numLabels = data.numLabels) =>
    factory.create({ ...options.createOptions, seed, numFeatures, numLabels });
  const train = (
    m: Estimator,
    d = data,
    e = epochs,
    numFeatures = d.numFeatures,
    numLabels = d.numLabels,
  ) => {
    for (let ep = 0; ep < e; ep++) {
      for (const b of batches(d, bs, numFeatures, numLabels)) m.learnMany(b);
    }
  };
  let trained: Estimator | undefined;
  const getTrained = () => {
    if (!trained) {
      trained = create(1);
      train(trained);
    }
    return trained;
  };
  const probe = data.rows.slice(0, 12);

  Deno.test(`estimator checks: ${name}`, async (t) => {
    const step = async (check: CheckName, title: string, fn: () => void | Promise<void>) => {
      await t.step({ name: title, ignore: skip[check] !== undefined, fn });
    };

    await step("learns", "learns the planted structure", () => {
      const m = getTrained();
      assert(m.kind === factory.kind, `kind ${m.kind} vs factory ${factory.kind}`);
      const p1 = trainP1(m, data);
      assert(p1 >= minP1, `training P@1 ${p1.toFixed(3)} < ${minP1}`);
    });

    await step("inputs", "learning never mutates its inputs", () => {
      const m = create(2);
      for (const b of batches(data, bs)) {
        const before = cloneBatch(b);
        m.learnMany(b);
        assert(
          sameBytes(b.x.indptr, before.x.indptr) && sameBytes(b.x.indices, before.x.indices) &&
            sameBytes(b.x.values, before.x.values) && sameBytes(b.y.indptr, before.y.indptr) &&
            sameBytes(b.y.indices, before.y.indices),
          "learnMany mutated its batch",
        );
      }
      // a batch with partially observed labels (every third row fully observed)
      for (const b of batches(data, bs)) {
        const ob = withObserved(b, data.numLabels), before = cloneBatch(ob);
        m.learnMany(ob);
        assert(
          sameBytes(ob.observed!.indptr, before.observed!.indptr) &&
            sameBytes(ob.observed!.indices, before.observed!.indices) &&
            sameBytes(ob.fullyObserved!, before.fullyObserved!) &&
            sameBytes(ob.x.values, before.x.values) && sameBytes(ob.y.indices, before.y.indices),
          "learnMany mutated its batch with observed labels",
        );
      }
      const r = data.rows[3];
      const xi = r.x.indices.slice(), xv = r.x.values.slice(), y = r.labels.slice();
      m.learnOne(r.x, r.labels);
      assert(
        sameBytes(xi, r.x.indices) && sameBytes(xv, r.x.values) && sameBytes(y, r.labels),
        "learnOne mutated its inputs",
      );
    });

    await step(
      "badBatch",
      "a malformed minibatch is refused whole, naming the row, and changes nothing",
      () => {
        const m = create(6);
        train(m, data, 1);
        const before = structuredClone(m.toState());
        const rows = data.rows.filter((r) => r.x.indices.length >= 2 && r.labels.length >= 1)
          .slice(0, 4);
        for (const [what, b] of malformedBatches(rows, data.numFeatures, data.numLabels)) {
          let message = "";
          try {
            m.learnMany(b);
          } catch (e) {
            assert(e instanceof RangeError, `${what}: ${e} is not a RangeError`);
            message = e.message;
          }
          assert(message !== "", `${what}: the batch was accepted`);
          assert(/\brows?\b/.test(message), `${what}: "${message}" does not name the row`);
          const diff = stateDifference(before, structuredClone(m.toState()));
          assert(diff === undefined, `${what}: the refused batch changed the model: ${diff}`);
        }
      },
    );

    await step(
      "limits",
      "a row past maxFeatures or maxLabels is refused, naming it, and changes nothing",
      () => {
        const maxFeatures = data.numFeatures + 3, maxLabels = data.numLabels + 2;
        const limited = (o: Record<string, unknown>) =>
          factory.create({ ...options.createOptions, seed: 9, maxFeatures, maxLabels, ...o });
        for (
          const [size, limit, value] of [
            ["numFeatures", "maxFeatures", maxFeatures + 1],
            ["numLabels", "maxLabels", maxLabels + 1],
          ] as const
        ) {
          let message = "";
          try {
            limited({ [size]: value });
          } catch (e) {
            assert(e instanceof RangeError, `${size} ${value}: ${e} is not a RangeError`);
            message = e.message;
          }
          assert(
            message.includes(`${size} ${value}`) && message.includes(`${limit} ${value - 1}`),
            `an initial ${size} above ${limit}: "${message}"`,
          );
        }
        const m = limited({ numFeatures: data.numFeatures, numLabels: data.numLabels });
        train(m, data, 1);
        const r = data.rows.find((r) => r.x.indices.length >= 1 && r.labels.length >= 1)!;
        const past = [
          ["a feature", "maxFeatures", {
            x: {
              indices: Int32Array.of(...r.x.indices, maxFeatures),
              values: Float32Array.of(...r.x.values, 1),
            },
            labels: r.labels,
          }],
          ["a label", "maxLabels", { x: r.x, labels: Int32Array.of(...r.labels, maxLabels) }],
        ] as const;
        for (const model of [m, factory.restore(structuredClone(m.toState()))]) {
          const before = structuredClone(model.toState());
          for (const [what, limit, row] of past) {
            let message = "";
            try {
              model.learnMany(makeBatch([r, row], data.numFeatures, data.numLabels));
            } catch (e) {
              assert(e instanceof RangeError, `${what} past ${limit}: ${e} is not a RangeError`);
              message = e.message;
            }
            assert(
              message.includes("row 1") &&
                message.includes(`${limit} ${limit === "maxFeatures" ? maxFeatures : maxLabels}`),
              `${what} past ${limit}: "${message}"`,
            );
            const diff = stateDifference(before, structuredClone(model.toState()));
            assert(diff === undefined, `${what} past ${limit} changed the model: ${diff}`);
          }
        }
        // the last index within the limits is learned
        const edge = {
          x: {
            indices: Int32Array.of(...r.x.indices, maxFeatures - 1),
            values: Float32Array.of(...r.x.values, 1),
          },
          labels: Int32Array.of(...r.labels, maxLabels - 1),
        };
        m.learnOne(edge.x, edge.labels);
        assert(
          m.numFeatures === maxFeatures && m.numLabels === maxLabels,
          `sizes ${m.numFeatures} × ${m.numLabels} after a row at the limits`,
        );
      },
    );

    await step("learnOneLabels", "learnOne takes labels in any order and repeated", () => {
      const a = create(7), b = create(7);
      for (const r of data.rows.slice(0, 40)) {
        a.learnOne(r.x, r.labels);
        b.learnOne(r.x, [...r.labels].reverse().concat(r.labels[0] ?? []));
      }
      const diff = stateDifference(structuredClone(a.toState()), structuredClone(b.toState()));
      assert(diff === undefined, `shuffled or repeated labels gave another model: ${diff}`);
      let message = "";
      try {
        a.learnOne(data.rows[0].x, [1.5]);
      } catch (e) {
        message = (e as Error).message;
      }
      assert(message.includes("label 1.5"), `a fractional label: "${message}"`);
    });

    await step("badQuery", "a malformed query is refused; an unknown feature is ignored", () => {
      const m = getTrained();
      const r = data.rows.find((r) => r.x.indices.length >= 2)!;
      const { indices: i, values: v } = r.x;
      const refused = (what: string, f: () => unknown) => {
        let message = "";
        try {
          f();
        } catch (e) {
          assert(e instanceof RangeError, `${what}: ${e} is not a RangeError`);
          message = e.message;
        }
        assert(message !== "", `${what}: accepted`);
      };
      const rows: [string, SparseVector][] = [
        ["features out of order", { indices: Int32Array.of(i[1], i[0]), values: v.slice(0, 2) }],
        ["a repeated feature", { indices: Int32Array.of(i[0], i[0]), values: v.slice(0, 2) }],
        ["a negative feature", {
          indices: Int32Array.of(-1, ...i),
          values: Float32Array.of(1, ...v),
        }],
        ["a NaN value", { indices: i, values: Float32Array.from(v, (x, j) => j ? x : NaN) }],
        ["fewer values than indices", { indices: i, values: v.subarray(1) }],
      ];
      for (const [what, x] of rows) {
        refused(`predictTopK, ${what}`, () => m.predictTopK(x, 3));
        refused(`predictScores, ${what}`, () => m.predictScores(x));
      }
      for (const k of [-1, 1.5, NaN]) refused(`k = ${k}`, () => m.predictTopK(r.x, k));
      const unknown = {
        indices: Int32Array.of(...i, m.numFeatures + 5),
        values: Float32Array.of(...v, 1),
      };
      assertSameTopK(m.predictTopK(unknown, 3), m.predictTopK(r.x, 3), 0, "an unknown feature");
    });

    await step("predictionPure", "prediction never mutates the model", () => {
      const m = getTrained();
      const before = m.toState();
      // toState must be a snapshot, not live views: copy defensively for the comparison.
      const snapshot = structuredClone(before);
      for (const r of probe) {
        m.predictTopK(r.x, 5);
        m.predictScores(r.x);
      }
      const diff = stateDifference(snapshot, m.toState());
      assert(diff === undefined, `prediction changed the model: ${diff}`);
    });

    await step("topkMatchesScores", "predictTopK agrees with predictScores", () => {
      const m = getTrained();
      for (const r of probe) {
        const s = m.predictScores(r.x);
        assert(s.length === m.numLabels, `predictScores length ${s.length} vs ${m.numLabels}`);
        const order = Array.from(s.keys()).sort((a, b) => s[b] - s[a] || a - b).slice(0, 5);
        const top = m.predictTopK(r.x, 5);
        assert(top.labels.length === Math.min(5, m.numLabels), "top-k length");
        assertSameTopK(top, { labels: order, scores: order.map((l) => s[l]) }, tol, "top-k");
      }
    });

    await step("newLabels", "new labels mid-stream grow the model and are learned", () => {
      const hidden = 2; // the last two labels appear only in the second half of the stream
      const known = data.numLabels - hidden;
      const m = create(3, data.numFeatures, known);
      const early = data.rows.filter((r) => r.labels.every((l) => l < known));
      train(m, { ...data, rows: early }, 1, data.numFeatures, known);
      assert(m.numLabels === known, `numLabels ${m.numLabels}, expected ${known}`);
      train(m, data, epochs);
      assert(m.numLabels === data.numLabels, `numLabels ${m.numLabels} did not grow`);
      const newLabel = data.numLabels - 1;
      const rows = data.rows.filter((r) => r.labels.length === 1 && r.labels[0] === newLabel);
      assert(rows.length > 0, "planted data has rows of the new label");
      let hits = 0;
      for (const r of rows) if (m.predictTopK(r.x, 3).labels.includes(newLabel)) hits++;
      assert(hits / rows.length >= 0.5, `new label in top-3 for ${hits}/${rows.length} rows`);
    });

    await step(
      "newFeatures",
      "new features mid-stream grow the model; unknown ones are ignored",
      () => {
        const extra = 16; // the noise block appears only later
        const narrow = data.numFeatures - extra;
        const m = create(4, narrow, data.numLabels);
        const stripped = data.rows.map((r) => {
          const keep = r.x.indices.findIndex((j) => j >= narrow);
          const n = keep < 0 ? r.x.indices.length : keep;
          return {
            x: { indices: r.x.indices.slice(0, n), values: r.x.values.slice(0, n) },
            labels: r.labels,
          };
        });
        train(m, { ...data, rows: stripped }, 1, narrow, data.numLabels);
        assert(m.numFeatures === narrow, `numFeatures ${m.numFeatures}, expected ${narrow}`);
        train(m, data, 1);
        assert(m.numFeatures === data.numFeatures, `numFeatures ${m.numFeatures} did not grow`);
        const r = data.rows[0];
        const far = data.numFeatures + 100;
        const widened: SparseVector = {
          indices: Int32Array.from([...r.x.indices, far]),
          values: Float32Array.from([...r.x.values, 1]),
        };
        assertSameTopK(m.predictTopK(widened, 5), m.predictTopK(r.x, 5), tol, "unknown feature");
      },
    );

    await step("saveLoad", "toModelFile → SDK loadModel gives the same top-k", () => {
      const m = getTrained();
      const sdk = loadModel(m.toModelFile());
      assert(sdk.numLabels === m.numLabels, `SDK numLabels ${sdk.numLabels} vs ${m.numLabels}`);
      for (const r of probe) {
        assertSameTopK(sdk.predictTopK(r.x, 5), m.predictTopK(r.x, 5), tol, "SDK vs trainer");
      }
    });

    await step(
      "restore",
      "restore(toState()) predicts and learns exactly like the original",
      () => {
        const a = create(5);
        train(a, data, 1);
        const b = factory.restore(structuredClone(a.toState()));
        for (const r of probe) {
          assertSameTopK(
            b.predictTopK(r.x, 5),
            a.predictTopK(r.x, 5),
            0,
            "restored",
          );
        }
        for (const batch of batches(data, bs)) {
          a.learnMany(batch);
          b.learnMany(batch);
        }
        const diff = stateDifference(a.toState(), b.toState());
        assert(diff === undefined, `restored model diverged: ${diff}`);
      },
    );

    const hasReplica = typeof create(0).toReplicaState === "function";
    await t.step({
      name: "a replica (restore of toReplicaState()) predicts exactly like the model",
      ignore: skip.replica !== undefined || !hasReplica,
      fn() {
        const a = create(6);
        train(a, data, 1);
        const full = a.toState(), state = a.toReplicaState!();
        const size = (st: ModelState) =>
          Object.values(st.tensors).reduce((n, x) => n + x.byteLength, 0);
        assert(size(state) <= size(full), `replica ${size(state)} B > state ${size(full)} B`);
        const r = factory.restore(structuredClone(state), { adopt: true });
        assert(r.numFeatures === a.numFeatures && r.numLabels === a.numLabels, "sizes");
        const far = data.numFeatures + 100;
        const rows = probe.map((p) => p.x).concat({
          indices: Int32Array.of(0, far),
          values: Float32Array.of(1, 1),
        });
        const before = rows.map((x) => a.predictScores(x).join());
        rows.forEach((x, i) => assert(r.predictScores(x).join() === before[i], `row ${i}`));
        assert(
          sameBytes(r.toModelFile({ quantize: "f32" }), a.toModelFile({ quantize: "f32" })),
          "the replica's model file differs from the model's",
        );
        // the replica owns its arrays: the model learning on leaves it as it was
        for (const b of batches(data, bs)) a.learnMany(b);
        rows.forEach((x, i) => assert(r.predictScores(x).join() === before[i], `moved ${i}`));
      },
    });

    await step(
      "learnOneIsMany",
      "learnOne on a sequence gives the model of learnMany on minibatches of one row",
      () => {
        const a = create(14, 0, 0), b = create(14, 0, 0);
        for (const r of data.rows.slice(0, 48)) {
          a.learnOne(r.x, r.labels);
          const d = r.x.indices.length ? r.x.indices[r.x.indices.length - 1] + 1 : 0;
          const l = r.labels.length ? r.labels[r.labels.length - 1] + 1 : 0;
          b.learnMany(makeBatch([r], d, l));
        }
        const diff = stateDifference(structuredClone(a.toState()), structuredClone(b.toState()));
        assert(diff === undefined, `learnOne vs learnMany of one row: ${diff}`);
      },
    );

    await step(
      "restoreAfterGrowth",
      "restore(toState()) after features and labels grew mid-stream is the same model",
      () => {
        // starts with 6 labels and the label-owned features only; the noise block and the last
        // two labels arrive mid-stream
        const known = data.numLabels - 2, narrow = 3 * known;
        const early = data.rows.filter((r) => r.labels.every((l) => l < known)).map((r) => {
          const n = r.x.indices.findIndex((j) => j >= narrow);
          const keep = n < 0 ? r.x.indices.length : n;
          return {
            x: { indices: r.x.indices.slice(0, keep), values: r.x.values.slice(0, keep) },
            labels: r.labels,
          };
        });
        const a = create(15, narrow, known);
        train(a, { ...data, rows: early }, 1, narrow, known);
        train(a, { ...data, rows: data.rows.slice(0, 96) }, 1);
        assert(
          a.numFeatures === data.numFeatures && a.numLabels === data.numLabels,
          `sizes ${a.numFeatures} × ${a.numLabels} did not grow`,
        );
        const b = factory.restore(structuredClone(a.toState()));
        assert(b.numFeatures === a.numFeatures && b.numLabels === a.numLabels, "restored sizes");
        let diff = stateDifference(structuredClone(a.toState()), structuredClone(b.toState()));
        assert(diff === undefined, `toState of the restored model: ${diff}`);
        const file = (m: Estimator) => thrown(() => m.toModelFile()) || m.toModelFile();
        const fa = file(a), fb = file(b);
        assert(
          typeof fa === "string" ? fa === fb : typeof fb !== "string" && sameBytes(fa, fb),
          "the restored model writes another model file",
        );
        for (const r of probe) {
          const x = withFeature(r.x, data.numFeatures + 7);
          assert(
            a.predictScores(x).join() === b.predictScores(x).join(),
            "restored scores differ",
          );
          assertSameTopK(b.predictTopK(x, 5), a.predictTopK(x, 5), 0, "restored top-k");
        }
        // both grow on alike: a new feature and a new label after the restore
        const grown = data.rows.slice(96, 160).map((r, i) =>
          i % 8 === 0
            ? {
              x: withFeature(r.x, data.numFeatures + 1),
              labels: Int32Array.of(...r.labels, data.numLabels),
            }
            : r
        );
        for (const m of [a, b]) {
          train(m, { ...data, rows: grown }, 1, data.numFeatures + 2, data.numLabels + 1);
        }
        assert(
          b.numFeatures === data.numFeatures + 2 && b.numLabels === data.numLabels + 1,
          `restored model's sizes ${b.numFeatures} × ${b.numLabels} after growing`,
        );
        diff = stateDifference(structuredClone(a.toState()), structuredClone(b.toState()));
        assert(diff === undefined, `restored model grew otherwise: ${diff}`);
      },
    );

    await step(
      "topkAnyK",
      "predictTopK(k) is the head of the full ranking for every k; a feature past numFeatures is ignored",
      () => {
        const m = getTrained();
        const L = m.numLabels;
        for (const r of probe.slice(0, 6)) {
          const full = ranking(m, r.x);
          assert(
            m.predictScores(withFeature(r.x, L + m.numFeatures)).join() ===
              m.predictScores(r.x).join(),
            "a feature past numFeatures changed the scores",
          );
          for (const k of [0, ...Array.from({ length: L }, (_, i) => i + 1), L + 1, 3 * L + 5]) {
            const top = m.predictTopK(r.x, k);
            assert(
              top.labels.length === Math.min(k, L) && top.scores.length === top.labels.length,
              `k = ${k}: ${top.labels.length} labels and ${top.scores.length} scores, ` +
                `expected ${Math.min(k, L)}`,
            );
            assert(new Set(top.labels).size === top.labels.length, `k = ${k}: repeated labels`);
            assertSameTopK(top, head(full, k), tol, `k = ${k} vs the ranking`);
          }
        }
      },
    );

    // a model without a model file (skip.saveLoad) has no file top-k either
    await t.step({
      name:
        "the model file's top-k is the trainer's for every k; a feature past numFeatures is ignored",
      ignore: skip.fileTopK !== undefined || skip.saveLoad !== undefined,
      fn() {
        const m = getTrained();
        const sdk = loadModel(m.toModelFile());
        const L = m.numLabels;
        for (const r of probe.slice(0, 6)) {
          for (const x of [r.x, withFeature(r.x, m.numFeatures), withFeature(r.x, 1 << 20)]) {
            for (let k = 0; k <= L + 2; k++) {
              assertSameTopK(sdk.predictTopK(x, k), m.predictTopK(x, k), tol, `SDK, k = ${k}`);
            }
          }
        }
      },
    });

    await step("stringSettings", "settings given as strings give the model of typed values", () => {
      const typed: Record<string, unknown> = {
        ...options.createOptions,
        seed: 17,
        numFeatures: data.numFeatures,
        numLabels: data.numLabels,
      };
      // every declared setting, at its value for these options, spelled out
      const all = factory.settings ? { ...factory.settings.resolve(typed) } : typed;
      const strings = Object.fromEntries(
        Object.entries(all).map(([k, v]) => [k, typeof v === "object" ? v : String(v)]),
      );
      const few = { ...data, rows: data.rows.slice(0, 64) };
      const models = [typed, all, strings].map((o) => {
        const m = factory.create(o as Parameters<EstimatorFactory["create"]>[0]);
        train(m, few, 1);
        return structuredClone(m.toState());
      });
      let diff = stateDifference(models[0], models[1]);
      assert(diff === undefined, `the defaults given explicitly gave another model: ${diff}`);
      diff = stateDifference(models[1], models[2]);
      assert(diff === undefined, `settings as strings gave another model: ${diff}`);
    });

    await step("unknownSetting", "an unknown setting is refused by create, naming it", () => {
      for (const value of [1, "1", true]) {
        const message = thrown(() =>
          factory.create({ ...options.createOptions, seed: 1, notASetting: value })
        );
        assert(
          message.startsWith("TypeError") && message.includes("notASetting"),
          `create with notASetting = ${JSON.stringify(value)}: "${message}"`,
        );
      }
    });

    await step(
      "stateCopies",
      "toState and restore copy: neither the model nor the state sees the other's changes",
      () => {
        const m = create(18);
        train(m, { ...data, rows: data.rows.slice(0, 64) }, 1);
        const given = m.toState(), kept = structuredClone(given);
        const r = factory.restore(given);
        train(m, { ...data, rows: data.rows.slice(64, 128) }, 1);
        let diff = stateDifference(kept, given);
        assert(diff === undefined, `learning changed an earlier toState(): ${diff}`);
        const now = structuredClone(m.toState());
        for (const st of [m.toState(), given]) {
          for (const t of Object.values(st.tensors)) t.fill(3);
        }
        diff = stateDifference(now, structuredClone(m.toState()));
        assert(diff === undefined, `writing into toState()'s arrays changed the model: ${diff}`);
        diff = stateDifference(kept, structuredClone(r.toState()));
        assert(diff === undefined, `writing into the restored state changed the model: ${diff}`);
      },
    );

    await step(
      "seedProcesses",
      "the same seed gives the same bytes (state and model file) in another process",
      async () => {
        const url = new URL(`../../src/models/${factory.kind}/mod.ts`, import.meta.url).href;
        const mod = await import(url) as Record<string, unknown>;
        const exported = Object.keys(mod).find((k) => mod[k] === factory);
        assert(exported !== undefined, `${url} does not export this factory`);
        // this process and another one train the same model and digest its state and file
        const job = {
          checks: import.meta.url,
          module: url,
          exported,
          options: { ...options.createOptions, seed: 11 },
          batchSize: bs,
        };
        const here = create(11);
        for (const b of batches(data, bs)) here.learnMany(b);
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["eval", "--quiet", SEED_CHILD, JSON.stringify(job)],
          cwd: new URL("../../", import.meta.url),
          stdout: "piped",
          stderr: "piped",
        }).output();
        const err = new TextDecoder().decode(out.stderr);
        assert(out.success, `the other process failed: ${err}`);
        const there = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
        let file = "not exportable";
        try {
          file = await digest(here.toModelFile());
        } catch (e) {
          if (!(e instanceof TypeError)) throw e;
        }
        const mine = { state: await digest(stateBytes(here.toState())), file };
        assert(there.state === mine.state, "the state's bytes differ between two processes");
        assert(there.file === mine.file, "the model file's bytes differ between two processes");
      },
    );

    await step("seed", "the same seed gives the same model", () => {
      const a = create(11), b = create(11);
      train(a, data, 1);
      train(b, data, 1);
      const diff = stateDifference(a.toState(), b.toState());
      assert(diff === undefined, `same seed, different models: ${diff}`);
    });
  });
}
