// A POP run tells its `observer` of each label search it begins, each label cut it validates
// (not those its memo already holds) and, with a curve, of each point measured: through
// pruneModel, popCurve, popBr, pop and labelOptimization alike. (Progress was inferred from reads
// and writes of the cut memo the CLI handed pruneModel: a second read of cut 0, as a search that
// cuts no label makes, counted as a new search; and the library's own entries told nothing.)
import { pruneModel } from "../../src/prune/prune_model.ts";
import { popCurve } from "../../src/prune/curve.ts";
import { popBr } from "../../src/prune/pop_br.ts";
import {
  type CutCache,
  impactOrder,
  labelImpact,
  labelOptimization,
  pop,
  type PopObserver,
} from "../../src/prune/pop.ts";
import { trainBr } from "../../src/models/br/mod.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { labelCounts } from "../../src/data/dataset.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert, assertEquals } from "../helpers.ts";

function setup() {
  const data = plantedData(400, 8, 5);
  const train = makeBatch(data.rows.slice(0, 300), data.numFeatures, data.numLabels);
  const valid = makeBatch(data.rows.slice(300), data.numFeatures, data.numLabels);
  const counts = labelCounts(train.y);
  return { data, train, valid, counts, p: propensities(counts, 300) };
}

/** What an observer was told, in order: "search L", "cut m" (with its PSP@k), "point d/t". */
function recorder(): { observer: PopObserver; told: string[]; psp: Map<number, number[]> } {
  const told: string[] = [], psp = new Map<number, number[]>();
  const observer: PopObserver = {
    onSearch: (e) => told.push(`search ${e.numLabels}`),
    onEvaluation: (e) => {
      told.push(`cut ${e.cut}`);
      psp.set(e.cut, [...e.psp]);
    },
    onCurvePoint: (e) => told.push(`point ${e.done}/${e.total}`),
  };
  return { observer, told, psp };
}

/** The cuts told, in order. */
const cutsOf = (told: string[]) =>
  told.filter((t) => t.startsWith("cut ")).map((t) => Number(t.slice(4)));

Deno.test("pruneModel tells each cut it validates (those its memo then holds) and each curve point", () => {
  const { train, valid, counts, p } = setup();
  const br = trainBr(train.x, train.y, { C: 1 }, { l2Normalize: true });
  const content = decodeModelFile(br.toModelFile());
  const { observer, told, psp } = recorder();
  const cache: CutCache = new Map();
  const r = pruneModel(content, valid, counts, p, {
    epsilon: 0.02,
    delta: 2,
    cache,
    observer,
    curve: { epsilons: [0, 0.05, 0.5], lambdas: [0.001, 0.1] },
  });
  // every cut validated is told once, in the order the memo got them, with its PSP@k
  assertEquals(cutsOf(told), [...cache.keys()]);
  for (const [m, v] of cache) assertEquals(psp.get(m), v, `cut ${m}`);
  // POP's own search first: the unpruned model, then the binary search, its answer among them
  assertEquals(told[0], "search 8");
  assertEquals(told[1], "cut 0");
  const own = told.slice(0, told.indexOf("point 0/5"));
  assertEquals(cutsOf(own).length, r.search.evaluations);
  assertEquals(psp.get(0), r.search.baseline);
  assertEquals(psp.get(r.search.numPrunedLabels), r.search.validation);
  // then the curve: its start, and each of its 5 points' search then the point measured
  const curve = told.slice(own.length);
  assertEquals(
    curve.filter((t) => t.startsWith("point")),
    [0, 1, 2, 3, 4, 5].map((d) => `point ${d}/5`),
  );
  assertEquals(curve.filter((t) => t.startsWith("search")).length, 5);
  assertEquals(r.curve?.length, 5);
});

Deno.test("popCurve and popBr tell their searches, cuts and points", () => {
  const { train, valid, counts, p } = setup();
  const w = trainBr(train.x, train.y, { C: 1 }).toLabelWeights();
  const a = recorder();
  const cache: CutCache = new Map();
  const pts = popCurve(w, valid, counts, p, {
    epsilons: [0.01, 0.2],
    lambdas: [0.01],
    delta: 2,
    cache,
    observer: a.observer,
  });
  assertEquals(a.told[0], "point 0/3");
  assertEquals(a.told.filter((t) => t.startsWith("search")).length, pts.length);
  assertEquals(a.told.at(-1), "point 3/3");
  assertEquals(cutsOf(a.told), [...cache.keys()]);

  const b = recorder();
  const ds = { name: "planted", numFeatures: train.x.numCols, numLabels: 8, ...train };
  const r = popBr(ds, p, { delta: 2, epsilon: 0.05, observer: b.observer, curve: {} });
  assertEquals(b.told[0], "search 8");
  assertEquals(b.told[1], "cut 0");
  assertEquals(cutsOf(b.told.slice(0, b.told.indexOf("point 0/12"))).length, r.search.evaluations);
  assertEquals(b.psp.get(0), r.search.baseline);
  assertEquals(b.told.at(-1), "point 12/12");
});

Deno.test("pop and labelOptimization: a memo hit is not told, and a search that cuts no label is one search", () => {
  const { train, valid, counts, p } = setup();
  const w = trainBr(train.x, train.y, { C: 1 }).toLabelWeights();
  const cache: CutCache = new Map();
  const first = recorder();
  const r = pop(w, valid, counts, p, { epsilon: 0, delta: 0 }, { cache, observer: first.observer });
  // δ = 0 and ε = 0: cutting a label loses PSP@k, so the search keeps every label (its answer,
  // cut 0, is read again from the memo: still one search)
  assertEquals(r.numPrunedLabels, 0);
  assertEquals(first.told.filter((t) => t.startsWith("search")), ["search 8"]);
  assertEquals(new Set(cutsOf(first.told)).size, cutsOf(first.told).length);
  assertEquals(cutsOf(first.told).length, r.evaluations);
  // the same search again on the memo validates nothing
  const again = recorder();
  const order = impactOrder(labelImpact(counts, p));
  const o = labelOptimization(w, valid, p, order, { epsilon: 0, delta: 0 }, {
    cache,
    observer: again.observer,
  });
  assertEquals(o.evaluations, 0);
  assertEquals(again.told, ["search 8"]);
});

Deno.test("observing a run changes nothing: the same pruned file and curve", () => {
  const { train, valid, counts, p } = setup();
  const content = linearSparseContent(trainBr(train.x, train.y, { C: 1 }).toLabelWeights());
  const opts = { epsilon: 0.02, delta: 2, curve: { epsilons: [0.1], lambdas: [0.05] } };
  const plain = pruneModel(content, valid, counts, p, opts);
  const seen = pruneModel(content, valid, counts, p, { ...opts, observer: recorder().observer });
  assert(plain.bytes.join() === seen.bytes.join(), "bytes");
  assertEquals(seen.curve, plain.curve);
});
