/**
 * `repro sleec-pool`: a `sleec:C:SEED` member finds the neighbours trainSleec's learner 0 finds,
 * so a one-member pool scores P@k as the trained model does; `raw` is the cosine of the unit rows;
 * a combination averages its members' votes; bad member specs and combinations are refused,
 * naming them; the experiment reads the training file only.
 */
import experiment, { poolPrecision } from "../../../bench/repro/experiments/sleec-pool.ts";
import curve from "../../../bench/repro/experiments/sleec-curve.ts";
import { lastRowsSplit } from "../../../bench/repro/experiments/sleec-ablation.ts";
import {
  buildMember,
  MAX_DENSE_FEATURES,
  nearestRows,
} from "../../../bench/repro/sleec_pool_members.ts";
import { labelLists, trainSleec } from "../../../src/models/sleec/batch.ts";
import { preprocessRows } from "../../../src/data/preprocess.ts";
import { PrecisionAtK } from "../../../src/metrics/precision.ts";
import { plantedTrainFolder, reproContext, TINY_CURVE_FLAGS } from "../../bench/repro_context.ts";
import { makeBatch, plantedData } from "../estimator_checks.ts";
import { assert, messageOf } from "../../helpers.ts";

const planted = () => {
  const data = plantedData(150, 8, 21);
  const b = makeBatch(data.rows, data.numFeatures, data.numLabels);
  return lastRowsSplit({
    name: "p",
    numFeatures: data.numFeatures,
    numLabels: data.numLabels,
    ...b,
  }, 0.2);
};

Deno.test("sleec-pool: a sleec:C:SEED member scores P@k as trainSleec's model with that seed", () => {
  const { fit, valid } = planted();
  const cfg = { rank: 4, svpNeighbours: 12 };
  const xn = preprocessRows(fit.x, { l2Normalize: true });
  const qn = preprocessRows(valid.x, { l2Normalize: true });
  const fitLabels = labelLists(fit.y), truth = labelLists(valid.y);
  for (const [C, seed] of [[1, 3], [2, 5]]) {
    const member = buildMember(`sleec:${C}:${seed}`, xn, fit.y, fitLabels, cfg);
    assert(member.length === C, `${member.length} clusters`);
    const n = nearestRows(member, qn, 7);
    const model = trainSleec(fit.x, fit.y, {
      ...cfg,
      seed,
      numClusters: C,
      k: 7,
      weighted: true,
      votePower: 2,
    });
    const precision = new PrecisionAtK([1, 3, 5]);
    for (let i = 0; i < truth.length; i++) {
      const s = valid.x.indptr[i], e = valid.x.indptr[i + 1];
      const row = {
        indices: valid.x.indices.subarray(s, e),
        values: valid.x.values.subarray(s, e),
      };
      precision.add(model.predictTopK(row, 5).labels, truth[i]);
    }
    const r = precision.result(), want = [r["P@1"], r["P@3"], r["P@5"]];
    const got = poolPrecision([n], fitLabels, truth, fit.y.numCols, 7, 2);
    assert(want[0] >= 40, `planted data not learnt: P@1 ${want[0]}`);
    for (const [q, key] of (["P@1", "P@3", "P@5"] as const).entries()) {
      assert(
        Math.abs(got[key] - want[q]) < 1e-9,
        `C=${C} ${key}: pool ${got[key]}, model ${want[q]}`,
      );
    }
  }
});

Deno.test("sleec-pool: raw is the cosine of the unit rows; a combination averages the votes", () => {
  const { fit, valid } = planted();
  const xn = preprocessRows(fit.x, { l2Normalize: true });
  const qn = preprocessRows(valid.x, { l2Normalize: true });
  const fitLabels = labelLists(fit.y), truth = labelLists(valid.y), D = fit.x.numCols;
  const raw = nearestRows(buildMember("raw", xn, fit.y, fitLabels, {}), qn, 5);
  const dense = (x: typeof xn, i: number) => {
    const v = new Float64Array(D);
    for (let e = x.indptr[i]; e < x.indptr[i + 1]; e++) v[x.indices[e]] = x.values[e];
    return v;
  };
  for (let i = 0; i < qn.numRows; i += 7) {
    const q = dense(qn, i);
    const sims = Array.from({ length: xn.numRows }, (_, p) => {
      const v = dense(xn, p);
      return [v.reduce((s, a, j) => s + a * q[j], 0), p];
    }).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    for (let r = 0; r < 5; r++) {
      assert(Math.abs(raw.sims[i * 5 + r] - sims[r][0]) < 1e-5, `row ${i} rank ${r} similarity`);
    }
    assert(raw.sims[i * 5] >= raw.sims[i * 5 + 4], "neighbours not best first");
  }
  // two copies of one member vote as that member alone; a member with other neighbours changes it
  const one = poolPrecision([raw], fitLabels, truth, fit.y.numCols, 5, 1);
  const two = poolPrecision([raw, raw], fitLabels, truth, fit.y.numCols, 5, 1);
  assert(
    JSON.stringify(one) === JSON.stringify(two),
    `${JSON.stringify(one)} ${JSON.stringify(two)}`,
  );
  // weights that sum to 0 fall back to 1/count: a far neighbour then votes like a near one
  const n = { K: 2, rows: Int32Array.of(0, 1), sims: Float32Array.of(-0.5, -0.2) };
  const p = poolPrecision([n], [Int32Array.of(1), Int32Array.of(0)], [Int32Array.of(0)], 2, 2, 3);
  assert(p["P@1"] === 100, `equal votes, tie to the smaller label: ${p["P@1"]}`);
});

Deno.test("sleec-pool: bad member specs are refused, naming the spec", () => {
  const { fit } = planted();
  const xn = preprocessRows(fit.x, { l2Normalize: true }), labels = labelLists(fit.y);
  for (const bad of ["sleec:1", "sleec:x:1", "pca", "pca:-1", "leml:1:2", "raw:1", "tree:4"]) {
    const msg = messageOf(() => buildMember(bad, xn, fit.y, labels, { rank: 3 }));
    assert(msg.startsWith("sleec-pool: ") && msg.includes(`'${bad}'`), `${bad}: ${msg}`);
  }
  // pca and raw hold a dense D × D matrix: refused past MAX_DENSE_FEATURES, before any work
  const wide = { ...xn, numCols: MAX_DENSE_FEATURES + 1 };
  for (const spec of ["pca:0", "raw"]) {
    const msg = messageOf(() => buildMember(spec, wide, fit.y, labels, { rank: 3 }));
    assert(msg.includes(`at most ${MAX_DENSE_FEATURES} features`), `${spec}: ${msg}`);
  }
});

Deno.test("repro sleec-pool: one line per member and combination, from the training file", async () => {
  const dir = await plantedTrainFolder("tagstream_sleec_pool_", 4);
  const log = console.log, printed: string[] = [];
  console.log = (s: string) => printed.push(s);
  try {
    const flags = {
      members: "sleec:1:0,sleec:2:1,pca:0.25",
      combos: JSON.stringify({ both: ["sleec:1:0", "sleec:2:1"] }),
      "k-grid": "3,6",
      config: JSON.stringify({ rank: 4, svpNeighbours: 10 }),
    };
    // no test file in the directory: reading it would throw
    const res = await experiment(reproContext(dir, flags));
    const rows = res.extra!.rows as Record<string, unknown>[];
    assert(rows.map((r) => r.combo).join() === "sleec:1:0,sleec:2:1,pca:0.25,both", "order");
    assert(printed.length === 4, `${printed.length} lines`);
    for (const row of rows) {
      const byK = row.byK as Record<string, number>[];
      assert(byK.map((p) => p.k).join() === "3,6", "one point per k");
      const best = row.best as Record<string, number>;
      assert(byK.every((p) => p.mean <= best.mean), `${row.combo}: best is not the best`);
    }
    const best = rows.find((r) => r.combo === res.extra!.bestCombo)!.best as Record<string, number>;
    assert(res.metrics["P@1"] === best["P@1"], "metrics are the best combination's");
    const bad = await experiment(reproContext(dir, { ...flags, combos: '{"x": ["raw"]}' }))
      .catch((e) => e as Error);
    assert(bad instanceof TypeError && bad.message.includes("--combos 'x'"), `${bad}`);
    const none = await experiment(reproContext(dir, {})).catch((e) => e as Error);
    assert(none instanceof TypeError && none.message.includes("--members"), `${none}`);
  } finally {
    console.log = log;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro sleec-curve --members: other members go on the curve as further learners", async () => {
  const dir = await plantedTrainFolder("tagstream_sleec_curve_members_", 6);
  try {
    const flags = { ...TINY_CURVE_FLAGS, members: "pca:0,leml:1" };
    const res = await curve(reproContext(dir, flags));
    const points = res.extra!.curve as Record<string, number | string>[];
    assert(points.map((p) => p.learners).join() === "1,2,3,4", "one point per learner and member");
    assert(points.map((p) => p.member ?? "-").join() === "-,-,pca:0,leml:1", "member names");
    assert(points[3].modelBytes > points[1].modelBytes, "members add no bytes");
    // the planted problem is learnt by the whole ensemble, members included
    assert((points[3]["P@1"] as number) >= 50, `P@1 with members ${points[3]["P@1"]}`);
    // the best point's i8 file is what the SDK answers: members are servable as they are
    const edge = res.extra!.bestEdgeFile as Record<string, number>;
    assert(edge !== null && edge.bytes > 0, "no edge file");
    for (
      const [members, want] of [["raw", "another rank"], ["tree:1", "unknown member"], [
        "",
        "--members needs",
      ]]
    ) {
      const bad = await curve(reproContext(dir, { ...flags, members })).catch((e) => e as Error);
      assert(bad instanceof Error && bad.message.includes(want), `${members}: ${bad}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
