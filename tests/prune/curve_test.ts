// The ε/λ sweeps of POP: monotone size in ε and λ, agreement with pop() at the same settings,
// shared search cache, and the SVG rendering.
import { curveSvg, popCurve } from "../../src/prune/curve.ts";
import { type CutCache, pop } from "../../src/prune/pop.ts";
import { validationPsp } from "../../src/prune/validation.ts";
import { trainDcd } from "../../src/models/br/dcd.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { linearSparseContent, roundWeights } from "../../src/models/label_weights.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { labelCounts } from "../../src/data/dataset.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert } from "../helpers.ts";

function setup() {
  const data = plantedData(500, 12, 9);
  const train = makeBatch(data.rows.slice(0, 350), data.numFeatures, data.numLabels);
  const valid = makeBatch(data.rows.slice(350), data.numFeatures, data.numLabels);
  const w = trainDcd(train.x, train.y, { C: 1 });
  const counts = labelCounts(train.y);
  return { w, valid, counts, p: propensities(counts, 350) };
}

Deno.test("popCurve: size never grows with ε or λ, and matches pop() at each setting", () => {
  const { w, valid, counts, p } = setup();
  const epsilons = [0, 0.01, 0.05, 0.2, 0.5];
  const lambdas = [0, 0.001, 0.01, 0.05, 0.2];
  const cache: CutCache = new Map();
  const pts = popCurve(w, valid, counts, p, {
    epsilons,
    lambdas,
    epsilon: 0.05,
    lambda: 0.01,
    delta: 2,
    cache,
    weightType: "f32",
    indexType: "i32",
  });
  const eps = pts.filter((q) => q.sweep === "epsilon");
  const lam = pts.filter((q) => q.sweep === "lambda");
  assert(eps.length === 5 && lam.length === 5, "one point per value");
  for (let i = 1; i < 5; i++) {
    assert(eps[i].numPrunedLabels >= eps[i - 1].numPrunedLabels, `ε: pruned labels at ${i}`);
    assert(eps[i].nnz <= eps[i - 1].nnz && eps[i].bytes <= eps[i - 1].bytes, `ε: size at ${i}`);
    assert(lam[i].nnz <= lam[i - 1].nnz && lam[i].bytes <= lam[i - 1].bytes, `λ: size at ${i}`);
  }
  assert(eps[4].nnz < eps[0].nnz, "a loose ε prunes more labels than ε = 0");
  // (at ε = 0.05 every label may keep only its δ weights, which λ cannot cut)
  assert(
    lam[4].nnz < lam[0].nnz || lam[0].numPrunedLabels === w.numLabels,
    "a large λ prunes more weights than λ = 0",
  );
  // each point is the model pop() gives at its (ε, λ); the cache does not change results
  for (const q of [...eps, ...lam]) {
    const r = pop(w, valid, counts, p, { epsilon: q.epsilon, lambda: q.lambda, delta: 2 });
    const again = pop(
      w,
      valid,
      counts,
      p,
      { epsilon: q.epsilon, lambda: q.lambda, delta: 2 },
      { cache },
    );
    assert(r.numPrunedLabels === q.numPrunedLabels, `m at ε=${q.epsilon}`);
    assert(again.numPrunedLabels === r.numPrunedLabels && again.evaluations === 0, "cache");
    assert(
      r.nnzAfter === q.nnz && r.final.join() === q.psp.join(),
      `point ε=${q.epsilon} λ=${q.lambda}`,
    );
    const bytes = encodeModelFile(linearSparseContent(r.model)).length;
    assert(bytes === q.bytes, `bytes ${q.bytes} vs ${bytes}`);
  }
});

Deno.test("popCurve measures the stored (f16) weights and custom sizes", () => {
  const { w, valid, counts, p } = setup();
  const seen: [number, number][] = [];
  const pts = popCurve(w, valid, counts, p, {
    epsilons: [0.01],
    lambdas: [0.01],
    sizeOf: (m, lambda, pruned) => {
      seen.push([m, lambda]);
      return 1000 + pruned.labelPtr[pruned.numLabels];
    },
  });
  // (ε = 0.01, λ = 0.01) is in both sweeps: measured once
  assert(seen.length === 1 && pts.length === 2, `measured ${seen.length} times`);
  assert(pts[0].bytes === 1000 + pts[0].nnz && pts[1].bytes === pts[0].bytes, "custom size");
  const r = pop(w, valid, counts, p, { epsilon: 0.01, lambda: 0.01, delta: 5 });
  const f16 = roundWeights(r.model, "f16");
  assert(r.model.values.some((v, i) => v !== f16.values[i]), "f16 rounding changes weights");
  assert(pts[0].nnz === r.nnzAfter, "nnz");
  const want = validationPsp(f16, valid, p);
  assert(pts[0].psp.join() === want.join(), `PSP ${pts[0].psp} vs stored ${want}`);
});

Deno.test("curveSvg draws one line per sweep and k, plus the reference", () => {
  const { w, valid, counts, p } = setup();
  const pts = popCurve(w, valid, counts, p, { epsilons: [0, 0.1], lambdas: [0, 0.1] });
  const svg = curveSvg(pts, { title: "POP <test>", referenceBytes: 50_000 });
  const lines = svg.match(/<polyline/g) ?? [];
  assert(lines.length === 7, `${lines.length} polylines`);
  for (const name of ["ε sweep PSP@1", "λ sweep PSP@5", "unpruned"]) {
    assert(svg.includes(`<title>${name}</title>`), `missing series ${name}`);
  }
  assert(svg.includes("POP &lt;test&gt; (ε sweep at λ = 0.01, λ sweep at ε = 0.01)"), "title");
  assert(svg.includes("model file size (kB)") && svg.trim().endsWith("</svg>"), "axes");
});
