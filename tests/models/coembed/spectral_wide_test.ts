/**
 * CoEmbed's spectral initialisation (the batch fit's `init: "spectral"` and the stream's
 * `warmStart`) decomposed a dense D × D Gram matrix whatever the rows: 70,000 text features
 * asked for a 39 GB matrix (the allocation failed; at 50,000, 20 GB and a decomposition that
 * never ends), even on 5 rows. With fewer rows than features it now decomposes the N × N Gram
 * matrix of the rows, which has the same eigenvectors (up to sign), and an eigen-problem past
 * 4096 (both the rows and the features more) is refused naming both, before the rows' block is
 * built.
 *
 * @module
 */
import { spectralInit } from "../../../src/models/coembed/spectral.ts";
import { CoEmbedCore } from "../../../src/models/coembed/core.ts";
import { resolveConfig } from "../../../src/models/coembed/config.ts";
import { fitCoEmbed } from "../../../src/models/coembed/fit.ts";
import { CoEmbedLearner } from "../../../src/models/coembed/learner.ts";
import { Rng } from "../../../src/random/mod.ts";
import { assert, assertBadInput } from "../../helpers.ts";

Deno.test("coembed spectral init: fewer rows than features gives the D × D path's V (up to sign)", () => {
  const N = 6, D = 20, kX = 3, repeat = 4;
  const rng = new Rng(3);
  const x = new Float64Array(N * D), mask = new Uint8Array(N * D);
  for (let i = 0; i < N * D; i++) {
    mask[i] = rng.next() < 0.7 ? 1 : 0;
    x[i] = rng.next() < 0.5 ? 0 : rng.normal();
  }
  const core = () => new CoEmbedCore(resolveConfig({ variant: "L", rankX: kX }), D, 1);
  const wide = core();
  spectralInit(wide, { rows: N, numFeatures: D, numLabels: 1, x, mask, y: new Uint8Array(N) });
  // the same rows `repeat` times (more rows than features): the Gram matrix is `repeat` times
  // as large, its eigenvectors the same, V's columns `repeat`^(1/4) times as long
  const xr = new Float64Array(repeat * N * D), mr = new Uint8Array(repeat * N * D);
  for (let r = 0; r < repeat; r++) {
    xr.set(x, r * N * D);
    mr.set(mask, r * N * D);
  }
  assert(repeat * N >= D);
  const tall = core();
  spectralInit(tall, {
    rows: repeat * N,
    numFeatures: D,
    numLabels: 1,
    x: xr,
    mask: mr,
    y: new Uint8Array(repeat * N),
  });
  for (let k = 0; k < kX; k++) {
    let dot = 0, na = 0, nb = 0;
    for (let d = 0; d < D; d++) {
      const a = wide.V[d * kX + k] * repeat ** 0.25, b = tall.V[d * kX + k];
      dot += a * b;
      na += a * a;
      nb += b * b;
    }
    assert(nb > 0, `column ${k} of the D × D path is 0`);
    assert(Math.abs(Math.abs(dot) / Math.sqrt(na * nb) - 1) < 1e-9, `column ${k}: cos ${dot}`);
    assert(Math.abs(Math.sqrt(na / nb) - 1) < 1e-9, `column ${k}: length ${na} vs ${nb}`);
  }
});

Deno.test("coembed fitCoEmbed: a spectral init on 5 rows of 70,000 features", () => {
  const N = 5, D = 70_000, kX = 3;
  // each row a few features of its own, feature 7 in every row
  const indptr = new Int32Array(N + 1), indices: number[] = [], values: number[] = [];
  for (let i = 0; i < N; i++) {
    indices.push(7, 100 + i, 50_000 + 7 * i);
    values.push(1, 1 + i, 2);
    indptr[i + 1] = indices.length;
  }
  const x = {
    numRows: N,
    numCols: D,
    indptr,
    indices: Int32Array.from(indices),
    values: Float32Array.from(values),
  };
  const y = {
    numRows: N,
    numCols: 2,
    indptr: Int32Array.of(0, 1, 1, 2, 2, 2),
    indices: Int32Array.of(0, 1),
  };
  const fit = fitCoEmbed({ x, y }, { variant: "L", rankX: kX, seed: 1 }, { epochs: 0 });
  const V = fit.core.V, used = new Set(indices);
  // V's columns lie in the span of the rows: 0 on every feature no row has, not all 0 on theirs
  for (let k = 0; k < kX; k++) {
    let onRows = 0;
    for (let d = 0; d < D; d++) {
      if (used.has(d)) onRows += V[d * kX + k] ** 2;
      else assert(V[d * kX + k] === 0, `V[${d}, ${k}] = ${V[d * kX + k]}, a feature no row has`);
    }
    assert(onRows > 0, `column ${k} is 0`);
  }
});

Deno.test("coembed spectral init: past 4096 rows and 4096 features, refused naming both", () => {
  const n = 4097;
  const x = {
    numRows: n,
    numCols: n,
    indptr: Int32Array.from({ length: n + 1 }, (_, i) => i),
    indices: Int32Array.from({ length: n }, (_, i) => i),
    values: new Float32Array(n).fill(1),
  };
  const y = { numRows: n, numCols: 1, indptr: new Int32Array(n + 1), indices: new Int32Array(0) };
  const limit =
    /the spectral initialisation on 4097 rows of 4097 features is a 4097 × 4097 eigen-problem, more than 4096/;
  const m = CoEmbedLearner.create({ variant: "L", warmStart: n, replay: 10 }, 1, 1);
  assertBadInput([
    [() => m.learnMany({ x, y }), new RegExp(`^CoEmbed warm start: ${limit.source}`)],
    [
      () => fitCoEmbed({ x, y }, { variant: "L" }, { epochs: 0 }),
      new RegExp(`^fitCoEmbed: ${limit.source}`),
    ],
  ]);
  // the refused batch changed nothing
  assert(m.numFeatures === 1 && m.rowsSeen === 0 && !m.warmStarted, "the learner changed");
});
