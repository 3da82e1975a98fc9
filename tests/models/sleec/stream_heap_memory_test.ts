/**
 * A streaming SLEEC cluster's scratch for a row's label-space neighbours is bounded by its
 * reservoir (the neighbours come from it), not by svpNeighbours alone.
 */
import { SleecStream } from "../../../src/models/sleec/stream.ts";
import { assert } from "../../helpers.ts";

Deno.test("sleec stream: a large svpNeighbours does not reserve scratch past the reservoir", () => {
  const before = Deno.memoryUsage().external;
  const m = new SleecStream({
    rank: 1,
    numClusters: 64,
    svpNeighbours: 2 ** 20,
    reservoirSize: 100,
    firstRefresh: 1e6,
  });
  // orthogonal rows: each opens a cluster of its own
  for (let i = 0; i < 64; i++) {
    m.learnOne({ indices: Int32Array.of(i), values: Float32Array.of(1) }, [0]);
  }
  const grown = Deno.memoryUsage().external - before;
  assert(m.toState().scalars["l0.clusters"] === 64, "64 clusters opened");
  // 64 clusters of 64 features at rank 1 and reservoirs of one row need a few kilobytes; a
  // heap of 2^20 entries each (20 MB a cluster) reserved 1.3 GB
  assert(grown < 64 * 2 ** 20, `${(grown / 2 ** 20).toFixed(1)} MB of array buffers`);
});
