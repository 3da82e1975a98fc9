/**
 * The SLEEC prediction replica (src/models/sleec/replica.ts): what it carries, adopting or
 * copying its arrays, refusing to learn, and clear errors on malformed replica states. (That it
 * predicts exactly like the learner is a step of the shared estimator checks.)
 */
import { factory, SleecReplica, SleecStream } from "../../../src/models/sleec/mod.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assert, assertBadInput, assertEquals } from "../../helpers.ts";

function trained(): SleecStream {
  const m = new SleecStream({ rank: 4, firstRefresh: 8, numLearners: 2, seed: 5 });
  for (let i = 0; i < 40; i++) {
    m.learnOne({ indices: Int32Array.of(i % 7, 7 + (i % 3)), values: Float32Array.of(1, 1) }, [
      i % 4,
    ]);
  }
  return m;
}

Deno.test("SLEEC replica state: the kNN model only, adopted or copied", () => {
  const m = trained();
  const state = m.toReplicaState();
  assertEquals(
    Object.keys(state.tensors).sort().join(),
    "V,centroids,clusterLearner,labelPtr,labels,pointPtr,points",
  );
  const bytes = (s: ModelState) => Object.values(s.tensors).reduce((n, t) => n + t.byteLength, 0);
  const full = m.toState();
  assert(Object.keys(full.tensors).some((k) => k.endsWith(".adamM")), "the full state has more");
  assert(bytes(state) < bytes(full), `replica ${bytes(state)} B, state ${bytes(full)} B`);
  const adopted = factory.restore(state, { adopt: true });
  const copied = factory.restore(state);
  assert(adopted instanceof SleecReplica && copied instanceof SleecReplica, "replica classes");
  const x = { indices: Int32Array.of(1, 8), values: Float32Array.of(1, 1) };
  const before = copied.predictScores(x).join();
  assertEquals(adopted.predictScores(x).join(), before);
  // adopting shares the arrays: moving the points moves the adopted replica only
  (state.tensors.labels as Int32Array).fill(0);
  assert(adopted.predictScores(x).join() !== before, "adopted did not share");
  assertEquals(copied.predictScores(x).join(), before);
  assertEquals(factory.restore(copied.toState()).predictScores(x).join(), before);
});

Deno.test("SLEEC replica: cannot learn; bad replica states are clear errors", () => {
  const m = trained();
  const r = factory.restore(m.toReplicaState());
  const x = { indices: Int32Array.of(0), values: Float32Array.of(1) };
  const edited = (edit: (s: ModelState & { scalars: Record<string, number> }) => void) => {
    const s = structuredClone(m.toReplicaState()) as ModelState & {
      scalars: Record<string, number>;
    };
    edit(s);
    return () => factory.restore(s);
  };
  assertBadInput([
    [() => r.learnOne(x, [0]), /sleec replica: a prediction replica cannot learn/],
    [() => SleecStream.fromState(m.toReplicaState()), /replica state holds only the kNN model/],
    [
      edited((s) => delete s.tensors.points),
      /^SLEEC replica: tensor points must be a Float32Array of length \d+ \(.*\), got none$/,
    ],
    [edited((s) => (s.tensors.V = new Float64Array(3))), /tensor V must be a Float32Array/],
    [edited((s) => (s.scalars.k = 0)), /^SLEEC replica: scalar k must be an integer >= 1, got 0$/],
    [
      edited((s) => (s.scalars.numClusters += 1)),
      /^SLEEC replica: tensor centroids must be a Float32Array of length \d+ \(.*\), got length \d+$/,
    ],
  ]);
});
