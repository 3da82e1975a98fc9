/**
 * The restores of br, ova, popularity and leml check a state's kind and its tensors with the same
 * rules and words (`checkStateKind`, `requireTensor` of src/models/state_check.ts): no state or a
 * state of another kind is a TypeError naming both kinds, a tensor missing or of another array
 * class a TypeError naming the class it got, a tensor of the wrong length a RangeError naming
 * both lengths. (Every model of the registry, knn, sleec and coembed too:
 * restore_damaged_state_test.ts.)
 */
import { BrEstimator } from "../../src/models/br/estimator.ts";
import { OvaEstimator } from "../../src/models/ova/estimator.ts";
import { PopularityEstimator } from "../../src/models/popularity/estimator.ts";
import { LemlStream } from "../../src/models/leml/stream.ts";
import type { ModelState } from "../../src/models/estimator.ts";
import { checkStateKind, requireTensor } from "../../src/models/state_check.ts";
import { assertEquals, refusalOf } from "../helpers.ts";

const messageOf = (f: () => unknown): string => refusalOf(f, "accepted");

/** `s` with its tensors edited (a copy: `s` stays as it is). */
function withTensors(s: ModelState, edit: (t: Record<string, unknown>) => void): ModelState {
  const tensors: Record<string, unknown> = { ...s.tensors };
  edit(tensors);
  return { ...s, tensors } as ModelState;
}

const X = { indices: Int32Array.of(0, 2), values: Float32Array.of(1, 0.5) };

Deno.test("br.restore: no state, another kind, missing tensors, another array class, another length", () => {
  const m = new BrEstimator({ numFeatures: 3, numLabels: 2 });
  m.learnOne(X, [1]);
  const s = m.toState();
  const restore = (st: unknown) => () => BrEstimator.restore(st as ModelState);
  assertEquals(
    messageOf(restore(null)),
    'TypeError: br.restore: state kind is undefined, not "br"',
  );
  assertEquals(
    messageOf(restore({ ...s, kind: "ova" })),
    'TypeError: br.restore: state kind is "ova", not "br"',
  );
  assertEquals(
    messageOf(restore({ ...s, tensors: undefined })),
    "TypeError: br.restore: tensor w must be a Float32Array of length 6, got none",
  );
  assertEquals(
    messageOf(restore(withTensors(s, (t) => t.w = new Float64Array(6)))),
    "TypeError: br.restore: tensor w must be a Float32Array of length 6, got Float64Array",
  );
  assertEquals(
    messageOf(restore(withTensors(s, (t) => t.b = new Float32Array(5)))),
    "RangeError: br.restore: tensor b must be a Float32Array of length 2, got length 5",
  );
  assertEquals(BrEstimator.restore(s).predictScores(X), m.predictScores(X));
});

Deno.test("ova.restore: another kind, another array class, another length, a replay tensor of another class", () => {
  const m = new OvaEstimator({ seed: 1, numFeatures: 3, numLabels: 2, replay: 4 });
  m.learnOne(X, [1]);
  const s = m.toState();
  const restore = (st: unknown) => () => OvaEstimator.restore(st as ModelState);
  assertEquals(
    messageOf(restore({ ...s, kind: "br" })),
    'TypeError: ova.restore: state kind is "br", not "ova"',
  );
  assertEquals(
    messageOf(restore(withTensors(s, (t) => t.weights = Array.from(t.weights as Float32Array)))),
    "TypeError: ova.restore: tensor weights must be a Float32Array of length 2 (featPtr[3] = 2), got Array",
  );
  assertEquals(
    messageOf(restore(withTensors(s, (t) => t.counts = new Float64Array(3)))),
    "RangeError: ova.restore: tensor counts must be a Float64Array of length 2, got length 3",
  );
  assertEquals(
    messageOf(restore(withTensors(s, (t) => t.resXIndices = new Float32Array(2)))),
    "TypeError: ova.restore: tensor resXIndices must be a Int32Array, got Float32Array",
  );
  assertEquals(OvaEstimator.restore(s).predictScores(X), m.predictScores(X));
});

Deno.test("popularity.restore and leml.restore: no state, another kind, another array class", () => {
  const p = new PopularityEstimator();
  p.learnOne(X, [1]);
  const ps = p.toState();
  assertEquals(
    messageOf(() => PopularityEstimator.fromState({ ...ps, kind: "knn" })),
    'TypeError: popularity.restore: state kind is "knn", not "popularity"',
  );
  assertEquals(
    messageOf(() =>
      PopularityEstimator.fromState(withTensors(ps, (t) => t.counts = Float32Array.of(0, 1)))
    ),
    "TypeError: popularity.restore: tensor counts must be a Float64Array of length 2, got Float32Array",
  );
  const l = new LemlStream({ rank: 2, numFeatures: 3, numLabels: 2, seed: 1 });
  assertEquals(
    messageOf(() => LemlStream.fromState(null as unknown as ModelState)),
    'TypeError: leml.restore: state kind is undefined, not "leml"',
  );
  assertEquals(
    messageOf(() => LemlStream.fromState({ ...l.toState(), kind: "br" })),
    'TypeError: leml.restore: state kind is "br", not "leml"',
  );
});

Deno.test("checkStateKind and requireTensor: the words of every restore", () => {
  assertEquals(
    messageOf(() => checkStateKind({ kind: "" }, "br", "x")),
    'TypeError: x: state kind is "", not "br"',
  );
  assertEquals(
    messageOf(() => checkStateKind(undefined, "br", "x")),
    'TypeError: x: state kind is undefined, not "br"',
  );
  const t = { a: Int32Array.of(1, 2), n: 5 };
  assertEquals(requireTensor(t, "a", Int32Array, "x", 2), t.a);
  assertEquals(requireTensor(t, "a", Int32Array, "x"), t.a);
  assertEquals(
    messageOf(() => requireTensor(t, "n", Int32Array, "x")),
    "TypeError: x: tensor n must be a Int32Array, got number",
  );
  assertEquals(
    messageOf(() => requireTensor(undefined, "a", Int32Array, "x", 2)),
    "TypeError: x: tensor a must be a Int32Array of length 2, got none",
  );
  assertEquals(
    messageOf(() => requireTensor(t, "a", Uint8Array, "x")),
    "TypeError: x: tensor a must be a Uint8Array, got Int32Array",
  );
});
