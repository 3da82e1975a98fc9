// predictTopK's `probes` option in the trainers' models with a label index (LEML, CoEmbed and
// its replica) is checked as the SDK checks it: absent or an integer in [1, 2^32). Before, NaN
// scanned every label and 0 or 2.5 were clamped, silently.
import { LowRankScorer } from "../../src/models/leml/lowrank.ts";
import { CoEmbedEstimator, type CoEmbedReplica, factory } from "../../src/models/coembed/mod.ts";
import type { TopKQueryOptions } from "../../src/models/label_index.ts";
import type { SparseVector } from "../../src/data/types.ts";
import type { TopK } from "../../sdk/topk.ts";
import { assertEquals, assertThrowsMsg } from "../helpers.ts";

const x: SparseVector = { indices: Int32Array.of(0), values: Float32Array.of(1) };
const BAD = [Number.NaN, 0, -1, 2.5, Infinity, 2 ** 32, "2" as unknown as number];

async function checkModel(
  name: string,
  predict: (o: TopKQueryOptions) => TopK,
): Promise<void> {
  const exact = predict({ exact: true });
  for (const p of [undefined, null as unknown as number, 1, 3, 2 ** 32 - 1]) {
    // without an index every accepted value gives the exact answer
    assertEquals(predict({ probes: p }), exact, `${name}, probes ${p}`);
  }
  for (const p of BAD) {
    for (const exactToo of [false, true]) {
      await assertThrowsMsg(
        () => predict({ probes: p, exact: exactToo }),
        RangeError,
        `probes must be an integer in [1, 4294967295], got ${p}`,
      );
    }
  }
}

Deno.test("predictTopK: probes is absent or an integer in [1, 2^32) in LEML, CoEmbed and the CoEmbed replica", async () => {
  const s = new LowRankScorer(1, 1, 3, 0);
  s.w.data[0] = 1;
  s.h.data.set([1, 3, 2]);
  await checkModel("leml", (o) => s.predictTopK(x, 2, o));
  const est = CoEmbedEstimator.create({ variant: "NL", numRff: 8, seed: 1 }, 2, 4);
  est.learnMany({
    x: {
      numRows: 1,
      numCols: 2,
      indptr: Int32Array.of(0, 1),
      indices: Int32Array.of(0),
      values: Float32Array.of(1),
    },
    y: {
      numRows: 1,
      numCols: 4,
      indptr: Int32Array.of(0, 1),
      indices: Int32Array.of(2),
    },
  });
  await checkModel("coembed", (o) => est.predictTopK(x, 2, o));
  const replica = factory.restore(est.toReplicaState()) as CoEmbedReplica;
  await checkModel("coembed replica", (o) => replica.predictTopK(x, 2, o));
});
