// Publishing with POP keeps POP's promise: the published file is within ε of the unpruned model
// on the validation rows. POP's λ thresholding (weights in [−√λ, √λ] dropped, λ = 0.01: ±0.1)
// is not bounded by ε; on a linear-sparse model whose weights are all small it used to publish
// a file that had lost most of its validation PSP@k, with `pruned: true`. Now the largest λ of
// POP's sweep that stays within ε is published (else the unpruned file), and the note and
// `meta.pop` say so.
import { assert, assertEquals } from "../helpers.ts";
import { factory as br } from "../../src/models/br/mod.ts";
import { validationRows } from "../../src/service/publish_pop.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { preprocessRows } from "../../src/data/preprocess.ts";
import { modelColumns, validationPsp } from "../../src/prune/validation.ts";
import { labelWeightsOfContent, rowPreprocessOfContent } from "../../src/prune/model_weights.ts";
import { withinTolerance } from "../../src/prune/pop.ts";
import { answerPop } from "../../src/service/pop_worker.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { publishWithPop } from "./helpers.ts";

// 4 labels, each told by any of its 40 features (a row has 3 of them): every weight matters a
// little, none is large, so keeping a label's δ = 5 largest weights leaves most rows unscored
const D = 160, L = 4;
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const events = Array.from({ length: 600 }, (_, i) => {
  const l = i % L;
  const f = new Set<number>();
  while (f.size < 3) f.add(l * 40 + Math.floor(rand() * 40));
  return {
    x: { indices: Int32Array.from([...f].sort((a, b) => a - b)), values: Float32Array.of(1, 1, 1) },
    labels: Int32Array.of(l),
  };
});

Deno.test("a linear-sparse model of small weights is published within ε of its validation PSP@k", async () => {
  const m = br.create({
    seed: 1,
    numFeatures: D,
    numLabels: L,
    optimizer: "sgd",
    learningRate: 0.002,
  });
  for (const e of events) m.learnOne(e.x, e.labels);
  const unpruned = decodeModelFile(m.toModelFile({}));
  const w = unpruned.tensors.weights.data as Float32Array;
  assert(w.every((v) => Math.abs(v) < 0.1), "every weight is within ±0.1 (λ = 0.01)");
  const counts = new Float64Array(L);
  for (const e of events) counts[e.labels[0]]++;
  const out = await publishWithPop(m, events, { labelNames: ["a", "b", "c", "d"] });
  // the validation PSP@1/3/5 of a file, measured as POP measures it
  const rows = validationRows(events, D, L);
  const props = propensities(counts, events.length);
  const psp = (c: ModelFileContent) =>
    validationPsp(
      labelWeightsOfContent(c),
      { x: preprocessRows(modelColumns(rows.x, D), rowPreprocessOfContent(c)), y: rows.y },
      props,
      [1, 3, 5],
    );
  const published = decodeModelFile(out.bytes);
  const before = psp(unpruned), after = psp(published);
  assert(
    withinTolerance(after, before, 0.01),
    `published PSP@1/3/5 ${after} lost more than ε = 1% of ${before} (${out.note})`,
  );
  // it is still pruned, at a smaller λ of the sweep, and says why
  assertEquals(out.pruned, true, out.note);
  const pop = published.meta?.pop as Record<string, unknown>;
  assertEquals(pop.requestedLambda, 0.01);
  assert((pop.lambda as number) < 0.01, `λ ${pop.lambda}`);
  assert(out.bytes.length < m.toModelFile({}).length, "smaller than the unpruned file");
  assert(
    /^pruned linear-sparse → linear-sparse: .*; at λ = 0\.01 POP's file \(\d+ of \d+ weights kept\) loses .* more than ε = 1% .*: published λ = [0-9.e-]+, the largest λ of the sweep within ε$/
      .test(out.note ?? ""),
    out.note,
  );
  assertEquals(pop.reason, out.note?.slice(out.note.indexOf("at λ = 0.01")));
  assert(out.note?.includes(`→ ${(out.bytes.length / 1000).toFixed(1)} kB;`), out.note);
});

Deno.test("a linear-sparse file no λ of the sweep prunes within ε is published unpruned, saying why", () => {
  // 2 labels of 200 weights each, 0.05 (dropped at λ = 0.01, kept at λ ≤ 0.001), already stored
  // as f16/u16: λ ≤ 0.001 drops nothing (the file would not be smaller), λ ≥ 0.01 keeps one
  // weight per label (δ = 1) and most rows are left unscored
  const n = 200;
  const w = {
    numFeatures: 2 * n,
    numLabels: 2,
    labelPtr: Int32Array.of(0, n, 2 * n),
    featIdx: Int32Array.from({ length: 2 * n }, (_, i) => i),
    values: new Float32Array(2 * n).fill(0.05),
  };
  const original = encodeModelFile(
    linearSparseContent(w, { labelNames: ["a", "b"], weightType: "f16", indexType: "u16" }),
  );
  // one validation row per feature, labelled with its feature's label, which also holds, at half
  // the value, its twin feature of the other label: cutting either label's weights loses its rows
  const twinRows = Array.from({ length: 2 * n }, (_, i) => i < n ? [1, 0.5] : [0.5, 1]).flat();
  const rows = {
    x: {
      numRows: 2 * n,
      numCols: 2 * n,
      indptr: Int32Array.from({ length: 2 * n + 1 }, (_, i) => 2 * i),
      indices: Int32Array.from(Array.from({ length: 2 * n }, (_, i) => [i % n, n + i % n]).flat()),
      values: Float32Array.from(twinRows),
    },
    y: {
      numRows: 2 * n,
      numCols: 2,
      indptr: Int32Array.from({ length: 2 * n + 1 }, (_, i) => i),
      indices: Int32Array.from({ length: 2 * n }, (_, i) => i < n ? 0 : 1),
    },
  };
  const a = answerPop({
    id: 3,
    original,
    rows,
    counts: Float64Array.of(n, n),
    propensities: Float64Array.of(0.5, 0.5),
    options: { delta: 1, ks: [1] },
  });
  assert(!("error" in a), JSON.stringify(a));
  assertEquals(a.pruned, false, a.reason);
  assertEquals(a.bytes, original);
  assertEquals(
    a.reason,
    "not pruned: at λ = 0.01 POP's file (2 of 400 weights kept) loses 49.8% of validation " +
      "PSP@1 (100.00 → 50.25), more than ε = 1% (ε bounds only POP's label search, not the λ " +
      "thresholding), and no λ of the sweep gives a smaller file within ε",
  );
});
