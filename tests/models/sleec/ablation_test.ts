/**
 * `repro sleec-ablation`: validation rows are the LAST rows of the training file (the directory
 * holds no test file, so reading it would fail), one JSON line per variant with the whole
 * (learners, k, weighting) grid and its best point, the reference first, unknown variants
 * refused; `lastRowsSplit` keeps file order and refuses empty parts; `EuclideanKnn` matches a
 * brute-force count of the nearest unnormalised embeddings; `repro sleec-curve --validation`
 * reads the training file only and `--config` is checked.
 */
import experiment, {
  EuclideanKnn,
  firstLearners,
  lastRowsSplit,
} from "../../../bench/repro/experiments/sleec-ablation.ts";
import curve from "../../../bench/repro/experiments/sleec-curve.ts";
import { trainSleec } from "../../../src/models/sleec/mod.ts";
import { preprocessRows } from "../../../src/data/preprocess.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { plantedTrainFolder, reproContext, TINY_CURVE_FLAGS } from "../../bench/repro_context.ts";
import { makeBatch, plantedData } from "../estimator_checks.ts";
import { assert, messageOf } from "../../helpers.ts";

const trainOnlyDir = () => plantedTrainFolder("tagstream_sleec_ablation_", 3);

const ctx = reproContext;

Deno.test("lastRowsSplit: the last rows are the validation rows, in file order", () => {
  const n = 10;
  const ds = {
    name: "t",
    numFeatures: 1,
    numLabels: 1,
    x: {
      numRows: n,
      numCols: 1,
      indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
      indices: new Int32Array(n),
      values: Float32Array.from({ length: n }, (_, i) => i),
    },
    y: { numRows: n, numCols: 1, indptr: new Int32Array(n + 1), indices: new Int32Array(0) },
  };
  const { fit, valid } = lastRowsSplit(ds, 0.3);
  assert(fit.x.numRows === 7 && valid.x.numRows === 3, `${fit.x.numRows} / ${valid.x.numRows}`);
  assert(Array.from(valid.x.values).join() === "7,8,9", `valid ${Array.from(valid.x.values)}`);
  assert(Array.from(fit.x.values).join() === "0,1,2,3,4,5,6", `fit ${Array.from(fit.x.values)}`);
  assert(ds.x.values[9] === 9 && ds.x.numRows === 10, "input mutated");
  for (const bad of [0, 1, 0.01]) {
    const msg = messageOf(() => lastRowsSplit(ds, bad));
    assert(msg.startsWith("lastRowsSplit:"), `fraction ${bad}: ${msg}`);
  }
});

Deno.test("firstLearners keeps the clusters of the first t learners only", () => {
  const data = plantedData(80, 6, 5);
  const b = makeBatch(data.rows, data.numFeatures, data.numLabels);
  const m = trainSleec(b.x, b.y, { rank: 4, svpNeighbours: 10, numLearners: 3, numClusters: 2 });
  const two = firstLearners(m, 2);
  assert(two.knn.numLearners === 2, `${two.knn.numLearners} learners`);
  const learners = two.knn.clusters.map((c) => c.learner);
  assert(learners.length > 0 && learners.every((l) => l < 2), `learners ${learners}`);
  assert(
    learners.length === m.knn.clusters.filter((c) => c.learner < 2).length,
    "a cluster of the first two learners was dropped",
  );
});

Deno.test("EuclideanKnn: counted votes of the k nearest unnormalised embeddings", () => {
  const data = plantedData(90, 6, 11);
  const b = makeBatch(data.rows, data.numFeatures, data.numLabels);
  const m = trainSleec(b.x, b.y, { rank: 5, svpNeighbours: 15, numLearners: 2 });
  const k = 7, e = new EuclideanKnn(m, b.x, k);
  const xn = preprocessRows(b.x, { l2Normalize: true });
  const embed = (v: Float32Array, idx: ArrayLike<number>, val: ArrayLike<number>) => {
    const z = new Array(5).fill(0);
    let ss = 0;
    for (let q = 0; q < val.length; q++) ss += val[q] * val[q];
    for (let q = 0; q < idx.length; q++) {
      for (let a = 0; a < 5; a++) z[a] += (val[q] / Math.sqrt(ss)) * v[idx[q] * 5 + a];
    }
    return z;
  };
  for (const probe of plantedData(10, 6, 12).rows) {
    const want = new Float64Array(data.numLabels);
    for (const c of m.knn.clusters) {
      const zq = embed(c.v, probe.x.indices, probe.x.values);
      const d = data.rows.map((_, i) => {
        const s = xn.indptr[i], t = xn.indptr[i + 1];
        const zp = embed(c.v, xn.indices.subarray(s, t), xn.values.subarray(s, t));
        return [zp.reduce((acc, v, a) => acc + (v - zq[a]) ** 2, 0), i];
      }).sort((p, q) => p[0] - q[0] || p[1] - q[1]);
      for (const [, i] of d.slice(0, k)) {
        for (const l of data.rows[i].labels) want[l] += 1 / (2 * k);
      }
    }
    const got = e.predictScores(probe.x);
    for (let l = 0; l < want.length; l++) {
      assert(Math.abs(got[l] - want[l]) < 1e-6, `label ${l}: ${got[l]} vs ${want[l]}`);
    }
  }
  const clustered = trainSleec(b.x, b.y, { rank: 3, svpNeighbours: 10, numClusters: 2 });
  const msg = messageOf(() => new EuclideanKnn(clustered, b.x, 3));
  assert(msg.startsWith("EuclideanKnn: learner 0"), msg);
});

Deno.test("repro sleec-ablation: one row per variant from the training file alone", async () => {
  const dir = await trainOnlyDir();
  const log = console.log, printed: string[] = [];
  console.log = (s: string) => printed.push(s);
  try {
    const res = await experiment(ctx(dir, {
      variants: "rank50",
      "k-grid": "3,6",
      extra: JSON.stringify({
        tiny: {
          what: "rank 4, 2 learners",
          config: { rank: 4, svpNeighbours: 10, numLearners: 2 },
        },
      }),
    }));
    const rows = res.extra!.rows as Record<string, unknown>[];
    assert(rows.map((r) => r.variant).join() === "reference,rank50,tiny", "variant order");
    assert(printed.length === rows.length, `${printed.length} lines printed`);
    for (const [n, row] of rows.entries()) {
      assert(JSON.stringify(JSON.parse(printed[n])) === JSON.stringify(row), `line ${n}`);
      assert(row.fitRows === 120 && row.validRows === 30, `rows ${row.fitRows}/${row.validRows}`);
      const grid = row.grid as Record<string, number | boolean>[];
      const learners = row.variant === "tiny" ? 2 : 1;
      // learners x k x weighting
      assert(grid.length === learners * 2 * 2, `${row.variant}: ${grid.length} grid points`);
      const best = row.best as Record<string, number>;
      for (const g of grid) {
        assert((g.mean as number) <= best.mean, `${row.variant}: best is not the best`);
        for (const m of ["P@1", "P@3", "P@5"]) {
          const v = g[m] as number;
          assert(v >= 0 && v <= 100, `${m} ${v}`);
        }
      }
      // the planted problem is learnable: far above chance on the validation rows
      assert(best["P@1"] >= 50, `${row.variant}: validation P@1 ${best["P@1"]}`);
    }
    const refBest = rows[0].best as Record<string, number>;
    assert(res.metrics["P@1"] === refBest["P@1"], "metrics are the reference's best");
    const bad = await experiment(ctx(dir, { variants: "nope" })).catch((e) => e as Error);
    assert(bad instanceof TypeError && bad.message.includes("unknown variant 'nope'"), `${bad}`);
  } finally {
    console.log = log;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("repro sleec-curve --validation: curve on the last 20% of train, --config checked", async () => {
  const dir = await trainOnlyDir();
  try {
    const flags = {
      ...TINY_CURVE_FLAGS,
      config: JSON.stringify({ svpIterations: 3, lambda: 0.5 }),
    };
    // no test file in the directory: reading it would throw
    const res = await curve(ctx(dir, flags));
    const x = res.extra!;
    assert(String(x.evaluatedOn).startsWith("validation"), `evaluatedOn ${x.evaluatedOn}`);
    const cfg = x.config as Record<string, number>;
    assert(cfg.svpIterations === 3 && cfg.lambda === 0.5, `config ${JSON.stringify(cfg)}`);
    const points = x.curve as Record<string, number>[];
    assert(points.map((p) => p.learners).join() === "1,2", "one point per ensemble size");
    assert(points[1].modelBytes > points[0].modelBytes, "two learners are not bigger than one");
    assert(points[1]["P@1"] === res.metrics["P@1"], "metrics are the last point's");
    // the best point is the ensemble as set (its most learners that fit), not the best test P@1
    const best = x.best as Record<string, number>, edge = x.bestEdgeFile as Record<string, number>;
    assert(best.learners === 2, `best point: ${best.learners} learners`);
    // its i8 file, answered by the SDK: its bytes, and P@k near the trainer's
    assert(edge.bytes === best.modelBytesI8, `edge file ${edge.bytes} vs ${best.modelBytesI8}`);
    const stdErr = x.bestEdgeFile as unknown as { stdErr: Record<string, number> };
    const validRows = 30; // the last 20% of the folder's 150 rows
    for (const k of ["P@1", "P@3", "P@5"]) {
      assert(Math.abs(edge[k] - best[k]) <= 5, `${k}: SDK on i8 ${edge[k]}, trainer ${best[k]}`);
      // a proportion's standard error over the validation rows, at most 50/√(n − 1) percent
      const se = stdErr.stdErr[k];
      assert(se > 0 && se <= 50 / Math.sqrt(validRows - 1), `${k}: standard error ${se}`);
    }
    // what serving it costs: held memory beyond the file (the SDK's float32 points and search
    // copy), a cold load, within a Worker's memory
    const footprint = (x.bestEdgeFile as unknown as { edge: Record<string, number | boolean> })
      .edge;
    assert((footprint.heldBytes as number) > edge.bytes, `held ${footprint.heldBytes}`);
    assert((footprint.loadMs as number) > 0 && footprint.fitsWorkerMemory === true, "footprint");
    // --out writes that file: the SDK loads it and answers as `bestEdgeFile` says
    const outFile = `${dir}/best.tsm`;
    const written = await curve(ctx(dir, { ...flags, out: outFile }));
    const bytes = await Deno.readFile(outFile);
    const wrote = written.extra!.bestEdgeFile as Record<string, number>;
    assert(bytes.byteLength === wrote.bytes && written.extra!.out === outFile, "--out file");
    assert(loadModel(bytes).numLabels > 0, "the written file loads");
    const noName = await curve(ctx(dir, { ...flags, out: true as never })).catch((e) => e);
    assert(noName instanceof TypeError && noName.message.includes("--out"), `${noName}`);
    const bad = await curve(ctx(dir, { ...flags, config: '{"svpIterations": 0}' }))
      .catch((e) => e as Error);
    assert(bad instanceof RangeError && bad.message.includes("svpIterations"), `${bad}`);
    const notJson = await curve(ctx(dir, { ...flags, config: "{" })).catch((e) => e as Error);
    assert(
      notJson instanceof TypeError && notJson.message.startsWith("sleec-curve: --config"),
      `${notJson}`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
