// initScale must be > 0: at 0, H starts at 0 and W at 0, where every gradient of W and H is 0,
// so the streaming model never moved its factors and learnt its biases only (a popularity
// ranking, whatever the row). A tiny positive scale learns the factors.
import { LEML_SETTINGS, LemlStream } from "../../../src/models/leml/mod.ts";
import { factory } from "../../../src/models/leml/mod.ts";
import { assert, messageOf } from "../../helpers.ts";

Deno.test("leml settings: initScale 0 is refused, a tiny positive scale learns the factors", () => {
  assert(messageOf(() => LEML_SETTINGS.resolve({ initScale: 0 })).includes("initScale"), "resolve");
  assert(messageOf(() => factory.create({ initScale: 0 })).includes("initScale"), "create");
  const a = { indices: Int32Array.of(0), values: Float32Array.of(1) };
  const b = { indices: Int32Array.of(1), values: Float32Array.of(1) };
  for (const loss of ["squared", "logistic"] as const) {
    const m = new LemlStream({ rank: 4, initScale: 1e-30, lr: 0.05, loss });
    for (let i = 0; i < 200; i++) {
      m.learnOne(a, [0]);
      m.learnOne(b, [1]);
    }
    assert(m.w.snapshot().some((v) => v !== 0), `${loss}: W never moved`);
    assert(m.predictTopK(a, 1).labels[0] === 0 && m.predictTopK(b, 1).labels[0] === 1, loss);
  }
});
