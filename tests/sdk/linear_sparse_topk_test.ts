/**
 * The `linear-sparse` top-k that touches only a query's postings and walks the labels by
 * decreasing bias (sdk/kinds/linear_sparse.ts) gives exactly the dense answer: same labels, same
 * scores (bit for bit), same tie order, on random models with and without bias and `biasOrder`,
 * at every k; the walk stops early (counted, not timed); `linearSparseContent` writes
 * `biasOrder` and the file round-trips; the golden files answer as the dense path.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { type LabelWeights, linearSparseContent } from "../../src/models/label_weights.ts";
import { biasOrderOf } from "../../src/models/linear_sparse_file.ts";
import { decodeModel } from "../../sdk/decode.ts";
import { featurizer, type ModelInput } from "../../sdk/features.ts";
import { biasOrder, linearSparse } from "../../sdk/kinds/linear_sparse.ts";
import type { DecodedModel, SdkTensor } from "../../sdk/kinds/types.ts";
import { loadModel, type TopK } from "../../sdk/mod.ts";
import { topK, type TopKScorer } from "../../sdk/topk.ts";
import { assert, mulberry32 } from "./helpers.ts";

type Fast = TopKScorer["topK"];

/** The dense reference: every label's score in float64 (row order), all L sorted. */
function reference(m: DecodedModel, indices: Int32Array, values: Float64Array, k: number): TopK {
  const L = m.numLabels, t = m.tensors, bias = t.bias?.data, s = new Float64Array(L);
  const ptr = t.featPtr.data, idx = t.labelIdx.data, w = t.weights.data;
  for (let l = 0; l < L; l++) s[l] = bias ? bias[l] : 0;
  indices.forEach((j, p) => {
    if (j < 0 || j >= m.numFeatures) return;
    for (let e = ptr[j]; e < ptr[j + 1]; e++) s[idx[e]] += values[p] * w[e];
  });
  const key = (l: number) => s[l] === s[l] ? s[l] : -Infinity;
  const ls = Array.from({ length: L }, (_, l) => l)
    .sort((a, b) => key(b) > key(a) ? 1 : key(b) < key(a) ? -1 : a - b)
    .slice(0, k);
  return { labels: Int32Array.from(ls), scores: Float32Array.from(ls, key) };
}

function same(a: TopK, b: TopK, what: string): void {
  assert(a.labels.length === b.labels.length, `${what}: ${a.labels.length} vs ${b.labels.length}`);
  for (let i = 0; i < a.labels.length; i++) {
    assert(
      a.labels[i] === b.labels[i] && Object.is(a.scores[i], b.scores[i]),
      `${what}: #${i} ${a.labels[i]}:${a.scores[i]} vs ${b.labels[i]}:${b.scores[i]}`,
    );
  }
}

const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const WEIGHTS = [-1, -0.5, 0.25, 0.5, 1, 2, 0];
const BIASES = [-2, -1, -0.5, -0, 0, 0.5, 1, 3];

/** Random label-major weights: `density` of the (feature, label) pairs, tied values. */
function randomWeights(
  rand: () => number,
  D: number,
  L: number,
  density: number,
  bias: "none" | "tied" | "wild",
): LabelWeights {
  const ptr = [0], feat: number[] = [], vals: number[] = [];
  for (let l = 0; l < L; l++) {
    for (let j = 0; j < D; j++) {
      if (rand() < density) {
        feat.push(j);
        vals.push(rand() < 0.5 ? pick(rand, WEIGHTS) : rand() * 4 - 2);
      }
    }
    ptr.push(feat.length);
  }
  const special = [NaN, Infinity, -Infinity, -0];
  const b = bias === "none"
    ? undefined
    : Float32Array.from({ length: L }, () =>
      bias === "wild" && rand() < 0.05
        ? pick(rand, special)
        : rand() < 0.6
        ? pick(rand, BIASES)
        : rand() * 6 - 4);
  return {
    numFeatures: D,
    numLabels: L,
    labelPtr: Int32Array.from(ptr),
    featIdx: Int32Array.from(feat),
    values: Float32Array.from(vals),
    bias: b,
  };
}

/** A random row: up to `nnz` entries, duplicates and out-of-range columns included. */
function randomRow(rand: () => number, D: number, nnz: number): [Int32Array, Float64Array] {
  const n = Math.floor(rand() * (nnz + 1));
  const indices = Int32Array.from({ length: n }, () => Math.floor(rand() * (D + 4)) - 2);
  const values = Float64Array.from(
    { length: n },
    () => rand() < 0.5 ? pick(rand, [1, -1, 0.5, 0, 2]) : Math.fround(rand() * 2 - 1),
  );
  return [indices, values];
}

/** Loads `content` and checks fast = dense SDK path = reference on random rows at every k. */
function checkModel(content: ModelFileContent, rand: () => number, rowNnz: number, what: string) {
  const bytes = encodeModelFile(content);
  const model = loadModel(bytes), decoded = decodeModel(bytes);
  const scorer = linearSparse(decoded), fast: Fast = scorer.topK;
  const L = model.numLabels, D = model.numFeatures;
  const ks = [0, 1, 2, 5, 17, L - 1, L, L + 3].filter((k) => k >= 0);
  for (let q = 0; q < 25; q++) {
    const [indices, values] = q === 0 ? [new Int32Array(0), new Float64Array(0)] : randomRow(
      rand,
      D,
      rowNnz,
    );
    // predictTopK takes the row's columns in [0, D) strictly increasing (it refuses a repeated
    // or negative index), each the float32 sum of its values
    const sums = new Map<number, number>();
    indices.forEach((j, p) => j >= 0 && j < D && sums.set(j, (sums.get(j) ?? 0) + values[p]));
    const cols = Int32Array.from([...sums.keys()].sort((a, b) => a - b));
    const x = { indices: cols, values: Float64Array.from(cols, (j) => Math.fround(sums.get(j)!)) };
    for (const k of ks) {
      const want = reference(decoded, indices, values, k);
      const at = `${what}, row ${q}, k = ${k}`;
      same(
        model.predictTopK(x, k),
        reference(decoded, x.indices, x.values, k),
        `${at} (predictTopK)`,
      );
      same(fast(indices, values, k), want, `${at} (scorer topK, raw columns)`);
      same(fast(indices, values, k, false), want, `${at} (sparse path)`);
      same(fast(indices, values, k, true), want, `${at} (dense path forced)`);
      same(topK(scorer(indices, values), L, k), want, `${at} (dense path)`);
    }
  }
}

Deno.test("linear-sparse top-k: fast = dense on random models, with and without bias and biasOrder", () => {
  const rand = mulberry32(15);
  let models = 0;
  // [D, L, density, row nnz]: tiny; few labels touched (early stop); every label touched
  // (k ≥ L walks everything); wide L with few postings
  const sizes: [number, number, number, number][] = [
    [1, 1, 1, 2],
    [3, 2, 0.5, 3],
    [20, 17, 0.15, 4],
    [60, 300, 0.02, 6],
    [8, 40, 0.9, 8],
    [400, 3000, 0.0015, 10],
  ];
  for (const [D, L, density, nnz] of sizes) {
    for (const bias of ["none", "tied", "wild"] as const) {
      const w = randomWeights(rand, D, L, density, bias);
      const c = linearSparseContent(w);
      assert(!!c.tensors.biasOrder === (bias !== "none"), "biasOrder is written with a bias");
      const what = `D ${D} L ${L} bias ${bias}`;
      checkModel(c, rand, nnz, `${what} (stored order)`);
      if (bias === "none") {
        models++;
        continue;
      }
      const { biasOrder: _, ...noOrder } = c.tensors;
      checkModel({ ...c, tensors: noOrder }, rand, nnz, `${what} (order computed)`);
      // an order that is not the bias's (here reversed) is not used
      const reversed = Int32Array.from(c.tensors.biasOrder.data as Int32Array).reverse();
      const wrong = { ...c.tensors.biasOrder, data: reversed };
      if (L > 1) checkModel({ ...c, tensors: { ...c.tensors, biasOrder: wrong } }, rand, nnz, what);
      // a bias quantised after its order was computed (the stored order may not match it)
      checkModel(
        decodeModelFile(encodeModelFile(c, { quantize: "f16", keepF32: [] })),
        rand,
        nnz,
        `${what} (f16 bias)`,
      );
      models++;
    }
  }
  assert(models === 18, `${models} models`);
});

Deno.test("linear-sparse top-k: the walk stops early and reads only the row's postings", () => {
  const rand = mulberry32(7), D = 2000, L = 50_000;
  const w = randomWeights(rand, D, L, 0.0002, "wild"); // ~10 postings a feature; ±Infinity, NaN
  const c = linearSparseContent(w);
  const m = decodeModel(encodeModelFile(c));
  let reads = 0, orderReads = 0;
  const counted = <T extends object>(a: T, order = false): T =>
    new Proxy(a, {
      get: (t, p) => {
        if (typeof p === "string" && p !== "length") order ? orderReads++ : reads++;
        return Reflect.get(t, p);
      },
    });
  for (const stored of [true, false]) {
    const tensors: Record<string, SdkTensor> = {
      ...m.tensors,
      bias: { ...m.tensors.bias, data: counted(m.tensors.bias.data) },
    };
    if (stored) {
      tensors.biasOrder = { ...m.tensors.biasOrder, data: counted(m.tensors.biasOrder.data, true) };
    } else delete tensors.biasOrder;
    const decoded = { ...m, tensors };
    const scorer = linearSparse(decoded), fast: Fast = scorer.topK;
    fast(new Int32Array(0), new Float64Array(0), 5); // builds the order when the file has none
    orderReads = 0;
    for (let q = 0; q < 20; q++) {
      const [indices, values] = randomRow(rand, D, 40);
      const k = pick(rand, [1, 5, 20]);
      let touched = 0;
      const ptr = m.tensors.featPtr.data;
      for (const j of indices) if (j >= 0 && j < D) touched += ptr[j + 1] - ptr[j];
      reads = 0;
      const walked = orderReads, got = fast(indices, values, k, false);
      // bias: one read per touched label; bias and order: a few per walked label
      assert(
        reads + orderReads - walked <= 4 * (touched + k + 1),
        `stored ${stored}: ${reads} reads, ${touched} postings`,
      );
      same(got, reference(m, indices, values, k), `stored ${stored}, row ${q}`);
    }
    // the file's order is the one walked (no sort: the bias was read only by the queries)
    assert(stored === orderReads > 0, `stored ${stored}: ${orderReads} reads of biasOrder`);
  }
});

Deno.test("linear-sparse: linearSparseContent writes biasOrder, the file round-trips at version 1", () => {
  const rand = mulberry32(3);
  const w = randomWeights(rand, 30, 500, 0.05, "wild");
  const c = linearSparseContent(w);
  const order = c.tensors.biasOrder;
  assert(order.dtype === "i32" && order.shape.join() === "500", `${order.dtype} [${order.shape}]`);
  const bytes = encodeModelFile(c);
  const file = decodeModelFile(bytes);
  const sdk = decodeModel(bytes);
  assert(file.formatVersion === 1 && sdk.formatVersion === 1, "format version 1");
  const want = [...biasOrderOf(w.bias!)];
  assert([...file.tensors.biasOrder.data].join() === want.join(), "trainer reader");
  assert([...sdk.tensors.biasOrder.data].join() === want.join(), "SDK reader");
  // the SDK's own order (radix sort) is the writer's (comparison sort), ties and NaN included
  for (let t = 0; t < 20; t++) {
    const b = randomWeights(rand, 1, 1 + Math.floor(rand() * 3000), 0, "wild").bias!;
    assert(biasOrder(b).join() === biasOrderOf(b).join(), `random bias ${t}`);
  }
  // decreasing bias (NaN as -Infinity), ties by the smaller index
  const key = (l: number) => w.bias![l] === w.bias![l] ? w.bias![l] : -Infinity;
  for (let i = 1; i < want.length; i++) {
    const a = want[i - 1], b = want[i];
    assert(key(a) > key(b) || key(a) === key(b) && a < b, `order at ${i}: ${a} then ${b}`);
  }
  const { bias: _, ...noBias } = w;
  assert(!linearSparseContent(noBias).tensors.biasOrder, "no bias, no order");
});

Deno.test("linear-sparse: the golden files answer as the dense path at every k", async () => {
  const fixtures = new URL("../fixtures/", import.meta.url);
  const expected = JSON.parse(await Deno.readTextFile(new URL("expected.json", fixtures)));
  let n = 0;
  for (const [name, probes] of Object.entries(expected.good)) {
    if (!name.includes("linear-sparse")) continue;
    const bytes = await Deno.readFile(new URL(name, fixtures));
    const model = loadModel(bytes), decoded = decodeModel(bytes);
    assert(!decoded.tensors.biasOrder, `${name} predates biasOrder`);
    const scorer = linearSparse(decoded), L = model.numLabels;
    const rows = featurizer(decoded);
    for (const p of probes as { input: ModelInput }[]) {
      const [indices, values] = rows(p.input);
      for (let k = 0; k <= L + 1; k++) {
        const at = `${name}, ${JSON.stringify(p.input)}, k = ${k}`;
        same(model.predictTopK(p.input, k), topK(scorer(indices, values), L, k), at);
        same(model.predictTopK(p.input, k), reference(decoded, indices, values, k), at);
        n++;
      }
    }
    // the dense scorer and the fast top-k agree on raw rows over the file's columns
    const rand = mulberry32(name.length), fast: Fast = scorer.topK;
    for (let q = 0; q < 50; q++) {
      const [indices, values] = randomRow(rand, model.numFeatures, 4);
      for (let k = 0; k <= L + 1; k++) {
        const want = reference(decoded, indices, values, k);
        same(fast(indices, values, k, false), want, `${name} row ${q}`);
        same(topK(scorer(indices, values), L, k), want, `${name} row ${q} (dense)`);
      }
    }
  }
  assert(n > 20, `${n} checks`);
});
