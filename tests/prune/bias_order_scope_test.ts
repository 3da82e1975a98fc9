// The order of a model's bias, which POP's validation walks for the labels a row does not touch,
// is memoised per run (`biasOrderMemo`), not module-wide: validation.ts kept the last bias and
// its order (8 bytes a label: 8 MB at 10⁶ labels) for the life of the process, serve's POP worker
// included. Runs in one process on models that differ only by their bias must give what fresh
// processes give (a stale order would walk labels by another model's bias), and src/prune must
// hold no module-level state that outlives a run.
//
// Run as a script (`deno run -A bias_order_scope_test.ts A|B`) it prints the digest of one run.
import { pruneModel } from "../../src/prune/prune_model.ts";
import { biasOrderMemo } from "../../src/prune/validation.ts";
import { linearSparseContent } from "../../src/models/label_weights.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { stripComments, tsFiles } from "../source_files.ts";
import { assertEquals } from "../helpers.ts";

const L = 40, D = 48;

/**
 * Label l ← feature l (weight 1) and feature 40 + l % 8 (weight 0.05), with bias l/100 (A) or
 * (17 l mod 40)/100 (B: the same values, shuffled): a row touches few labels, so its top 5 is
 * mostly filled by bias, and a walk in A's order stops early on B's.
 */
function model(which: "A" | "B") {
  const labelPtr = Int32Array.from({ length: L + 1 }, (_, l) => 2 * l);
  const featIdx = Int32Array.from({ length: 2 * L }, (_, p) => p & 1 ? L + ((p >> 1) % 8) : p >> 1);
  const values = Float32Array.from({ length: 2 * L }, (_, p) => p & 1 ? 0.05 : 1);
  const bias = Float32Array.from({ length: L }, (_, l) => (which === "A" ? l : (17 * l) % L) / 100);
  return linearSparseContent({ numFeatures: D, numLabels: L, labelPtr, featIdx, values, bias });
}

/** 60 rows: row i has feature i % L and labels i % L and (7 i) % L (often a bias-only label). */
function rows() {
  const indptr = [0], indices: number[] = [], yptr = [0], yind: number[] = [];
  for (let i = 0; i < 60; i++) {
    indices.push(i % L);
    indptr.push(indices.length);
    yind.push(...[...new Set([i % L, (7 * i) % L])].sort((p, q) => p - q));
    yptr.push(yind.length);
  }
  return {
    x: {
      numRows: 60,
      numCols: D,
      indptr: Int32Array.from(indptr),
      indices: Int32Array.from(indices),
      values: new Float32Array(indices.length).fill(1),
    },
    y: { numRows: 60, numCols: L, indptr: Int32Array.from(yptr), indices: Int32Array.from(yind) },
  };
}

/** What a prune of model `which` gives: its file's bytes, PSP@k and curve, as one string. */
function digest(which: "A" | "B", biasOrders = biasOrderMemo()): string {
  const counts = Float64Array.from({ length: L }, (_, l) => 1 + (l * 13) % 17);
  const r = pruneModel(model(which), rows(), counts, propensities(counts, 60), {
    epsilon: 0.05,
    delta: 1,
    weightType: "f32",
    biasOrders,
    curve: { epsilons: [0, 0.2], lambdas: [0.1] },
  });
  return JSON.stringify([[...r.bytes].join(), r.search.baseline, r.stored, r.curve]);
}

/** The digest of a run of `which` in a fresh process. */
async function fresh(which: "A" | "B"): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, which],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  assertEquals(out.code, 0, dec.decode(out.stderr));
  return dec.decode(out.stdout).trim();
}

if (import.meta.main) console.log(digest(Deno.args[0] as "A" | "B"));

Deno.test("prunes of models that differ only by their bias, in one process, give what fresh processes give", async () => {
  const a = await fresh("A"), b = await fresh("B");
  if (a === b) throw new Error("the bias does not matter to these runs: the test proves nothing");
  // one after the other, in both orders, each with its own memo
  assertEquals([digest("A"), digest("B"), digest("A")], [a, b, a]);
  // and with one memo handed to both runs (it holds the last bias: a new one is sorted anew)
  const shared = biasOrderMemo();
  assertEquals([digest("B", shared), digest("A", shared), digest("B", shared)], [b, a, b]);
});

Deno.test("src/prune holds no module-level variable: nothing a run computed outlives it", async () => {
  const found: string[] = [];
  for await (const file of tsFiles(new URL("../../src/prune/", import.meta.url))) {
    const code = stripComments(await Deno.readTextFile(file));
    for (const line of code.split("\n")) {
      if (/^(export\s+)?(let|var)\s/.test(line)) found.push(`${file.pathname}: ${line.trim()}`);
    }
  }
  assertEquals(found, []);
});
