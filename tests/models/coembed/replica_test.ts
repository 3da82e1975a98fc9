/**
 * The CoEmbed prediction replica (src/models/coembed/replica.ts): what it carries, adopting or
 * copying its arrays, refusing to learn, and clear errors on malformed replica states. (That it
 * predicts exactly like the learner is a step of the shared estimator checks.)
 */
import { CoEmbedEstimator, CoEmbedReplica, factory } from "../../../src/models/coembed/mod.ts";
import type { ModelState } from "../../../src/models/estimator.ts";
import { assert, assertBadInput, assertEquals } from "../../helpers.ts";

function trained(variant: "L" | "NL"): CoEmbedEstimator {
  const m = CoEmbedEstimator.create({ variant, numRff: 16, seed: 3, replay: 8 }, 6, 3);
  for (let i = 0; i < 12; i++) {
    // features strictly increasing, as a SparseVector's are
    const a = i % 6, b = (i + 2) % 6;
    m.learnOne({
      indices: Int32Array.of(Math.min(a, b), Math.max(a, b)),
      values: Float32Array.of(1, 0.5),
    }, [
      i % 3,
    ]);
  }
  return m;
}

Deno.test("CoEmbed replica state: the predictor's tensors only, adopted or copied", () => {
  for (const variant of ["L", "NL"] as const) {
    const m = trained(variant);
    const state = m.toReplicaState();
    const names = Object.keys(state.tensors).sort().join();
    assertEquals(names, variant === "NL" ? "P,Q,V,W,bias" : "P,Q,V,bias");
    const full = m.toState();
    assert("m_V" in full.tensors && "resXIndptr" in full.tensors, "the full state has more");
    const adopted = factory.restore(state, { adopt: true }) as CoEmbedReplica;
    const copied = factory.restore(state) as CoEmbedReplica;
    assert(adopted instanceof CoEmbedReplica && copied instanceof CoEmbedReplica, variant);
    // adopting shares the arrays: changing the state's Q changes the adopted replica's scores
    const x = { indices: Int32Array.of(0, 4), values: Float32Array.of(1, 1) };
    const before = copied.predictScores(x).join();
    assertEquals(adopted.predictScores(x).join(), before);
    (state.tensors.Q as Float32Array).fill(0);
    (state.tensors.bias as Float32Array).fill(0);
    assert(adopted.predictScores(x).join() !== before, `${variant}: adopted did not share`);
    assertEquals(copied.predictScores(x).join(), before);
    // a replica's own state round-trips
    const again = factory.restore(copied.toState());
    assertEquals(again.predictScores(x).join(), before);
  }
});

Deno.test("CoEmbed replica: cannot learn; bad replica states are clear errors", () => {
  const m = trained("NL");
  const r = factory.restore(m.toReplicaState());
  const x = { indices: Int32Array.of(0), values: Float32Array.of(1) };
  const with_ = (
    edit: (s: { config: Record<string, unknown>; scalars: Record<string, number> }) => void,
    tensors?: (t: ModelState["tensors"]) => void,
  ) => {
    const s = structuredClone(m.toReplicaState()) as ModelState & {
      config: Record<string, unknown>;
      scalars: Record<string, number>;
    };
    edit(s);
    tensors?.(s.tensors);
    return () => factory.restore(s);
  };
  assertBadInput([
    [() => r.learnOne(x, [0]), /replica cannot learn/],
    [
      () => r.predictScores(x, new Float32Array(2)),
      /^coembed\.predictScores: out has length 2, need 3$/,
    ],
    [
      () => m.predictScores(x, new Float32Array(2)),
      /^coembed\.predictScores: out has length 2, need 3$/,
    ],
    [() => r.learnMany({} as never), /replica cannot learn/],
    [() => CoEmbedEstimator.restore(m.toReplicaState()), /replica state holds only the predictor/],
    [
      with_(() => {}, (t) => delete t.P),
      /^CoEmbed replica: tensor P must be a Float32Array of length \d+ \(.*\), got none$/,
    ],
    [
      with_(() => {}, (t) => (t.W = new Float32Array(3))),
      /tensor W must be a Float32Array of length 96 \(\[numFeatures, numRff\] = 6 × 16\), got length 3$/,
    ],
    [with_(() => {}, (t) => (t.Q = new Float64Array(32 * 3))), /tensor Q must be a Float32Array/],
    [with_((s) => (s.config.variant = "XL")), /config.variant is "XL", expected one of L, NL/],
    [
      with_((s) => (s.scalars.rankS = -1)),
      /^CoEmbed replica: scalar rankS must be an integer >= 0, got -1$/,
    ],
    [with_((s) => (s.config.gamma = 0)), /config.gamma is 0/],
  ]);
});
