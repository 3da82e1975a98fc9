// Pruning a file POP already pruned, when nothing more is dropped ("16 of 16 weights"), reported
// `pruned: true` and wrote a copy whose only change was a shorter `meta.pop`. Now it is
// "already pruned: nothing more to drop" (`pruned: false`, the input kept, no file written),
// while dropping more weights, or a genuine f32 → f16 shrink, still counts as pruned.
import { runPrune } from "../../src/cli/prune.ts";
import { pruneModel } from "../../src/prune/prune_model.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { trainBr } from "../../src/models/br/mod.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { labelCounts } from "../../src/data/dataset.ts";
import { makeBatch, plantedData } from "../models/estimator_checks.ts";
import { assert, assertEquals, withTempDir } from "../helpers.ts";

const DATA = plantedData(400, 8, 5);
const TRAIN = makeBatch(DATA.rows.slice(0, 300), DATA.numFeatures, DATA.numLabels);
const VALID = makeBatch(DATA.rows.slice(300), DATA.numFeatures, DATA.numLabels);
const COUNTS = labelCounts(TRAIN.y);
const P = propensities(COUNTS, 300);
/** Options under which POP drops no weight: every label keeps all (δ above its count), λ = 0. */
const KEEP_ALL = { lambda: 0, delta: 1000 };

/** The unpruned BR file (f32 weights, i32 label indices). */
function brFile(): Uint8Array {
  return trainBr(TRAIN.x, TRAIN.y, { C: 1 }, { l2Normalize: true }).toModelFile();
}

/** `file` with a longer `meta.pop` (as a pruning with longer numbers or settings leaves). */
function withLongerPopMeta(file: Uint8Array): Uint8Array {
  const c = decodeModelFile(file);
  const pop = c.meta?.pop as Record<string, unknown>;
  return encodeModelFile({ ...c, meta: { ...c.meta, pop: { ...pop, note: "x".repeat(300) } } });
}

Deno.test("pruneModel: a pruned file of which nothing more is dropped is 'already pruned'", () => {
  const first = pruneModel(decodeModelFile(brFile()), VALID, COUNTS, P, { lambda: 0.04, delta: 2 });
  assert(first.pruned && first.search.nnzAfter < first.search.nnzBefore, first.reason);
  const input = withLongerPopMeta(first.bytes);
  const again = pruneModel(decodeModelFile(input), VALID, COUNTS, P, KEEP_ALL, input);
  assertEquals(again.search.nnzAfter, again.search.nnzBefore);
  // the re-encoded file is smaller (its meta.pop is shorter), but that is no pruning
  assert(again.prunedBytes < again.originalBytes, `${again.prunedBytes} ${again.originalBytes}`);
  assertEquals(again.pruned, false, again.reason);
  assert(
    /^not pruned: already pruned: nothing more to drop \(all \d+ weights kept; f16\/u16 storage is no smaller than the file's f16\/u16\)$/
      .test(again.reason),
    again.reason,
  );
  assert(again.bytes === input, "the input's bytes are kept");
  // dropping more weights from it still counts as pruning
  const more = pruneModel(decodeModelFile(input), VALID, COUNTS, P, { lambda: 0.3, delta: 1 });
  assert(more.search.nnzAfter < more.search.nnzBefore && more.pruned, more.reason);
});

Deno.test("pruneModel: nothing dropped counts as pruned only when the storage shrinks", () => {
  const f32 = brFile();
  // f32/i32 → f16/u16 with every weight kept: a genuine shrink
  const shrunk = pruneModel(decodeModelFile(f32), VALID, COUNTS, P, KEEP_ALL, f32);
  assertEquals(shrunk.search.nnzAfter, shrunk.search.nnzBefore);
  assert(shrunk.pruned && shrunk.bytes.length < f32.length, shrunk.reason);
  // f32/i32 kept as f32/i32: nothing to drop
  const same = pruneModel(
    decodeModelFile(f32),
    VALID,
    COUNTS,
    P,
    { ...KEEP_ALL, weightType: "f32", indexType: "i32" },
    f32,
  );
  assertEquals(same.pruned, false, same.reason);
});

Deno.test("deno task prune of an already-pruned file writes nothing and says why", async () => {
  await withTempDir(async (dir) => {
    const lines = [`300 ${DATA.numFeatures} ${DATA.numLabels}`];
    for (const r of DATA.rows.slice(0, 300)) {
      const feats = [...r.x.indices].map((j, q) => `${j}:${r.x.values[q]}`).join(" ");
      lines.push(`${[...r.labels].join(",")} ${feats}`);
    }
    await Deno.writeTextFile(`${dir}/toy.train.txt`, lines.join("\n") + "\n");
    const first = pruneModel(decodeModelFile(brFile()), VALID, COUNTS, P, { lambda: 0.04 });
    await Deno.writeFile(`${dir}/m.pop.tsm`, withLongerPopMeta(first.bytes));
    const messages: string[] = [];
    const s = await runPrune({
      dataset: "toy",
      dataDir: dir,
      model: `${dir}/m.pop.tsm`,
      out: `${dir}/m.pop2.tsm`,
      plot: false,
      ...KEEP_ALL,
      onMessage: (m) => messages.push(m),
    });
    assertEquals([s.pruned, s.out, s.modelBytes], [false, null, null], JSON.stringify(s));
    assert(/already pruned: nothing more to drop/.test(String(s.reason)), String(s.reason));
    const written = await Deno.stat(`${dir}/m.pop2.tsm`).then(() => true, () => false);
    assert(!written, "a copy of the input was written");
    assert(
      messages.some((m) => /^POP cannot help .*already pruned: nothing more to drop/.test(m)),
      messages.join("\n"),
    );
  });
});
