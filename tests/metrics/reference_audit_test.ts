// An audit of the evaluation maths against slow, obviously-correct references written from the
// standard definitions (not from the code under test):
// - P@k, nDCG@k, PSP@k, PSnDCG@k from arbitrary top lists (shorter than k, k beyond the label
//   space, odd cut-offs), the best attainable propensity-scored gain found by trying every
//   ordering of the row's true labels;
// - Jain et al.'s propensities in their exp/log form, for the three published (A, B) pairs;
// - instance and macro AUC as the Mann-Whitney statistic from average (mid) ranks;
// - Hamming loss, coverage and the standard errors from per-row values.
import {
  Evaluator,
  HammingLoss,
  InstanceAuc,
  LabelCoverage,
  MacroAuc,
  NdcgAtK,
  PrecisionAtK,
  propensities,
  PsNdcgAtK,
  PspAtK,
} from "../../src/metrics/mod.ts";
import { RankGainAtK } from "../../src/metrics/rank_gain.ts";
import { assert } from "../helpers.ts";
import { mulberry32 } from "../mulberry32.ts";

function close(actual: number, expected: number, what: string, tol = 1e-9): void {
  const ok = Number.isNaN(expected)
    ? Number.isNaN(actual)
    : Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected));
  assert(ok, `${what}: expected ${expected}, got ${actual}`);
}

function throwsRange(fn: () => unknown, what: string): void {
  try {
    fn();
  } catch (e) {
    assert(e instanceof RangeError, `${what}: expected a RangeError, got ${e}`);
    return;
  }
  throw new Error(`${what}: expected a RangeError`);
}

/** Every ordering of `a` (a is short). */
function permutations(a: number[]): number[][] {
  if (a.length <= 1) return [a.slice()];
  const out: number[][] = [];
  a.forEach((x, i) => {
    for (const p of permutations([...a.slice(0, i), ...a.slice(i + 1)])) out.push([x, ...p]);
  });
  return out;
}

const log2 = (x: number) => Math.log(x) / Math.LN2;
/** DCG discount of the 1-based rank r. */
const disc = (r: number) => 1 / log2(r + 1);

interface RankRow {
  top: number[];
  truth: number[];
}

/**
 * The four ranking metrics from their definitions: per row and cut-off k, the hits among the
 * first k predictions; P@k = hits / k; nDCG@k = DCG@k / IDCG(min(k, |y|)); PSP@k and PSnDCG@k
 * = Σ_rows of the propensity-weighted gain over Σ_rows of the largest gain any ordering of the
 * row's true labels could reach (pyxclib's normalisation), rows with no true label adding 0.
 */
function refRanking(rows: RankRow[], w: number[], ks: number[]) {
  const out: Record<string, number> = {};
  const perRow: Record<string, { g: number; b: number }[]> = {};
  for (const k of ks) {
    let p = 0, nd = 0, pspN = 0, pspD = 0, psnN = 0, psnD = 0;
    const rp: { g: number; b: number }[] = [], rn: { g: number; b: number }[] = [];
    const rps: { g: number; b: number }[] = [], rpsn: { g: number; b: number }[] = [];
    for (const r of rows) {
      let hits = 0, dcg = 0, ps = 0, psd = 0;
      for (let j = 0; j < Math.min(k, r.top.length); j++) {
        if (!r.truth.includes(r.top[j])) continue;
        hits++;
        dcg += disc(j + 1);
        ps += w[r.top[j]];
        psd += w[r.top[j]] * disc(j + 1);
      }
      p += hits / k;
      rp.push({ g: hits / k, b: 1 });
      if (r.truth.length === 0) {
        rn.push({ g: 0, b: 1 });
        continue;
      }
      let idcg = 0;
      for (let j = 1; j <= Math.min(k, r.truth.length); j++) idcg += disc(j);
      nd += dcg / idcg;
      rn.push({ g: dcg / idcg, b: 1 });
      let bestPs = 0, bestPsd = 0;
      for (const perm of permutations(r.truth)) {
        let a = 0, b = 0;
        for (let j = 0; j < Math.min(k, perm.length); j++) {
          a += w[perm[j]];
          b += w[perm[j]] * disc(j + 1);
        }
        bestPs = Math.max(bestPs, a);
        bestPsd = Math.max(bestPsd, b);
      }
      pspN += ps;
      pspD += bestPs;
      psnN += psd / idcg;
      psnD += bestPsd / idcg;
      rps.push({ g: ps, b: bestPs });
      rpsn.push({ g: psd / idcg, b: bestPsd / idcg });
    }
    out[`P@${k}`] = (100 * p) / rows.length;
    out[`nDCG@${k}`] = (100 * nd) / rows.length;
    out[`PSP@${k}`] = pspD > 0 ? (100 * pspN) / pspD : 0;
    out[`PSnDCG@${k}`] = psnD > 0 ? (100 * psnN) / psnD : 0;
    perRow[`P@${k}`] = rp;
    perRow[`nDCG@${k}`] = rn;
    perRow[`PSP@${k}`] = rps;
    perRow[`PSnDCG@${k}`] = rpsn;
  }
  return { out, perRow };
}

/** Standard error of Σg / Σb over independent rows (the delta method; b ≡ 1 gives a mean's). */
function refStdErr(v: { g: number; b: number }[]): number {
  const n = v.length;
  if (n < 2) return 0;
  const sg = v.reduce((a, x) => a + x.g, 0), sb = v.reduce((a, x) => a + x.b, 0);
  if (!(sb > 0)) return 0;
  const r = sg / sb;
  const ss = v.reduce((a, x) => a + (x.g - r * x.b) ** 2, 0);
  return (100 * Math.sqrt(ss / (n * (n - 1)))) / (sb / n);
}

function randomRankRows(seed: number, n: number, L: number): RankRow[] {
  const rand = mulberry32(seed);
  const pick = (m: number) => {
    const s = new Set<number>();
    while (s.size < Math.min(m, L)) s.add(Math.floor(rand() * L));
    return [...s];
  };
  return Array.from({ length: n }, () => ({
    // top lists of any length, possibly shorter than k; distinct labels
    top: pick(Math.floor(rand() * 9)),
    truth: pick(rand() < 0.2 ? 0 : 1 + Math.floor(rand() * 5)).sort((a, b) => a - b),
  }));
}

for (const [seed, L, ks] of [[1, 6, [1, 2, 4, 9]], [2, 30, [3, 7]], [3, 3, [1, 5, 12]]] as const) {
  Deno.test(`P@k, nDCG@k, PSP@k, PSnDCG@k equal their definitions (seed ${seed}, L=${L}, ks=${ks})`, () => {
    const rows = randomRankRows(seed, 150, L);
    const rand = mulberry32(seed + 50);
    // propensities in (0, 1] with ties (equal weights) among them
    const prop = Float64Array.from(
      { length: L },
      () => [0.05, 0.2, 0.2, 0.5, 1][Math.floor(rand() * 5)],
    );
    const w = Array.from(prop, (p) => 1 / p);
    const acc = [
      new PrecisionAtK(ks),
      new NdcgAtK(ks),
      new PspAtK(prop, ks),
      new PsNdcgAtK(prop, ks),
    ];
    for (const r of rows) {
      for (const a of acc) a.add(Int32Array.from(r.top), Int32Array.from(r.truth));
    }
    const { out, perRow } = refRanking(rows, w, [...ks]);
    for (const a of acc) {
      const got = a.result(), se = a.standardErrors();
      for (const key of Object.keys(got)) {
        close(got[key], out[key], key);
        close(se[key], refStdErr(perRow[key]), `stdErr ${key}`, 1e-7);
      }
    }
    const empty = rows.filter((r) => r.truth.length === 0).length;
    assert(acc.every((a) => (a as RankGainAtK).unlabelledRows === empty), "unlabelled rows");
  });
}

Deno.test("PSP@k lies in [0, 100] and is 100 exactly for the best ranking by 1/p (ties included)", () => {
  const rows = randomRankRows(9, 80, 10);
  const prop = Float64Array.from({ length: 10 }, (_, l) => [0.1, 0.4, 0.4, 1][l % 4]);
  const best = [new PspAtK(prop, [1, 2, 3, 5]), new PsNdcgAtK(prop, [1, 2, 3, 5])];
  for (const r of rows) {
    // the true labels by decreasing weight (ties in either order), then the others
    const top = [...r.truth].sort((a, b) => prop[a] - prop[b] || b - a);
    for (let l = 0; l < 10; l++) if (!top.includes(l)) top.push(l);
    for (const a of best) a.add(Int32Array.from(top), Int32Array.from(r.truth));
  }
  for (const a of best) {
    for (const [key, v] of Object.entries(a.result())) close(v, 100, key);
  }
});

Deno.test("propensities: Jain et al.'s 1 / (1 + C e^(-A ln(N_l + B))) for the published A, B", () => {
  const counts = [0, 1, 2, 7, 50, 999, 12345];
  for (const [A, B] of [[0.55, 1.5], [0.5, 0.4], [0.6, 2.6]]) {
    for (const N of [3, 10, 1000, 1e6]) {
      const C = (Math.log(N) - 1) * Math.exp(A * Math.log(B + 1));
      const p = propensities(counts, N, A, B);
      counts.forEach((nl, l) => {
        close(
          p[l],
          1 / (1 + C * Math.exp(-A * Math.log(nl + B))),
          `A=${A} B=${B} N=${N} N_l=${nl}`,
        );
        assert(p[l] > 0 && p[l] <= 1, "in (0, 1]");
      });
    }
  }
  // defaults are the repository's A = 0.55, B = 1.5
  const d = propensities(counts, 500), e = propensities(counts, 500, 0.55, 1.5);
  counts.forEach((_, l) => close(d[l], e[l], "defaults"));
});

/** Mann-Whitney AUC from average (mid) ranks: (Σ ranks of positives − P(P+1)/2) / (P·N). */
function midRankAuc(scores: number[], positive: boolean[]): number {
  const n = scores.length;
  const order = scores.map((_, i) => i).sort((a, b) =>
    scores[a] < scores[b] ? -1 : scores[a] > scores[b] ? 1 : 0
  );
  const rank = new Array<number>(n);
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && scores[order[j + 1]] === scores[order[i]]) j++;
    for (let t = i; t <= j; t++) rank[order[t]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  const P = positive.filter((x) => x).length, N = n - P;
  if (P === 0 || N === 0) return NaN;
  let s = 0;
  for (let i = 0; i < n; i++) if (positive[i]) s += rank[i];
  return (s - (P * (P + 1)) / 2) / (P * N);
}

interface ScoredRow {
  /** Label-space size of the row. */
  width: number;
  /** Score per label; -Infinity = unscored, only in "unscored" sparse rows. */
  scores: number[];
  truth: number[];
  /** How the row is added: dense, or sparse with unlisted labels at 0 or unscored. */
  mode: "dense" | "zero" | "unscored";
  listed: number[];
}

function randomScoredRows(seed: number, n: number, L: number, widths: boolean): ScoredRow[] {
  const rand = mulberry32(seed);
  const levels = [-Infinity, -1, -0, 0, 0, 0.5, 0.5, 1, 2, Infinity];
  return Array.from({ length: n }, () => {
    const width = widths ? 1 + Math.floor(rand() * L) : L;
    const mode = (["dense", "zero", "unscored"] as const)[Math.floor(rand() * 3)];
    const raw = Array.from({ length: width }, () => levels[Math.floor(rand() * levels.length)]);
    const listed = raw.map((_, l) => l).filter(() => rand() < 0.6);
    const unlisted = mode === "unscored" ? -Infinity : 0;
    const scores = mode === "dense" ? raw : raw.map((s, l) => listed.includes(l) ? s : unlisted);
    const card = rand() < 0.15 ? 0 : rand() < 0.05 ? width : 1 + Math.floor(rand() * 3);
    const truth = new Set<number>();
    while (truth.size < Math.min(card, width)) truth.add(Math.floor(rand() * width));
    return { width, scores, truth: [...truth].sort((a, b) => a - b), mode, listed };
  });
}

/** Adds a row as its mode says (the Hamming loss has no "unscored" mode: not for those rows). */
function addScored(a: InstanceAuc | MacroAuc | HammingLoss, r: ScoredRow): void {
  const truth = Int32Array.from(r.truth);
  if (r.mode === "dense") {
    a.addDense(Float64Array.from(r.scores), truth);
    return;
  }
  const order = [...r.listed].reverse(); // any order
  const idx = Int32Array.from(order), sc = Float64Array.from(order.map((l) => r.scores[l]));
  if (a instanceof HammingLoss) a.addSparse(idx, sc, r.width, truth);
  else a.addSparse(idx, sc, r.width, truth, r.mode);
}

for (const seed of [11, 12, 13]) {
  Deno.test(`instance AUC, macro AUC and Hamming loss equal their definitions (seed ${seed})`, () => {
    const L = 7;
    const rows = randomScoredRows(seed, 120, L, seed !== 11);
    const inst = new InstanceAuc(), macro = new MacroAuc(), ham = new HammingLoss();
    for (const r of rows) {
      if (r.mode === "unscored") {
        addScored(inst, r);
        addScored(macro, r);
        // the Hamming loss has no "unscored" mode: an unlisted label is predicted negative
        ham.addSparse(
          Int32Array.from(r.listed),
          Float64Array.from(r.listed.map((l) => r.scores[l])),
          r.width,
          Int32Array.from(r.truth),
        );
      } else {
        for (const a of [inst, macro, ham]) addScored(a, r);
      }
    }
    // instance AUC: mean over rows with a positive and a negative
    const per = rows.map((r) => midRankAuc(r.scores, r.scores.map((_, l) => r.truth.includes(l))))
      .filter((x) => !Number.isNaN(x));
    close(inst.result(), per.reduce((a, b) => a + b, 0) / per.length, "instance AUC");
    assert(inst.validRows === per.length && inst.rows === rows.length, "instance AUC rows");
    // macro AUC: per label over the rows whose label space covers it
    let sum = 0, valid = 0;
    for (let l = 0; l < L; l++) {
      const cover = rows.filter((r) => r.width > l);
      const auc = midRankAuc(cover.map((r) => r.scores[l]), cover.map((r) => r.truth.includes(l)));
      if (Number.isNaN(auc)) continue;
      sum += auc;
      valid++;
    }
    close(macro.result(), sum / valid, "macro AUC");
    assert(macro.validLabels === valid && macro.skippedLabels === L - valid, "macro AUC labels");
    // Hamming: per row, mismatches of (score > 0) against the truth over the row's labels
    const h = rows.map((r) =>
      r.scores.filter((s, l) => (s > 0) !== r.truth.includes(l)).length / r.width
    );
    close(ham.result(), h.reduce((a, b) => a + b, 0) / h.length, "Hamming loss");
  });
}

Deno.test("Evaluator: top-k from tied scores, k beyond L, empty rows, coverage, against a full sort", () => {
  for (const [seed, L, k] of [[21, 4, 9], [22, 15, 5], [23, 8, 8]]) {
    const rand = mulberry32(seed);
    const prop = Float64Array.from({ length: L }, () => 0.05 + 0.95 * rand());
    const ev = new Evaluator(L, { propensities: prop, k, macroAuc: false });
    const rows: RankRow[] = [];
    const found = new Map<number, number>(), seen = new Set<number>();
    for (let i = 0; i < 100; i++) {
      const scores = Array.from({ length: L }, () => Math.round(rand() * 4) / 2 - 1);
      const truth = [
        ...new Set(Array.from({ length: Math.floor(rand() * 4) }, () => Math.floor(rand() * L))),
      ]
        .sort((a, b) => a - b);
      const top = scores.map((_, l) => l).sort((a, b) => scores[b] - scores[a] || a - b);
      const got = ev.addScores(Float32Array.from(scores), Int32Array.from(truth));
      assert(got.labels.join() === top.slice(0, k).join(), `row ${i} top-k`);
      rows.push({ top, truth });
      truth.forEach((l) => seen.add(l));
      top.slice(0, k).forEach((l, j) => {
        if (truth.includes(l) && !(found.get(l)! <= j + 1)) found.set(l, j + 1);
      });
    }
    const ks = [1, 3, 5, k].filter((c, i, a) => c <= k && a.indexOf(c) === i);
    const { out } = refRanking(rows, Array.from(prop, (p) => 1 / p), ks);
    const res = ev.result();
    for (const key of Object.keys(out)) close(res[key], out[key], `L=${L} k=${k} ${key}`);
    for (const c of ks) {
      const f = [...found.values()].filter((r) => r <= c).length;
      close(res[`coverage@${c}`], (100 * f) / seen.size, `coverage@${c}`);
    }
    assert(ev.unlabelledRows === rows.filter((r) => r.truth.length === 0).length, "unlabelled");
  }
});

Deno.test("bad inputs leave every accumulator as it was: repeated predictions, NaN scores", () => {
  const p = new PrecisionAtK([1, 2]);
  p.add(Int32Array.of(1, 0), Int32Array.of(1));
  throwsRange(() => p.add(Int32Array.of(1, 1), Int32Array.of(1)), "repeated label");
  close(p.result()["P@2"], 50, "P@2 unchanged");
  const c = new LabelCoverage([1]);
  c.add(Int32Array.of(1, 1), Int32Array.of(1)); // a repeat cannot inflate coverage
  close(c.result()["coverage@1"], 100, "coverage");
  const ev = new Evaluator(3, { propensities: Float64Array.of(1, 1, 1), k: 2 });
  ev.addScores(Float32Array.of(1, 0, 0), Int32Array.of(0));
  const before = JSON.stringify(ev.result());
  throwsRange(() => ev.addScores(Float32Array.of(NaN, 0, 0), Int32Array.of(0)), "NaN dense");
  throwsRange(
    () => ev.addSparseScores(Int32Array.of(2), Float64Array.of(NaN), Int32Array.of(0)),
    "NaN sparse",
  );
  for (const a of [new InstanceAuc(), new MacroAuc(), new HammingLoss()]) {
    throwsRange(() => a.addDense(Float64Array.of(0.5, NaN), Int32Array.of(0)), "NaN");
    assert(a.rows === 0, "nothing counted");
  }
  assert(JSON.stringify(ev.result()) === before && ev.rows === 1, "evaluator unchanged");
});

Deno.test("deno task eval: a predictions file against the metrics recomputed from the raw files", async () => {
  const { evaluatePredictionsFile } = await import("../../src/cli/eval.ts");
  const rand = mulberry32(31);
  const L = 7, nTrain = 60, nTest = 40;
  const labelsLine = () => {
    const s = new Set<number>();
    const m = rand() < 0.15 ? 0 : 1 + Math.floor(rand() * 3);
    // skewed label frequencies: low labels are common
    while (s.size < m) s.add(Math.floor(L * rand() * rand()));
    return [...s].sort((a, b) => a - b);
  };
  const xc = (rows: number[][]) =>
    `${rows.length} 2 ${L}\n` + rows.map((y) => `${y.join(",")} 0:1 1:0.5`).join("\n") + "\n";
  const train = Array.from({ length: nTrain }, labelsLine);
  const test = Array.from({ length: nTest }, labelsLine);
  // listed labels with tied scores, in any order; some lines list nothing
  const preds = test.map(() =>
    Array.from({ length: L }, (_, l) => l).filter(() => rand() < 0.5).reverse()
      .map((l) => [l, Math.round(rand() * 4) / 2 - 1])
  );
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, xc(train));
    await Deno.writeTextFile(`${dir}/toy.test.txt`, xc(test));
    await Deno.writeTextFile(
      `${dir}/p.txt`,
      preds.map((p) => p.map(([l, s]) => `${l}:${s}`).join(" ")).join("\n") + "\n",
    );
    const r = await evaluatePredictionsFile({
      dataset: "toy",
      dataDir: dir,
      predictions: `${dir}/p.txt`,
      k: 4,
    });
    // N_l from the TRAINING labels, N = training rows, A = 0.55, B = 1.5
    const C = (Math.log(nTrain) - 1) * 2.5 ** 0.55;
    const w = Array.from({ length: L }, (_, l) => {
      const nl = train.filter((y) => y.includes(l)).length;
      return 1 + C * (nl + 1.5) ** -0.55;
    });
    const rows = test.map((truth, i) => ({
      truth,
      // listed labels by decreasing score, ties by the smaller label; unlisted never ranked
      top: [...preds[i]].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([l]) => l),
    }));
    const { out } = refRanking(rows, w, [1, 3, 4]);
    for (const key of Object.keys(out)) close(r.metrics[key], out[key], `eval ${key}`);
    // AUCs: unlisted labels rank below every listed one (as -Infinity); Hamming: score > 0
    const full = test.map((_, i) => {
      const s = new Array<number>(L).fill(-Infinity);
      for (const [l, v] of preds[i]) s[l] = v;
      return s;
    });
    const inst = full.map((s, i) => midRankAuc(s, s.map((_, l) => test[i].includes(l))))
      .filter((x) => !Number.isNaN(x));
    close(r.metrics.instanceAUC, inst.reduce((a, b) => a + b, 0) / inst.length, "instanceAUC");
    const macro = Array.from(
      { length: L },
      (_, l) => midRankAuc(full.map((s) => s[l]), test.map((y) => y.includes(l))),
    ).filter((x) => !Number.isNaN(x));
    close(r.metrics.macroAUC, macro.reduce((a, b) => a + b, 0) / macro.length, "macroAUC");
    const ham = full.map((s, i) => s.filter((v, l) => (v > 0) !== test[i].includes(l)).length / L);
    close(r.metrics.hamming, ham.reduce((a, b) => a + b, 0) / ham.length, "hamming");
    assert(r.rows === nTest, "rows");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prequential P@5 reads exact percentages (one hit in five is 20, not 20.0000003)", async () => {
  const { PrequentialWindow } = await import("../../src/metrics/prequential.ts");
  const w = new PrequentialWindow(10);
  for (let i = 0; i < 3; i++) w.record(Int32Array.of(7, 1, 2, 3, 4), Int32Array.of(4));
  const [a, b]: number[] = [w.precisionAt5, w.cumulativeP5];
  assert(a === 20 && b === 20, `${a} ${b}`);
  w.record(Int32Array.of(0, 1, 2, 3, 4), Int32Array.of(0, 1, 2));
  // (3 · 1 + 3) hits over 4 · 5 places
  assert(w.precisionAt5 === 30 && w.cumulativeP5 === 30, `${w.precisionAt5} ${w.cumulativeP5}`);
  const back = PrequentialWindow.fromState(w.toState());
  assert(back.precisionAt5 === 30 && back.cumulativeP5 === 30, "after a checkpoint");
});
