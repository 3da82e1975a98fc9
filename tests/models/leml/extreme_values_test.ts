import { LemlStream } from "../../../src/models/leml/stream.ts";
import { RAW_VALUE_LIMIT } from "../../../src/models/raw_value_limit.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert, messageOf } from "../../helpers.ts";
import { nonFiniteTensors, toyBatch, toyMisses } from "../extreme_rows.ts";

const learnToy = (m: LemlStream, magnitude: number, mixed = false, batches = 40) => {
  for (let b = 0; b < batches; b++) m.learnMany(toyBatch(b, magnitude, mixed));
};

Deno.test("leml: raw values up to 1e38 keep Adam's float32 moments finite and the true label first (logistic, squared hinge)", () => {
  const configs = [{ loss: "logistic" }, { loss: "sqhinge" }, { loss: "logistic", replay: 64 }];
  const cases = [[1e20, false], [1e30, false], [1e30, true], [1e38, false]] as const;
  for (const extra of configs) {
    for (const [magnitude, mixed] of cases) {
      const m = new LemlStream({ rank: 4, seed: 1, ...extra });
      const what = `${JSON.stringify(extra)} at ${mixed ? "±" : ""}${magnitude}`;
      learnToy(m, magnitude, mixed); // the moments were Infinity from the first batch on
      const bad = nonFiniteTensors(m.toState());
      assert(bad.length === 0, `${what}: non-finite state tensors ${bad}`);
      const misses = toyMisses(m, magnitude, mixed);
      assert(misses.length <= 1, `${what}: ${misses.join("; ")}`);
      // the model file answers the same
      const edge = loadModel(m.toModelFile());
      assert(toyMisses(edge, magnitude, mixed).length === misses.length, `${what}: the SDK`);
    }
  }
});

Deno.test("leml: the squared loss (full and local modes) and SGD refuse a raw value past the limit, naming row, feature and limit, and change nothing", () => {
  const all = [
    {},
    { replay: 32 },
    { update: "local", replay: 32 },
    { optimizer: "sgd" },
    { optimizer: "sgd", loss: "logistic" },
  ];
  for (const options of all) {
    const m = new LemlStream({ rank: 4, seed: 1, ...options });
    learnToy(m, 1, false, 5);
    const before = m.toState();
    const batch = toyBatch(7, 1);
    batch.x.values[10] = 1e30; // row 3, feature 3·c + 1 of its label c
    const feature = batch.x.indices[10];
    const copy = batch.x.values.slice();
    const msg = messageOf(() => m.learnMany(batch));
    const want = `cannot learn row 3 of the batch: feature ${feature} has value 1e+30, ` +
      "above the limit 1e+15";
    assert(msg.includes(want), `${JSON.stringify(options)}: ${msg}`);
    assert(/l2Normalize/.test(msg), msg);
    // events are named when the batch has ids; learnOne and scoreThenLearn refuse the same way
    const withIds = { ...batch, ids: Array.from({ length: 32 }, (_, i) => `e${i}`) };
    assert(/row 3 \(event e3\) of the batch/.test(messageOf(() => m.learnMany(withIds))), "ids");
    const x = { indices: Int32Array.of(0, 4), values: Float32Array.of(1, -2e16) };
    const one = messageOf(() => m.learnOne(x, [0]));
    assert(/^leml\.learnOne: cannot learn the row: feature 4 has value -2e\+16/.test(one), one);
    assert(
      /cannot learn row 3/.test(messageOf(() => m.scoreThenLearn(batch, 2))),
      "scoreThenLearn",
    );
    // nothing changed: the model, its step and the batch
    const after = m.toState();
    assert(after.scalars.step === before.scalars.step, "step moved");
    for (const [k, t] of Object.entries(before.tensors)) {
      const u = after.tensors[k];
      assert(u.length === t.length && u.every((v, i) => Object.is(v, t[i])), `tensor ${k} changed`);
    }
    assert(copy.every((v, i) => Object.is(v, batch.x.values[i])), "the batch was mutated");
  }
});

Deno.test("leml: the limit is only where it is needed: at the limit, with l2Normalize, tiny and denormal values", () => {
  // a value at the limit is learned
  const at = new LemlStream({ rank: 4, seed: 1 });
  at.learnOne({ indices: Int32Array.of(2), values: Float32Array.of(RAW_VALUE_LIMIT) }, [1]);
  assert(at.step === 1 && nonFiniteTensors(at.toState()).length === 0, "at the limit");
  for (const magnitude of [1e38, 1e-30, 1e-44]) {
    for (const options of [{}, { optimizer: "sgd" }, { loss: "sqhinge" }]) {
      const m = new LemlStream({ rank: 4, seed: 1, l2Normalize: true, ...options });
      learnToy(m, magnitude, true);
      const what = `${JSON.stringify(options)} l2Normalize at ${magnitude}`;
      assert(nonFiniteTensors(m.toState()).length === 0, what);
      const misses = toyMisses(m, magnitude, true);
      assert(misses.length <= 1, `${what}: ${misses}`);
    }
  }
});

Deno.test("leml: the local mode's refresh solves raw rows of 1e10 up to the limit that span fewer directions than the rank", () => {
  // two features, always together: the latent rows span at most two of the four directions, and
  // the H step's system, with eigenvalues from about value² down to λ + μ, lost a pivot to
  // rounding: "choleskyFactor: matrix is not positive definite" thrown from inside learnMany
  for (const magnitude of [1e10, 1e14, RAW_VALUE_LIMIT / 2]) {
    const m = new LemlStream({ rank: 4, seed: 1, update: "local", replay: 32, refreshEvery: 32 });
    for (let i = 0; i < 200; i++) {
      const v = Float32Array.of(magnitude, i % 2 ? magnitude : 2 * magnitude);
      m.learnOne({ indices: Int32Array.of(0, 1), values: v }, [i % 3]);
    }
    assert(m.refreshStats.count >= 5, `${magnitude}: ${m.refreshStats.count} refreshes`);
    const bad = nonFiniteTensors(m.toState());
    assert(bad.length === 0, `${magnitude}: non-finite ${bad}`);
    const top = m.predictTopK({ indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) }, 3);
    assert(top.scores.every(Number.isFinite), `${magnitude}: scores ${top.scores}`);
  }
});
