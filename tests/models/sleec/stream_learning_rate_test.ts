// Streaming SLEEC's learningRate at the boundary: past 1e6 it is a RangeError naming the range
// (at 1e300 the first Adam steps overflowed V in float32: a scheduled refresh then threw from
// ADMM, the estimator served zeros and its state did not restore); at 1e6 V stays finite, the
// state restores and the SDK answers as the estimator.
import { plantedData } from "../estimator_checks.ts";
import { SleecStream } from "../../../src/models/sleec/stream.ts";
import { factory } from "../../../src/models/sleec/mod.ts";
import { loadModel } from "../../../sdk/mod.ts";
import { assert, assertBadInput } from "../../helpers.ts";

const data = plantedData(120, 8, 5);
const opts = { rank: 4, svpNeighbours: 30, k: 5, firstRefresh: 20, reembedEvery: 4, seed: 1 };

Deno.test("sleec stream: a learningRate past 1e6 is refused at create, naming the range", () => {
  for (const learningRate of [1e7, 1e300]) {
    assertBadInput([[
      () => new SleecStream({ ...opts, learningRate }),
      /sleec: option learningRate must be a finite number in \[0, 1000000\]/,
    ]]);
    assertBadInput([[
      () => factory.create({ ...opts, learningRate: String(learningRate) }),
      /option learningRate must be a finite number in \[0, 1000000\]/,
    ]]);
  }
});

Deno.test("sleec stream: at learningRate 1e6 V stays finite, the state restores, the SDK agrees", () => {
  const m = new SleecStream({ ...opts, learningRate: 1e6 });
  for (const r of data.rows) m.learnOne(r.x, r.labels);
  assert(m.refreshes >= 3, `${m.refreshes} refreshes`);
  const state = m.toState();
  for (const [name, t] of Object.entries(state.tensors)) {
    assert((t as Float32Array).every(Number.isFinite), `${name} holds a value that is not finite`);
  }
  const back = factory.restore(state), sdk = loadModel(m.toModelFile());
  let voted = 0;
  for (const r of data.rows.slice(0, 30)) {
    const a = m.predictTopK(r.x, 3), b = back.predictTopK(r.x, 3), c = sdk.predictTopK(r.x, 3);
    assert(a.scores.every(Number.isFinite), `scores ${a.scores}`);
    if (a.scores[0] > 0) voted++;
    for (const o of [b, c]) {
      assert(
        o.labels.join() === a.labels.join() && o.scores.join() === a.scores.join(),
        `${o.labels}:${o.scores} against ${a.labels}:${a.scores}`,
      );
    }
  }
  assert(voted > 0, "no row got a vote");
});
