// Compares the streaming metrics with an independent brute-force implementation (full sort of
// every row, explicit pair loops for the AUCs) on random data with many ties.
import { Evaluator, propensities } from "../../src/metrics/mod.ts";
import { mulberry32 } from "../mulberry32.ts";

interface Row {
  scores: number[];
  truth: number[];
  /** Listed labels of the sparse form (the others are unscored, never ranked). */
  listed: number[];
}

function randomRows(seed: number, numRows: number, numLabels: number): Row[] {
  const rand = mulberry32(seed);
  const rows: Row[] = [];
  for (let i = 0; i < numRows; i++) {
    const scores: number[] = [];
    const listed: number[] = [];
    for (let l = 0; l < numLabels; l++) {
      // coarse values give many ties, zeros and negatives
      const isListed = rand() < 0.5;
      const v = isListed ? Math.round(rand() * 8) / 4 - 0.5 : 0;
      scores.push(v);
      if (isListed) listed.push(l);
    }
    const truth: number[] = [];
    const card = rand() < 0.15 ? 0 : 1 + Math.floor(rand() * 4);
    while (truth.length < Math.min(card, numLabels)) {
      const l = Math.floor(rand() * numLabels);
      if (!truth.includes(l)) truth.push(l);
    }
    truth.sort((a, b) => a - b);
    rows.push({ scores, truth, listed });
  }
  return rows;
}

/** Ranking of the scored labels by the documented rule, by a full comparison sort. */
function ranking(scores: number[], scored: number[]): number[] {
  return [...scored].sort((a, b) => scores[b] - scores[a] || a - b);
}

/**
 * The metrics of `rows`: every label scored (`sparse` false), or only the listed labels
 * (`sparse` true: the others are never ranked and rank below every listed label in the AUCs).
 */
function bruteForce(
  allRows: Row[],
  numLabels: number,
  prop: Float64Array,
  ks: number[],
  sparse: boolean,
) {
  const rows = allRows.map((r) => ({
    ...r,
    scored: sparse ? r.listed : r.scores.map((_, l) => l),
    scores: sparse ? r.scores.map((v, l) => r.listed.includes(l) ? v : -Infinity) : r.scores,
  }));
  const out: Record<string, number> = {};
  const w = Array.from(prop, (p) => 1 / p);
  const disc = (j: number) => 1 / Math.log2(j + 2);
  for (const k of ks) {
    let p = 0, nd = 0, pspNum = 0, pspDen = 0, psnNum = 0, psnDen = 0;
    const found = new Set<number>();
    const seen = new Set<number>();
    for (const r of rows) {
      const rank = ranking(r.scores, r.scored).slice(0, k);
      const isTrue = (l: number) => r.truth.indexOf(l) !== -1;
      r.truth.forEach((l) => seen.add(l));
      let hits = 0, dcg = 0, ps = 0, psd = 0;
      rank.forEach((l, j) => {
        if (isTrue(l)) {
          hits++;
          dcg += disc(j);
          ps += w[l];
          psd += w[l] * disc(j);
          found.add(l);
        }
      });
      const m = Math.min(k, r.truth.length);
      let ideal = 0;
      for (let j = 0; j < m; j++) ideal += disc(j);
      const best = r.truth.map((l) => w[l]).sort((a, b) => b - a).slice(0, k);
      p += hits / k;
      if (m > 0) {
        nd += dcg / ideal;
        pspNum += ps;
        pspDen += best.reduce((a, b) => a + b, 0);
        psnNum += psd / ideal;
        psnDen += best.reduce((a, b, j) => a + b * disc(j), 0) / ideal;
      }
    }
    out[`P@${k}`] = (100 * p) / rows.length;
    out[`nDCG@${k}`] = (100 * nd) / rows.length;
    out[`PSP@${k}`] = (100 * pspNum) / pspDen;
    out[`PSnDCG@${k}`] = (100 * psnNum) / psnDen;
    out[`coverage@${k}`] = (100 * found.size) / seen.size;
  }
  // per-instance AUC by explicit pairs
  let aucSum = 0, aucRows = 0, hamming = 0;
  for (const r of rows) {
    let won = 0, pairs = 0;
    for (const a of r.truth) {
      for (let b = 0; b < numLabels; b++) {
        if (r.truth.includes(b)) continue;
        pairs++;
        won += r.scores[a] > r.scores[b] ? 1 : r.scores[a] === r.scores[b] ? 0.5 : 0;
      }
    }
    if (pairs > 0) {
      aucSum += won / pairs;
      aucRows++;
    }
    let wrong = 0;
    for (let l = 0; l < numLabels; l++) if ((r.scores[l] > 0) !== r.truth.includes(l)) wrong++;
    hamming += wrong / numLabels;
  }
  out.instanceAUC = aucSum / aucRows;
  out.hamming = hamming / rows.length;
  // macro AUC by explicit pairs of rows per label
  let macroSum = 0, macroLabels = 0;
  for (let l = 0; l < numLabels; l++) {
    const pos = rows.filter((r) => r.truth.includes(l)).map((r) => r.scores[l]);
    const neg = rows.filter((r) => !r.truth.includes(l)).map((r) => r.scores[l]);
    if (pos.length === 0 || neg.length === 0) continue;
    let won = 0;
    for (const a of pos) for (const b of neg) won += a > b ? 1 : a === b ? 0.5 : 0;
    macroSum += won / (pos.length * neg.length);
    macroLabels++;
  }
  out.macroAUC = macroSum / macroLabels;
  return out;
}

function compare(actual: Record<string, number>, expected: Record<string, number>, tag: string) {
  for (const key of Object.keys(expected)) {
    const a = actual[key], e = expected[key];
    if (!(Math.abs(a - e) <= 1e-9)) throw new Error(`${tag} ${key}: expected ${e}, got ${a}`);
  }
  const extra = Object.keys(actual).filter((k) => !(k in expected));
  if (extra.length > 0) throw new Error(`${tag}: unexpected keys ${extra}`);
}

for (const [seed, numRows, numLabels, k] of [[1, 200, 12, 5], [2, 150, 40, 10], [3, 60, 3, 5]]) {
  Deno.test(`streaming metrics equal brute force (seed ${seed}, L=${numLabels}, k=${k})`, () => {
    const rows = randomRows(seed, numRows, numLabels);
    const counts = new Float64Array(numLabels);
    const rand = mulberry32(seed + 100);
    for (let l = 0; l < numLabels; l++) counts[l] = Math.floor(rand() * 50);
    const prop = propensities(counts, 500);
    const ks = [...new Set([1, 3, 5, k].filter((c) => c <= k))];
    const expected = bruteForce(rows, numLabels, prop, ks, false);
    const expectedSparse = bruteForce(rows, numLabels, prop, ks, true);
    const dense = new Evaluator(numLabels, { propensities: prop, k });
    const sparse = new Evaluator(numLabels, { propensities: prop, k });
    for (const r of rows) {
      dense.addScores(Float32Array.from(r.scores), Int32Array.from(r.truth));
      // sparse form, listed in a scrambled order
      const order = [...r.listed].reverse();
      sparse.addSparseScores(
        Int32Array.from(order),
        Float64Array.from(order.map((l) => r.scores[l])),
        Int32Array.from(r.truth),
      );
    }
    compare(dense.result(), expected, "dense");
    compare(sparse.result(), expectedSparse, "sparse");
  });
}
