import { LemlStream, LOCAL_KEYS } from "../../../src/models/leml/stream.ts";
import { factory } from "../../../src/models/leml/mod.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assert } from "../../helpers.ts";
import { randomBatch, sparseBatch } from "./helpers.ts";
import { checkEstimator, stateDifference } from "../estimator_checks.ts";

// The shared checks on the local update mode, with and without the reservoir refresh.
checkEstimator("leml streaming (local update, refresh)", factory, {
  createOptions: { rank: 8, lr: 0.05, update: "local", replay: 24, refreshEvery: 32 },
});
checkEstimator("leml streaming (local update, no replay)", factory, {
  createOptions: { rank: 8, lr: 0.05, update: "local", localNegatives: 2 },
});

/** `state` as a full-mode (or local-mode, with `local`) state without the local tensors. */
function asMode(state: ModelState, local?: Record<string, unknown>): ModelState {
  const config: Record<string, unknown> = { ...state.config };
  for (const key of ["update", ...LOCAL_KEYS]) delete config[key];
  const tensors = { ...state.tensors };
  for (const t of ["gram", "gramHb", "lastTouch", "labelPool"]) delete tensors[t];
  return { ...state, config: { ...config, ...(local ?? {}) }, tensors };
}

function message(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
  return "";
}

Deno.test("leml local: options are validated, naming the option", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ update: "partial" }, "option update"],
    [{ update: "local", loss: "logistic" }, "option update"],
    [{ refreshEvery: 5 }, "option refreshEvery"],
    [{ update: "local", localNegatives: -1 }, "option localNegatives"],
    [{ update: "local", localNegatives: 1.5 }, "option localNegatives"],
    [{ update: "local", refreshEvery: 2.5 }, "option refreshEvery"],
    [{ update: "local", catchUp: 0.5 }, "option catchUp"],
    [{ update: "local", refreshProx: -1 }, "option refreshProx"],
    [{ update: "local", refreshCg: Number.NaN }, "option refreshCg"],
    [{ update: "local", gramRecompute: "x" }, "option gramRecompute"],
  ];
  for (const [opts, want] of cases) {
    const msg = message(() => new LemlStream(opts));
    assert(msg.startsWith("RangeError") && msg.includes(want), `${JSON.stringify(opts)}: ${msg}`);
  }
  assert(
    message(() => new LemlStream({ rank: 2 }).refresh()).includes("local update mode"),
    "refresh in the full mode",
  );
});

Deno.test("leml local: at the first step after a full-mode state, W and the touched rows get the full mode's gradient, bit for bit", () => {
  for (const masked of [false, true]) {
    const full = new LemlStream({ rank: 5, seed: 3, lr: 0.05 });
    for (let s = 0; s < 6; s++) full.learnMany(randomBatch(10 + s, 5, 9, 7, masked && s % 2 === 0));
    const local = LemlStream.fromState(asMode(full.toState(), { update: "local" }));
    const batch = randomBatch(99, 6, 9, 7, masked);
    const gf = full.batchGradient(batch), gl = local.batchGradient(batch);
    assert(gf.W.join() === gl.W.join(), `masked=${masked}: W gradients differ`);
    let touched = 0;
    for (let l = 0; l < 7; l++) {
      const rl = gl.H.subarray(l * 5, l * 5 + 5), rf = gf.H.subarray(l * 5, l * 5 + 5);
      if (rl.every((v) => v === 0) && gl.bias[l] === 0) continue;
      touched++;
      assert(rl.join() === rf.join(), `masked=${masked}, label ${l}: H rows differ`);
      assert(gl.bias[l] === gf.bias[l], `masked=${masked}, label ${l}: biases differ`);
    }
    // every positive is touched (and no more than L labels exist)
    const pos = new Set(batch.y.indices);
    assert(touched >= pos.size, `masked=${masked}: ${touched} touched < ${pos.size} positives`);
    // batchGradient leaves the model alone
    assert(
      stateDifference(local.toState(), LemlStream.fromState(local.toState()).toState()) ===
        undefined,
      "state",
    );
  }
});

Deno.test("leml local: after many steps the u part (W gradient) still equals the full mode's on the same factors", () => {
  const local = new LemlStream({ rank: 6, seed: 4, lr: 0.03, update: "local", gramRecompute: 1e9 });
  for (let s = 0; s < 60; s++) local.learnMany(sparseBatch(200 + s, 8, 30 + s, 20 + s));
  const st = local.toState();
  assert(st.scalars.gramRecomputes === 1, `recomputed ${st.scalars.gramRecomputes} times`);
  const full = LemlStream.fromState(asMode(st));
  const batch = sparseBatch(999, 8, 89, 79);
  const gl = local.batchGradient(batch).W, gf = full.batchGradient(batch).W;
  let scale = 0, diff = 0, nonzero = 0;
  for (let a = 0; a < gf.length; a++) {
    scale = Math.max(scale, Math.abs(gf[a]));
    diff = Math.max(diff, Math.abs(gf[a] - gl[a]));
    if (gf[a] !== 0) nonzero++;
  }
  assert(nonzero > 50 && scale > 0, `degenerate gradient (${nonzero} non-zeros)`);
  assert(diff <= 1e-10 * scale, `W gradients differ by ${diff} (scale ${scale})`);
});

Deno.test("leml local: the cached Gram equals HᵀH and Hᵀb recomputed, after many steps, new labels and refreshes", () => {
  const m = new LemlStream({
    rank: 7,
    seed: 2,
    lr: 0.05,
    update: "local",
    replay: 20,
    refreshEvery: 15,
    refreshCg: 2,
    gramRecompute: 1e9,
  });
  for (let s = 0; s < 80; s++) m.learnMany(sparseBatch(300 + s, 6, 40 + s, 10 + 2 * s));
  const st = m.toState(), k = 7, L = m.numLabels;
  assert(L === 168 && m.refreshStats.count > 20, `L ${L}, ${m.refreshStats.count} refreshes`);
  assert(st.scalars.gramRecomputes === 1 && st.scalars.gramUpdates > 1000, "incremental only");
  const H = st.tensors.H, b = st.tensors.bias, G = st.tensors.gram, hb = st.tensors.gramHb;
  let err = 0, scale = 0;
  for (let a = 0; a < k; a++) {
    let t = 0;
    for (let l = 0; l < L; l++) t += H[l * k + a] * b[l];
    err = Math.max(err, Math.abs(t - hb[a]));
    for (let c = 0; c < k; c++) {
      let g = 0;
      for (let l = 0; l < L; l++) g += H[l * k + a] * H[l * k + c];
      err = Math.max(err, Math.abs(g - G[a * k + c]));
      scale = Math.max(scale, Math.abs(g));
    }
  }
  assert(scale > 1 && err <= 1e-9 * scale, `Gram drift ${err} (scale ${scale})`);
  // a due recomputation resets the counter
  const r = new LemlStream({ rank: 3, update: "local", gramRecompute: 0 });
  for (let s = 0; s < 3; s++) r.learnMany(sparseBatch(s, 300, 10, 500));
  assert(r.toState().scalars.gramRecomputes >= 2, "the Gram was never recomputed");
});

Deno.test("leml local: a step changes only the batch's W rows and the H rows of its positives and sampled negatives", () => {
  for (const negatives of [0, 3]) {
    const m = new LemlStream({
      rank: 4,
      seed: 1,
      lr: 0.05,
      update: "local",
      localNegatives: negatives,
      numFeatures: 200,
      numLabels: 300,
    });
    for (let s = 0; s < 5; s++) m.learnMany(sparseBatch(50 + s, 4, 200, 300));
    const before = m.toState();
    const batch = sparseBatch(77, 4, 200, 300);
    m.learnMany(batch);
    const after = m.toState(), k = 4;
    const pos = new Set(batch.y.indices), feats = new Set(batch.x.indices);
    let changed = 0;
    for (let l = 0; l < 300; l++) {
      let same = after.tensors.bias[l] === before.tensors.bias[l] &&
        after.tensors.mH[l * k] === before.tensors.mH[l * k];
      for (let c = 0; c < k; c++) {
        same &&= after.tensors.H[l * k + c] === before.tensors.H[l * k + c];
      }
      if (!same) changed++;
      if (pos.has(l)) assert(!same, `negatives=${negatives}: positive ${l} did not move`);
      else if (negatives === 0) assert(same, `label ${l} moved without being in the batch`);
    }
    assert(changed <= pos.size + negatives * 4, `${changed} label rows changed`);
    if (negatives > 0) assert(changed > pos.size, "no sampled negative was updated");
    for (let j = 0; j < 200; j++) {
      const a = after.tensors.W.subarray(j * k, j * k + k).join();
      const same = a === before.tensors.W.subarray(j * k, j * k + k).join();
      assert(feats.has(j) ? !same : same, `W row ${j}`);
    }
  }
});

/** The reservoir's mean squared loss over all labels, naively, from a state. */
function reservoirLoss(st: ModelState, k: number): number {
  const t = st.tensors, L = st.scalars.numLabels, n = t.resXIndptr.length - 1;
  let f = 0;
  for (let i = 0; i < n; i++) {
    const u = new Float64Array(k);
    for (let p = t.resXIndptr[i]; p < t.resXIndptr[i + 1]; p++) {
      for (let c = 0; c < k; c++) u[c] += t.resXValues[p] * t.W[t.resXIndices[p] * k + c];
    }
    const pos = new Set(Array.from(t.resYIndices.subarray(t.resYIndptr[i], t.resYIndptr[i + 1])));
    for (let l = 0; l < L; l++) {
      let z = t.bias[l];
      for (let c = 0; c < k; c++) z += u[c] * t.H[l * k + c];
      f += 0.5 * (z - (pos.has(l) ? 1 : 0)) ** 2;
    }
  }
  return f / n;
}

Deno.test("leml local: the refresh lowers the reservoir's squared loss and leaves labels outside it alone", () => {
  for (const opts of [{ refreshCg: 0, refreshProx: 0 }, { refreshCg: 4 }, {}]) {
    const name = JSON.stringify(opts);
    const m = new LemlStream({
      rank: 5,
      seed: 6,
      lr: 0.02,
      update: "local",
      replay: 40,
      refreshEvery: 0,
      ...opts,
    });
    for (let s = 0; s < 30; s++) m.learnMany(sparseBatch(400 + s, 8, 60, 50));
    const before = m.toState();
    const inRes = new Set(before.tensors.resYIndices);
    const r = m.refresh();
    const after = m.toState();
    const f0 = reservoirLoss(before, 5), f1 = reservoirLoss(after, 5);
    assert(f1 < f0, `${name}: loss ${f0} → ${f1}`);
    assert(r.rows === 40 && r.labels === inRes.size, `${name}: ${JSON.stringify(r)}`);
    assert(m.refreshStats.count === 1 && m.refreshStats.lastMs >= 0, `${name}: stats`);
    for (let l = 0; l < 50; l++) {
      const a = after.tensors.H.subarray(l * 5, l * 5 + 5).join();
      const same = a === before.tensors.H.subarray(l * 5, l * 5 + 5).join();
      assert(inRes.has(l) ? !same : same, `${name}: label ${l} (in reservoir: ${inRes.has(l)})`);
    }
    if (opts.refreshProx === 0) {
      // the refreshed rows are the exact ridge solutions: their gradient on the reservoir is ~0
      const t = after.tensors, n = 40, k = 5, lam = 1e-4;
      const U = new Float64Array(n * k);
      for (let i = 0; i < n; i++) {
        for (let p = t.resXIndptr[i]; p < t.resXIndptr[i + 1]; p++) {
          for (let c = 0; c < k; c++) {
            U[i * k + c] += t.resXValues[p] * t.W[t.resXIndices[p] * k + c];
          }
        }
      }
      let worst = 0;
      for (const l of inRes) {
        const g = new Float64Array(k + 1);
        for (let i = 0; i < n; i++) {
          let z = t.bias[l], y = 0;
          for (let c = 0; c < k; c++) z += U[i * k + c] * t.H[l * k + c];
          for (let p = t.resYIndptr[i]; p < t.resYIndptr[i + 1]; p++) {
            if (t.resYIndices[p] === l) y = 1;
          }
          for (let c = 0; c < k; c++) g[c] += (z - y) * U[i * k + c] / n;
          g[k] += (z - y) / n;
        }
        for (let c = 0; c < k; c++) g[c] += lam * t.H[l * k + c];
        for (const v of g) worst = Math.max(worst, Math.abs(v));
      }
      assert(worst < 1e-4, `${name}: ridge gradient ${worst}`);
    }
  }
});

Deno.test("leml local: refreshes run every refreshEvery rows and are counted", () => {
  const m = new LemlStream({ rank: 3, update: "local", replay: 16, refreshEvery: 10 });
  for (let s = 0; s < 12; s++) m.learnMany(sparseBatch(s, 4, 20, 12));
  const st = m.refreshStats;
  assert(st.count === 4 && st.rowsSinceLast === 8, JSON.stringify(st));
  assert(st.last !== undefined && st.last.rows === 16 && st.totalMs >= st.lastMs, "last refresh");
  // the default period is the reservoir's size; refreshRows caps the rows used
  const d = new LemlStream({ rank: 3, update: "local", replay: 8, refreshRows: 5 });
  for (let s = 0; s < 5; s++) d.learnMany(sparseBatch(s, 4, 20, 12));
  assert(d.refreshStats.count === 2 && d.refreshStats.last?.rows === 5, "default period");
  // no reservoir: never
  const z = new LemlStream({ rank: 3, update: "local", refreshEvery: 4 });
  for (let s = 0; s < 5; s++) z.learnMany(sparseBatch(s, 4, 20, 12));
  assert(z.refreshStats.count === 0, "refreshed without a reservoir");
});

Deno.test("leml local: a restored model continues exactly like the original (Gram, sampler, counters)", () => {
  for (const extra of [{}, { l2Normalize: true, optimizer: "sgd" }, { replayRatio: 1 }]) {
    const opts = {
      rank: 4,
      seed: 8,
      lr: 0.03,
      update: "local",
      replay: 12,
      refreshEvery: 9,
      refreshCg: 2,
      ...extra,
    };
    const a = new LemlStream(opts);
    for (let s = 0; s < 10; s++) a.learnMany(sparseBatch(600 + s, 5, 20 + s, 10 + s));
    const b = LemlStream.fromState(a.toState());
    assert(stateDifference(a.toState(), b.toState()) === undefined, "restore differs");
    for (let s = 10; s < 25; s++) {
      const batch = sparseBatch(600 + s, 5, 20 + s, 10 + s); // new features and labels
      a.learnMany(batch);
      b.learnMany(batch);
    }
    const diff = stateDifference(a.toState(), b.toState());
    assert(diff === undefined, `${JSON.stringify(extra)}: ${diff}`);
    assert(a.refreshStats.count === b.refreshStats.count && a.refreshStats.count > 5, "counts");
    // the replica: W, H, bias only; it predicts like the model
    const rs = a.toReplicaState();
    assert(Object.keys(rs.tensors).join() === "W,H,bias", Object.keys(rs.tensors).join());
    const r = LemlStream.fromState(rs, true);
    const x = { indices: Int32Array.of(1, 5, 9), values: Float32Array.of(1, 0.5, 2) };
    assert(r.predictScores(x).join() === a.predictScores(x).join(), "replica scores");
  }
});

Deno.test("leml local: the full mode's state is unchanged (no local keys or tensors)", () => {
  const m = new LemlStream({ rank: 3, seed: 1 });
  m.learnMany(sparseBatch(1, 4, 10, 5));
  const st = m.toState();
  assert(!("update" in st.config) && !("refreshEvery" in st.config), "config keys");
  assert(st.tensors.gram === undefined && st.scalars.refreshCount === undefined, "local state");
  assert(m.refreshStats.count === 0, "refresh stats");
});

Deno.test("leml local: scoreThenLearn scores before the batch and then learns exactly like learnMany", () => {
  for (const extra of [{}, { l2Normalize: true }, { replayRatio: 1, replaySteps: 2 }]) {
    const opts = { rank: 4, seed: 3, lr: 0.05, update: "local", replay: 10, ...extra };
    const a = new LemlStream(opts), b = new LemlStream(opts);
    for (let s = 0; s < 12; s++) {
      const batch = sparseBatch(900 + s, 1 + (s * 5) % 9, 10 + s, 6 + s);
      const expected = [];
      for (let i = 0; i < batch.x.numRows; i++) {
        const p0 = batch.x.indptr[i], p1 = batch.x.indptr[i + 1];
        const x = {
          indices: batch.x.indices.subarray(p0, p1),
          values: batch.x.values.subarray(p0, p1),
        };
        expected.push(a.predictTopK(x, 3));
      }
      a.learnMany(batch);
      const got = b.scoreThenLearn(batch, 3);
      for (let i = 0; i < got.length; i++) {
        assert(
          got[i].labels.join() === expected[i].labels.join() &&
            got[i].scores.join() === expected[i].scores.join(),
          `${JSON.stringify(extra)}, batch ${s}, row ${i}`,
        );
      }
    }
    const diff = stateDifference(a.toState(), b.toState());
    assert(diff === undefined, `${JSON.stringify(extra)}: ${diff}`);
  }
});
