/**
 * `toPrincipalAxes` (src/models/sleec/principal_axes.ts): the turned model answers as the model
 * did (same neighbours, scores within float rounding), its points' energy comes first coordinate
 * by coordinate, norms are kept, quantised points keep their type, tiny clusters and the input
 * are left alone.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import { dequantize } from "../../src/format/quantize.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { knnModelContent } from "../../src/models/sleec/model_file.ts";
import { toPrincipalAxes } from "../../src/models/sleec/principal_axes.ts";
import type { KnnModel } from "../../src/models/sleec/predictor.ts";
import { loadModel, type SparseInput } from "../../sdk/mod.ts";
import { assert } from "../sdk/helpers.ts";
import { mulberry32 } from "../mulberry32.ts";

/** Points whose energy lies in a few random directions (not the axes), and random queries. */
function model(seed: number, sizes: number[]) {
  const rand = mulberry32(seed), g = () => rand() - 0.5, r = 10, D = 8, L = 60;
  const dirs = Array.from({ length: 3 }, () => Float32Array.from({ length: r }, g));
  const clusters = sizes.map((n, c) => {
    const points = new Float32Array(n * r);
    for (let p = 0; p < n; p++) {
      const w = [2 * g(), g(), 0.5 * g()];
      for (let a = 0; a < r; a++) {
        points[p * r + a] = w[0] * dirs[0][a] + w[1] * dirs[1][a] + w[2] * dirs[2][a] +
          0.05 * g();
      }
      const s = Math.hypot(...points.subarray(p * r, p * r + r));
      for (let a = 0; a < r; a++) points[p * r + a] /= s;
    }
    return {
      learner: 0,
      centroid: Float32Array.from({ length: D }, (_, j) => +(j === c)),
      v: Float32Array.from({ length: D * r }, g),
      numPoints: n,
      points,
      labels: Array.from({ length: n }, () => Int32Array.of(Math.floor(rand() * L))),
    };
  });
  const m: KnnModel = {
    numFeatures: D,
    numLabels: L,
    rank: r,
    numLearners: 1,
    k: 6,
    weighted: true,
    clusters,
  };
  const queries = Array.from({ length: 40 }, (): SparseInput => {
    const indices = [0, 1, 2, 3, 4, 5, 6, 7];
    return { indices, values: indices.map(() => g()) };
  });
  return { m, queries, r };
}

const copyOf = (c: ModelFileContent) =>
  Object.entries(c.tensors).map(([name, t]) => [name, Array.from(t.data as Float32Array)]);

Deno.test("principal axes: the same neighbours and scores, energy first, norms kept", () => {
  const { m, queries, r } = model(3, [300, 250, 1]);
  const plain = knnModelContent(m), before = JSON.stringify(copyOf(plain));
  const turned = toPrincipalAxes(plain);
  assert(JSON.stringify(copyOf(plain)) === before, "the input content was modified");
  const a = loadModel(encodeModelFile(plain)), b = loadModel(encodeModelFile(turned));
  let moved = 0;
  for (const x of queries) {
    const want = a.predictTopK(x, 10), got = b.predictTopK(x, 10);
    assert(String(got.labels) === String(want.labels), `labels ${got.labels} vs ${want.labels}`);
    got.scores.forEach((s, i) => {
      assert(Math.abs(s - want.scores[i]) <= 1e-5, `score ${s} vs ${want.scores[i]}`);
    });
  }
  const p0 = plain.tensors.points.data as Float32Array, p1 = turned.tensors.points.data;
  const ptr = plain.tensors.pointPtr.data as Int32Array;
  for (let c = 0; c < 2; c++) {
    const energy = new Float64Array(r);
    for (let p = ptr[c]; p < ptr[c + 1]; p++) {
      let n0 = 0, n1 = 0;
      for (let i = 0; i < r; i++) {
        energy[i] += p1[p * r + i] ** 2;
        n0 += p0[p * r + i] ** 2;
        n1 += p1[p * r + i] ** 2;
        moved += Math.abs(p1[p * r + i] - p0[p * r + i]);
      }
      assert(Math.abs(n0 - n1) < 1e-5, `point ${p}: norm² ${n0} became ${n1}`);
    }
    for (let i = 1; i < r; i++) {
      assert(energy[i] <= energy[i - 1] * (1 + 1e-6), `cluster ${c}: energy rises at ${i}`);
    }
    assert(
      energy[0] + energy[1] + energy[2] > 0.98 * (ptr[c + 1] - ptr[c]),
      `3 axes hold it: ${energy}`,
    );
  }
  assert(moved > 1, "the points were not turned");
  const last = ptr[2] * r;
  assert(
    String(p1.subarray(last, last + r)) === String(p0.subarray(last, last + r)),
    "a cluster of one point is left as it is",
  );
});

Deno.test("principal axes: quantised points keep their type", () => {
  const { m, queries } = model(4, [200, 200]);
  for (const quantize of ["f16", "i8"] as const) {
    const plain = knnModelContent(m, { quantize }), turned = toPrincipalAxes(plain);
    const t = turned.tensors.points;
    assert(t.dtype === quantize, `${quantize}: points became ${t.dtype}`);
    if (quantize === "i8") {
      assert(t.scale instanceof Float32Array && t.scale.length === 400, "a scale per row");
    }
    const a = loadModel(encodeModelFile(plain)), b = loadModel(encodeModelFile(turned));
    let agree = 0;
    for (const x of queries) {
      const want = new Set(a.predictTopK(x, 5).labels);
      agree += b.predictTopK(x, 5).labels.filter((l) => want.has(l)).length / 5;
    }
    assert(agree / queries.length >= 0.9, `${quantize}: top-5 agreement ${agree / queries.length}`);
    const d0 = dequantize(plain.tensors.points), d1 = dequantize(t);
    assert(d0.some((v, i) => Math.abs(v - d1[i]) > 1e-3), `${quantize}: not turned`);
  }
});
