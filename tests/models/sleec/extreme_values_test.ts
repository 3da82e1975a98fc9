/**
 * SLEEC on extreme but finite feature values. SLEEC L2-normalises every row (after the IDF
 * weights with `featureWeighting: "tfidf"`), so a row at 1e30, at 3e38 or of denormals must be
 * learned and answered as the same row at 1: finite state, the same ranking, and the SDK answering
 * the trainer's file as the trainer does.
 */
import { SleecStream, trainSleec } from "../../../src/models/sleec/mod.ts";
import type { SleecModel } from "../../../src/models/sleec/batch.ts";
import type { SleecConfig } from "../../../src/models/sleec/config.ts";
import type { Estimator } from "../../../src/models/estimator.ts";
import { preprocessRows } from "../../../src/data/preprocess.ts";
import { inverseDocumentFrequency } from "../../../src/data/inverse_document_frequency.ts";
import type { Batch, SparseVector } from "../../../src/data/types.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert } from "../../helpers.ts";
import { nonFiniteTensors, TOY_LABELS, toyBatch, toyMisses, toyQuery } from "../extreme_rows.ts";

/** The toy batches `0 .. count − 1` at `magnitude` as one training set. */
function toySet(magnitude: number, mixed: boolean, count = 6): Batch {
  const bs = Array.from({ length: count }, (_, b) => toyBatch(b, magnitude, mixed));
  const xp = [0], xi: number[] = [], xv: number[] = [], yp = [0], yi: number[] = [];
  for (const { x, y } of bs) {
    for (let i = 0; i < x.numRows; i++) {
      for (let p = x.indptr[i]; p < x.indptr[i + 1]; p++) {
        xi.push(x.indices[p]), xv.push(x.values[p]);
      }
      for (let p = y.indptr[i]; p < y.indptr[i + 1]; p++) yi.push(y.indices[p]);
      xp.push(xi.length), yp.push(yi.length);
    }
  }
  return {
    x: {
      numRows: xp.length - 1,
      numCols: bs[0].x.numCols,
      indptr: Int32Array.from(xp),
      indices: Int32Array.from(xi),
      values: Float32Array.from(xv),
    },
    y: {
      numRows: yp.length - 1,
      numCols: TOY_LABELS,
      indptr: Int32Array.from(yp),
      indices: Int32Array.from(yi),
    },
  };
}

type Ranker = {
  predictTopK(x: SparseVector, k: number): { labels: Int32Array; scores: Float32Array };
};

/** Queries whose top 3 at `magnitude` differ from the same query's at 1, or are not finite. */
function scaleMisses(m: Ranker, magnitude: number, mixed: boolean): string[] {
  const out: string[] = [];
  for (let c = 0; c < TOY_LABELS; c++) {
    const a = m.predictTopK(toyQuery(c, magnitude, mixed), 3);
    const b = m.predictTopK(toyQuery(c, 1, mixed), 3);
    if (`${a.labels}` !== `${b.labels}` || !a.scores.every(Number.isFinite)) {
      out.push(
        `label ${c}: ${[...a.labels]} (${[...a.scores]}) at ${magnitude}, ${[...b.labels]} at 1`,
      );
    }
  }
  return out;
}

/** Queries the SDK ranks (at `magnitude`) otherwise than the trainer, or scores apart. */
function sdkMisses(m: Ranker, edge: Ranker, magnitude: number, mixed: boolean): string[] {
  const out: string[] = [];
  for (let c = 0; c < TOY_LABELS; c++) {
    const q = toyQuery(c, magnitude, mixed);
    const a = m.predictTopK(q, 3), b = edge.predictTopK(q, 3);
    if (
      `${a.labels}` !== `${b.labels}` || a.scores.some((s, i) => Math.abs(s - b.scores[i]) > 1e-5)
    ) {
      out.push(
        `label ${c}: trainer ${[...a.labels]} (${[...a.scores]}), SDK ${[...b.labels]} (${[
          ...b.scores,
        ]})`,
      );
    }
  }
  return out;
}

function finiteModel(m: SleecModel, what: string): void {
  for (const [i, c] of m.knn.clusters.entries()) {
    for (const [name, t] of [["V", c.v], ["points", c.points], ["centroid", c.centroid]] as const) {
      assert(t.every(Number.isFinite), `${what}: cluster ${i} has a non-finite ${name}`);
    }
  }
}

const CASES = [
  [1e10, false],
  [1e20, true],
  [1e30, false],
  [1e30, true],
  [2.2e38, false],
  [
    2.2e38,
    true,
  ],
  [1e-30, true],
  [1e-44, false],
] as const;

Deno.test("sleec batch: raw values from denormals to 3e38 give finite clusters, the toy labels first, the ranking of the row at 1, and the SDK's answers", () => {
  const all: Partial<SleecConfig>[] = [{}, { numLearners: 2, numClusters: 2 }, {
    featureWeighting: "tfidf",
  }];
  for (const options of all) {
    for (const [magnitude, mixed] of CASES) {
      const what = `${JSON.stringify(options)} at ${mixed ? "±" : ""}${magnitude}`;
      const data = toySet(magnitude, mixed);
      const m = trainSleec(data.x, data.y, { rank: 4, k: 5, seed: 1, ...options });
      finiteModel(m, what); // with TF-IDF at 3e38: NaN points and centroids
      const misses = toyMisses(m, magnitude, mixed);
      assert(misses.length === 0, `${what}: ${misses.join("; ")}`);
      const scaled = scaleMisses(m, magnitude, mixed);
      assert(scaled.length === 0, `${what}: ${scaled.join("; ")}`);
      const edge = loadModel(m.toModelFile());
      // the SDK weighs a query whose IDF-weighted values overflow as the trainer does
      for (const q of [1, magnitude]) {
        const sdk = sdkMisses(m, edge, q, mixed);
        assert(sdk.length === 0, `${what}, query at ${q}: ${sdk.join("; ")}`);
      }
    }
  }
});

Deno.test("sleec batch tfidf: a query whose IDF-weighted values overflow a float32 ranks like the same query at 1", () => {
  for (const mixed of [false, true]) {
    const data = toySet(1, mixed);
    const m = trainSleec(data.x, data.y, { rank: 4, k: 5, seed: 1, featureWeighting: "tfidf" });
    assert(m.idf!.some((w) => w * 2.2e38 * 1.5 > 3.4028234663852886e38), "no weight overflows");
    // before: every label scored 0 (the weighted row's norm was Infinity, its values NaN)
    const scaled = scaleMisses(m, 2.2e38, mixed);
    assert(scaled.length === 0, scaled.join("; "));
    for (let c = 0; c < TOY_LABELS; c++) {
      const a = m.predictScores(toyQuery(c, 2.2e38, mixed));
      const b = m.predictScores(toyQuery(c, 1, mixed));
      assert(a.every((s, l) => Math.abs(s - b[l]) <= 1e-6), `label ${c}: ${[...a]} vs ${[...b]}`);
    }
    // the file read back (SleecModel.fromModelFile is the trainer's reader) answers alike
    const back = (m.constructor as typeof SleecModel).fromModelFile(m.toModelFile());
    assert(scaleMisses(back, 2.2e38, mixed).length === 0, "read back");
  }
});

Deno.test("sleec batch tfidf: rows mixing 3e38 and denormal values train like the rows scaled to 1", () => {
  const data = toySet(1, true);
  const huge = structuredClone(data);
  // every third value denormal, the others 1e38 times larger (up to 1.5e38)
  huge.x.values.forEach((v, p, a) => a[p] = p % 3 === 1 ? Math.sign(v) * 1e-44 : v * 1e38);
  const m = trainSleec(huge.x, huge.y, { rank: 4, k: 5, seed: 1, featureWeighting: "tfidf" });
  finiteModel(m, "mixed rows");
  // the rows' directions: the denormal entries vanish next to the others, as they do at 1e-82
  const unit = structuredClone(huge);
  unit.x.values.forEach((v, p, a) => a[p] = p % 3 === 1 ? 0 : v / 1e38);
  const ref = trainSleec(unit.x, unit.y, { rank: 4, k: 5, seed: 1, featureWeighting: "tfidf" });
  for (let c = 0; c < TOY_LABELS; c++) {
    const q = toyQuery(c, 1, true);
    const a = m.predictTopK(q, 3), b = ref.predictTopK(q, 3);
    assert(
      a.labels[0] === b.labels[0] && a.labels[0] === c,
      `label ${c}: ${[...a.labels]} vs ${[...b.labels]}`,
    );
  }
});

Deno.test("preprocessRows with TF-IDF and L2: only rows that overflow are scaled, to the same unit row", () => {
  for (const magnitude of [1, 1e30, 1e-44]) {
    const data = toySet(magnitude, true);
    const idf = inverseDocumentFrequency(data.x);
    // the plain weighting, as before: fround(v · idf), then the unit row
    const plain = preprocessRows(data.x, { tfidf: true, idf });
    const unit = preprocessRows(plain, { l2Normalize: true });
    const both = preprocessRows(data.x, { tfidf: true, idf, l2Normalize: true });
    assert(both.values.every((v, p) => Object.is(v, unit.values[p])), `${magnitude}: changed`);
  }
  const data = toySet(2.2e38, true), copy = data.x.values.slice();
  const idf = inverseDocumentFrequency(data.x);
  const both = preprocessRows(data.x, { tfidf: true, idf, l2Normalize: true });
  assert(copy.every((v, i) => Object.is(v, data.x.values[i])), "input mutated");
  // the rows at 2.2e38 weigh into the unit rows of the same rows at 1
  const ref = preprocessRows(toySet(1, true).x, { tfidf: true, idf, l2Normalize: true });
  assert(both.values.every((v, p) => Math.abs(v - ref.values[p]) <= 1e-6), "not the unit rows");
});

Deno.test("sleec stream: raw values from denormals to 3e38 keep the state finite, the toy labels first and the SDK's answers", () => {
  for (const options of [{}, { numClusters: 2, numLearners: 2 }, { reembedEvery: 2 }]) {
    for (const [magnitude, mixed] of CASES) {
      const what = `${JSON.stringify(options)} at ${mixed ? "±" : ""}${magnitude}`;
      const m = new SleecStream({
        rank: 4,
        k: 5,
        seed: 1,
        firstRefresh: 32,
        refreshEvery: 64,
        ...options,
      });
      for (let b = 0; b < 8; b++) m.learnMany(toyBatch(b, magnitude, mixed));
      const bad = nonFiniteTensors(m.toState());
      assert(bad.length === 0, `${what}: non-finite state tensors ${bad}`);
      assert(
        (m as Estimator).learnRefusal === undefined,
        "SLEEC normalises every row: nothing to refuse",
      );
      const misses = toyMisses(m, magnitude, mixed);
      assert(misses.length === 0, `${what}: ${misses.join("; ")}`);
      const scaled = scaleMisses(m, magnitude, mixed);
      assert(scaled.length === 0, `${what}: ${scaled.join("; ")}`);
      const sdk = sdkMisses(m, loadModel(m.toModelFile()), magnitude, mixed);
      assert(sdk.length === 0, `${what}: ${sdk.join("; ")}`);
    }
  }
});
