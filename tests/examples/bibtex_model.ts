/**
 * The bibtex model the example tests serve: binary relevance trained by dual coordinate descent
 * on a subset of bibtex's training rows, then pruned by POP's feature thresholding (weights in
 * [−√λ, √λ] zeroed, at least δ kept per label; src/prune), exported as a `linear-sparse` file
 * with the label names. The data directory comes from `--data-dir`, else `$TAGSTREAM_DATA`,
 * else `./data`; without bibtex there the tests are skipped with a message saying so (unless the
 * directory was named explicitly: then they fail).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { resolveDataDir } from "../../src/data/data_dir.ts";
import { loadDataset, loadNames, subsetRows } from "../../src/data/dataset.ts";
import type { SparseVector } from "../../src/data/types.ts";
import { BrEstimator, trainDcd } from "../../src/models/br/mod.ts";
import { thresholdWeights } from "../../src/prune/pop.ts";

/** A trained, pruned bibtex model, its file, and test rows to query. */
export interface BibtexModel {
  file: Uint8Array;
  model: BrEstimator;
  labelNames: string[];
  featureNames: string[];
  rows: SparseVector[];
}

/** `--data-dir` given to `deno test -- --data-dir DIR`, if any. */
function dataDirFlag(): string | undefined {
  const { values } = parseArgs({
    args: Deno.args,
    options: { "data-dir": { type: "string" } },
    strict: false,
  });
  return values["data-dir"] as string | undefined;
}

/**
 * The data guard of the example tests: whether bibtex is in the data directory. Without it the
 * tests are skipped (`ignore: !BIBTEX.present`) and a message says why and how to run them; when
 * the directory was named explicitly (`TAGSTREAM_DATA` or `-- --data-dir`) a missing bibtex is an
 * error instead, so CI cannot skip them silently.
 */
export const BIBTEX: { dir: string; present: boolean } = (() => {
  const flag = dataDirFlag();
  const dir = resolveDataDir(flag);
  let present = false;
  try {
    present = Deno.statSync(`${dir}/bibtex.train.txt`).isFile;
  } catch {
    present = false;
  }
  if (!present && (flag !== undefined || Deno.env.get("TAGSTREAM_DATA"))) {
    throw new Error(
      `bibtex data not found in '${dir}' (no bibtex.train.txt), the directory named by ` +
        `${flag !== undefined ? "--data-dir" : "TAGSTREAM_DATA"}`,
    );
  }
  return { dir, present };
})();

/** Logs why an example test is skipped when bibtex is missing (call beside `ignore:`). */
export function noteSkipped(what: string): void {
  if (BIBTEX.present) return;
  console.log(
    `skipping ${what}: bibtex data not found in '${BIBTEX.dir}' (no bibtex.train.txt); set ` +
      `TAGSTREAM_DATA or pass -- --data-dir DIR to deno test to run it`,
  );
}

/** Where the bibtex files are, or an Error explaining how to provide them. */
export function bibtexDir(): Promise<string> {
  if (!BIBTEX.present) {
    return Promise.reject(
      new Error(
        `bibtex data not found in '${BIBTEX.dir}' (no bibtex.train.txt): set TAGSTREAM_DATA or ` +
          `pass -- --data-dir DIR to deno test`,
      ),
    );
  }
  return Promise.resolve(BIBTEX.dir);
}

/** Trains and prunes BR on training rows [from, to) of bibtex; `testRows` rows to query. */
export async function bibtexModel(from = 0, to = 1500, testRows = 40): Promise<BibtexModel> {
  const dir = await bibtexDir();
  const train = await loadDataset(dir, "bibtex", "train");
  const test = await loadDataset(dir, "bibtex", "test");
  const labelNames = await loadNames(dir, "bibtex", "labels");
  const featureNames = await loadNames(dir, "bibtex", "features");
  const part = subsetRows(train, Array.from({ length: to - from }, (_, i) => from + i));
  const weights = thresholdWeights(trainDcd(part.x, part.y, { C: 1 }), 0.01, 5);
  const model = BrEstimator.fromLabelWeights(weights);
  const file = model.toModelFile({
    labelNames,
    featureNames,
    meta: { dataset: "bibtex", rows: [from, to] },
  });
  const rows = Array.from({ length: testRows }, (_, i) => {
    const s = test.x.indptr[i], e = test.x.indptr[i + 1];
    return { indices: test.x.indices.slice(s, e), values: test.x.values.slice(s, e) };
  });
  return { file, model, labelNames, featureNames, rows };
}

/** Throws unless `got` (JSON answers of an example server) equals the trainer's top-k. */
export function assertSameAnswers(
  got: { labels: string[]; scores: number[] }[],
  m: BibtexModel,
  k: number,
  what: string,
): void {
  if (got.length !== m.rows.length) throw new Error(`${what}: ${got.length} answers`);
  m.rows.forEach((x, i) => {
    const want = m.model.predictTopK(x, k), { labels, scores } = got[i];
    if (labels.length !== want.labels.length) {
      throw new Error(`${what} row ${i}: ${labels.length} labels`);
    }
    want.labels.forEach((l, r) => {
      // the /predict protocol answers label names and scores (sdk/predict_protocol.ts)
      if (labels[r] !== m.labelNames[l] || Math.abs(scores[r] - want.scores[r]) > 1e-6) {
        throw new Error(
          `${what} row ${i} rank ${r}: got ${labels[r]} ${scores[r]}, trainer ${l} ${
            want.scores[r]
          }`,
        );
      }
    });
  });
}
