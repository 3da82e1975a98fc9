// NdjsonParser directly: limits and the non-growing prediction mapping.
import { NdjsonParser } from "../../src/data/ndjson.ts";
import { Vocabulary } from "../../src/data/vocabulary.ts";
import { FeatureHasher } from "../../src/data/hashing.ts";
import { assert, assertEquals, assertThrowsMsg } from "./helpers.ts";

Deno.test("NdjsonParser limits: features per event, id and name length, full vocabularies", () => {
  const p = new NdjsonParser({ maxFeaturesPerEvent: 2, maxNameLength: 5 });
  assertThrowsMsg(
    () => p.parse('{"features": {"0": 1, "1": 1, "2": 1}, "labels": []}'),
    RangeError,
    "features: more than 2 features in one event",
  );
  assertThrowsMsg(
    () => p.parse('{"id": "toolong", "features": {}, "labels": []}'),
    RangeError,
    "field 'id' is longer than 5 characters",
  );
  assertThrowsMsg(
    () => p.parse('{"features": {}, "labels": ["abcdef"]}'),
    RangeError,
    "labels[0]: name length must be 1..5",
  );
  const labels = new Vocabulary(["a"], 2);
  const q = new NdjsonParser({ labels });
  assertThrowsMsg(
    () => q.parse('{"features": {}, "labels": ["b", "c"]}'),
    RangeError,
    "the label vocabulary is full (2 names)",
  );
  assert(labels.size === 1, "nothing added by the rejected line");
  const features = new Vocabulary([], 1);
  const r = new NdjsonParser({ featureKeys: "name", features });
  assertThrowsMsg(
    () => r.parse('{"features": {"x": 1, "y": 1}, "labels": []}'),
    RangeError,
    "the feature vocabulary is full (1 names)",
  );
  assert(features.size === 0, "feature vocabulary unchanged");
});

Deno.test("featuresForPredict: never grows, drops unknown or out-of-range features, hashes alike", () => {
  const byIndex = new NdjsonParser();
  const x = byIndex.featuresForPredict({ "7": 1, "2": 0.5, "9": 3 }, 8);
  assertEquals(x.indices, [2, 7]);
  assertEquals(x.values, [0.5, 1]);
  assertThrowsMsg(
    () => byIndex.featuresForPredict({ a: 1 }, 8),
    TypeError,
    'key "a" is not a feature index',
  );
  assertThrowsMsg(() => byIndex.featuresForPredict({ "1": "x" }, 8), TypeError, 'features["1"]');
  assertThrowsMsg(() => byIndex.featuresForPredict([1], 8), TypeError, "must be an object");
  const named = new NdjsonParser({ featureKeys: "name", features: new Vocabulary(["a", "b"]) });
  assertEquals(named.featuresForPredict({ zz: 1, a: 2 }, 2).indices, [0]);
  assert(named.features.size === 2, "no growth");
  const hashing = { dim: 32, seed: 5, signed: true };
  const hashed = new NdjsonParser({ hashing });
  const learned = hashed.parse('{"features": {"w1": 1, "w2": 2}, "labels": []}');
  const predicted = hashed.featuresForPredict({ w2: 2, w1: 1 }, 32);
  assertEquals(predicted.indices, learned.x.indices);
  assertEquals(predicted.values, learned.x.values);
  assertEquals(predicted, new FeatureHasher(hashing).hashNamed(["w1", "w2"], [1, 2]));
});
