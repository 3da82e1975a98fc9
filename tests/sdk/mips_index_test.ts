/**
 * The label index of `linear-lowrank` and `random-features` files (src/linalg/mips_index.ts
 * writes it, sdk/kinds/mips_index.ts probes it): on random models large enough to have many
 * clusters, the probed answer's scores are the exact scores, more probes never give a worse
 * k-th score, all clusters probed give the dense answer bit for bit, `exact: true` is the
 * answer of the same file without the index (today's dense path), the writers add the index from
 * 4096 labels without raising the format version, golden files answer as before, and a broken
 * index is refused as `corrupt`.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { withLabelIndex } from "../../src/linalg/mips_index.ts";
import { predictorFileContent } from "../../src/models/coembed/learner.ts";
import { LowRankScorer } from "../../src/models/leml/lowrank.ts";
import { decodeModel } from "../../sdk/decode.ts";
import { featurizer, type SparseInput } from "../../sdk/features.ts";
import { KINDS } from "../../sdk/kinds/mod.ts";
import { loadModel, ModelFormatError, type TopK } from "../../sdk/mod.ts";
import { topK } from "../../sdk/topk.ts";
import { assert, mulberry32 } from "./helpers.ts";

/** A random `linear-lowrank` content with some topic structure, indexed with `clusters`. */
function lowrank(L: number, D: number, r: number, seed: number, clusters: number) {
  const rand = mulberry32(seed), g = () => rand() - 0.5;
  const topics = Array.from({ length: 12 }, () => Float32Array.from({ length: r }, g));
  const H = new Float32Array(L * r);
  for (let l = 0; l < L; l++) {
    const t = topics[l % 12];
    for (let a = 0; a < r; a++) H[l * r + a] = t[a] + 0.3 * g();
  }
  const content: ModelFileContent = {
    kind: "linear-lowrank",
    numFeatures: D,
    numLabels: L,
    params: { rank: r },
    tensors: {
      W: { dtype: "f32", shape: [D, r], data: Float32Array.from({ length: D * r }, g) },
      H: { dtype: "f32", shape: [L, r], data: H },
      bias: { dtype: "f32", shape: [L], data: Float32Array.from({ length: L }, g) },
    },
  };
  return withLabelIndex(content, "H", { minLabels: 0, clusters, seed });
}

function rows(D: number, n: number, seed: number): SparseInput[] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const indices = [...new Set(Array.from({ length: 6 }, () => Math.floor(rand() * D)))].sort((
      a,
      b,
    ) => a - b);
    return { indices, values: indices.map(() => rand() * 2) };
  });
}

const same = (a: TopK, b: TopK) =>
  a.labels.length === b.labels.length &&
  a.labels.every((l, i) => l === b.labels[i] && Object.is(a.scores[i], b.scores[i]));

/** Every label's score and the dense top k (today's path: the kind's scorer, then `topK`). */
function denseOf(bytes: Uint8Array) {
  const m = decodeModel(bytes), scorer = KINDS[m.kind](m), prep = featurizer(m);
  return (x: SparseInput, k: number) => {
    const all = scorer(...prep(x));
    return { all: Float32Array.from(all), top: topK(all, m.numLabels, k) };
  };
}

function withoutIndex(c: ModelFileContent): ModelFileContent {
  const { mipsCentroids: _a, mipsOrder: _b, mipsPtr: _c, ...tensors } = c.tensors;
  const { mipsProbes: _p, ...params } = c.params;
  return { ...c, params, tensors };
}

/** The checks shared by both kinds on one indexed content. */
function checkIndexed(content: ModelFileContent, queries: SparseInput[]) {
  const bytes = encodeModelFile(content), model = loadModel(bytes), dense = denseOf(bytes);
  const plain = loadModel(encodeModelFile(withoutIndex(content)));
  const C = content.tensors.mipsPtr.shape[0] - 1, def = content.params.mipsProbes as number;
  assert(C > 8 && def >= 1 && def <= C, `clusters ${C}, probes ${def}`);
  let hits = 0, approximate = 0, atDef = 0, atTwice = 0;
  for (const x of queries) {
    for (const k of [1, 5, 17]) {
      const { all, top } = dense(x, k);
      // exact: true and the index-free file are today's dense answer
      assert(same(model.predictTopK(x, k, { exact: true }), top), "exact: true differs");
      assert(same(plain.predictTopK(x, k), top), "file without index differs");
      // every cluster probed: the dense answer bit for bit
      assert(same(model.predictTopK(x, k, { probes: C }), top), "all probes differ");
      let prev: TopK | undefined;
      const list = [...new Set([1, 2, 4, def, 2 * def, Math.ceil(C / 2)])].sort((a, b) => a - b);
      for (const probes of list) {
        const a = model.predictTopK(x, k, { probes }), want = new Set(top.labels);
        const found = a.labels.filter((l) => want.has(l)).length / top.labels.length;
        if (probes === def) atDef += found;
        if (probes === 2 * def) atTwice += found;
        a.labels.forEach((l, i) => {
          assert(Object.is(a.scores[i], all[l]), `probes ${probes}: score of ${l} not exact`);
          assert(
            i === 0 || a.scores[i - 1] > a.scores[i] ||
              a.scores[i - 1] === a.scores[i] && a.labels[i - 1] < l,
            `order ${probes} ${a.labels} ${a.scores}`,
          );
        });
        // more probes (up to the default, the groups probed are the file's): more candidates, so
        // the i-th score never drops
        // (an answer from fewer than k labels falls back to the exact scan, the best there is)
        if (probes <= def && prev && !same(prev, top) && prev.labels.length === a.labels.length) {
          a.scores.forEach((s, i) =>
            assert(
              s >= prev!.scores[i],
              `probes ${probes}: worse (default ${def}, ${C} leaves, groups ${content.tensors.mipsGroupPtr?.shape})`,
            )
          );
        }
        prev = a;
      }
      const fast = model.predictTopK(x, k), want = new Set(top.labels);
      hits += fast.labels.filter((l) => want.has(l)).length / top.labels.length;
      if (!same(fast, top)) approximate++;
    }
  }
  // beyond the default more groups are probed too: recall over the queries does not drop
  assert(atTwice >= atDef, `recall at ${2 * def} probes below that at ${def}`);
  // one probe of many clusters misses labels on some query (else the test would not probe)
  const one = queries.filter((x) => !same(model.predictTopK(x, 5, { probes: 1 }), dense(x, 5).top));
  assert(one.length > 0, "one probe never differs from exact: the index is not exercised");
  return { recall: hits / (queries.length * 3), approximate };
}

Deno.test("linear-lowrank index: probed scores exact, monotone in probes, all probes = dense", () => {
  const r = checkIndexed(lowrank(3000, 50, 8, 3, 60), rows(50, 40, 4));
  assert(r.recall > 0.8, `recall ${r.recall}`);
});

Deno.test("two-level index: groups written and probed; the earlier flat index still answers", () => {
  const content = lowrank(3000, 50, 8, 3, 120), queries = rows(50, 30, 4);
  const G = content.tensors.mipsGroupPtr.shape[0] - 1, C = content.tensors.mipsPtr.shape[0] - 1;
  const pg = content.params.mipsGroupProbes as number;
  assert(G > 1 && G < C && pg >= 1 && pg <= G, `groups ${G}, group probes ${pg}`);
  assert(content.tensors.mipsSpread.shape[0] === C, "mipsSpread");
  checkIndexed(content, queries);
  // the layout before groups and spreads (mipsCentroids, mipsOrder, mipsPtr, mipsProbes): the
  // leaves ranked by q · centroid alone, every group probed
  const {
    mipsSpread: _s,
    mipsGroupCentroids: _c,
    mipsGroupSpread: _g,
    mipsGroupPtr: _p,
    ...tensors
  } = content.tensors;
  const { mipsGroupProbes: _q, ...params } = content.params;
  const flat = { ...content, params, tensors };
  assert(Object.keys(tensors).filter((n) => n.startsWith("mips")).length === 3, "flat layout");
  checkIndexed(flat, queries);
});

Deno.test("random-features index: the writer indexes P from 4096 labels; same checks", () => {
  const L = 4100, D = 30, kS = 6, rand = mulberry32(9), g = () => rand() - 0.5;
  const content = predictorFileContent({
    variant: "L",
    numFeatures: D,
    numLabels: L,
    rankS: kS,
    rankX: 2,
    numRff: 0,
    lambdaX: 0.5,
    absent: "zero",
    input: "raw",
    Q: Float32Array.from({ length: D * kS }, g),
    P: Float32Array.from({ length: L * kS }, g),
    bias: Float32Array.from({ length: L }, g),
    V: Float32Array.from({ length: D * 2 }, g),
  }, 0.1);
  assert(content.tensors.mipsOrder?.shape[0] === L, "predictorFileContent wrote no index");
  const small = predictorFileContent({
    variant: "L",
    numFeatures: 1,
    numLabels: 3,
    rankS: 1,
    rankX: 1,
    numRff: 0,
    lambdaX: 0.5,
    absent: "zero",
    input: "raw",
    Q: Float32Array.of(1),
    P: Float32Array.of(1, 2, 3),
    bias: Float32Array.of(0, 0, 0),
    V: Float32Array.of(1),
  }, 0.1);
  assert(!small.tensors.mipsOrder && small.params.mipsProbes === undefined, "3 labels indexed");
  checkIndexed(content, rows(D, 20, 10));
});

Deno.test("LEML writer: index from 4096 labels, version 1, trainer reader keeps the tensors", () => {
  const lr = new LowRankScorer(7, 4, 4096, 0.5);
  const c = lr.toModelContent();
  assert(c.tensors.mipsPtr && c.tensors.mipsCentroids.shape[1] === 8, "no index written");
  const bytes = encodeModelFile(c);
  const back = decodeModelFile(bytes);
  assert(back.formatVersion === 1, `version ${back.formatVersion}`);
  assert(back.tensors.mipsOrder.data.length === 4096, "trainer reader lost mipsOrder");
  assert(!new LowRankScorer(7, 4, 4095, 0.5).toModelContent().tensors.mipsPtr, "4095 indexed");
});

Deno.test("golden files without an index answer as the dense path, with any options", async () => {
  for (const kind of ["linear-lowrank", "random-features"]) {
    const bytes = await Deno.readFile(new URL(`../fixtures/v1/${kind}.tsm`, import.meta.url));
    const model = loadModel(bytes), dense = denseOf(bytes);
    assert(!model.tensors.mipsPtr, `${kind} fixture has an index`);
    for (const x of rows(model.numFeatures, 10, 5)) {
      for (const k of [1, 2, model.numLabels + 1]) {
        const want = dense(x, k).top;
        assert(same(model.predictTopK(x, k), want), `${kind}: differs`);
        assert(same(model.predictTopK(x, k, { probes: 1 }), want), `${kind}: probes differ`);
        assert(same(model.predictTopK(x, k, { exact: true }), want), `${kind}: exact differs`);
      }
    }
  }
});

Deno.test("a broken index is refused as corrupt", () => {
  const c = lowrank(200, 5, 3, 1, 10);
  const order = Int32Array.from(c.tensors.mipsOrder.data as Int32Array);
  order[1] = order[0];
  const dup = {
    ...c,
    tensors: { ...c.tensors, mipsOrder: { ...c.tensors.mipsOrder, data: order } },
  };
  const ptr = Int32Array.from(c.tensors.mipsPtr.data as Int32Array);
  ptr[ptr.length - 1]--;
  const short = { ...c, tensors: { ...c.tensors, mipsPtr: { ...c.tensors.mipsPtr, data: ptr } } };
  const big = lowrank(3000, 5, 3, 1, 120), t = big.tensors;
  assert(t.mipsGroupPtr, "no groups");
  const gptr = Int32Array.from(t.mipsGroupPtr.data as Int32Array);
  gptr[gptr.length - 1]--;
  const badGroups = { ...big, tensors: { ...t, mipsGroupPtr: { ...t.mipsGroupPtr, data: gptr } } };
  const [G, w] = t.mipsGroupCentroids.shape, C = t.mipsSpread.shape[0];
  const cen = {
    ...t.mipsGroupCentroids,
    shape: [G - 1, w],
    data: t.mipsGroupCentroids.data.slice(w),
  };
  const badCen = { ...big, tensors: { ...t, mipsGroupCentroids: cen } };
  const spread = { ...t.mipsSpread, shape: [C - 1], data: t.mipsSpread.data.slice(1) };
  const badSpread = { ...big, tensors: { ...t, mipsSpread: spread } };
  const { mipsGroupSpread: _, ...noGroupSpread } = t;
  for (
    const [what, content, name] of [
      ["repeated label", dup, "mipsOrder"],
      ["short ptr", short, "mipsPtr"],
      ["short group ptr", badGroups, "mipsGroupPtr"],
      ["group centroids", badCen, "mipsGroupCentroids"],
      ["spread", badSpread, "mipsSpread"],
      ["no group spread", { ...big, tensors: noGroupSpread }, "mipsGroupSpread"],
    ] as const
  ) {
    try {
      loadModel(encodeModelFile(content));
      assert(false, `${what}: loaded`);
    } catch (e) {
      assert(e instanceof ModelFormatError && e.reason === "corrupt", `${what}: ${e}`);
      assert(e.message.includes(name), `${what}: ${e.message}`);
    }
  }
});
