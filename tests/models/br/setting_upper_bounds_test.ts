// BR took any finite learningRate and lambda: at 1e300 Adam's step and the λw term overflowed the
// float32 weights and every score was NaN. Both are now at most 1e6, refused above it naming the
// option and the range, and every corner at the bound stays finite.
import { BrEstimator } from "../../../src/models/br/estimator.ts";
import { factory } from "../../../src/models/br/mod.ts";
import { assert } from "../../helpers.ts";
import { cornerBatch, nonFiniteTensors } from "../extreme_rows.ts";

function messageOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return e instanceof RangeError ? e.message : `not a RangeError: ${e}`;
  }
  return "no error";
}

Deno.test("br settings: learningRate and lambda above 1e6 are refused naming the option and the range", () => {
  for (const [key, range] of [["learningRate", "(0, 1000000]"], ["lambda", "[0, 1000000]"]]) {
    for (const optimizer of ["adam", "sgd"]) {
      for (const value of [1e300, 1.5e6]) {
        const opts = { optimizer, [key]: value };
        for (
          const msg of [
            messageOf(() => factory.create(opts)),
            messageOf(() => new BrEstimator(opts as never)),
          ]
        ) {
          assert(msg.includes(`option ${key}`) && msg.includes(range), `${key} ${value}: ${msg}`);
        }
      }
      // the bound itself is allowed
      new BrEstimator({ optimizer: optimizer as "adam", [key]: 1e6 });
    }
  }
});

Deno.test("br settings: at learningRate and lambda 1e6 every optimiser, loss and l2Normalize stays finite on rows from 1e-20 to 1e15", () => {
  const bounds = [{ learningRate: 1e6 }, { lambda: 1e6 }, { learningRate: 1e6, lambda: 1e6 }];
  for (const optimizer of ["adam", "sgd"] as const) {
    for (const loss of ["squared-hinge", "logistic"] as const) {
      for (const bound of bounds) {
        for (const l2Normalize of [false, true]) {
          // 3.3e14: the largest value, 3v, stays within SGD's raw-value limit 1e15
          for (const v of [1e-20, 1e-3, 1, 3.3e14]) {
            for (const mixed of [false, true]) {
              const what = `${optimizer} ${loss} ${
                JSON.stringify(bound)
              } l2Normalize ${l2Normalize} v ${v}${mixed ? " mixed" : ""}`;
              const m = new BrEstimator({ optimizer, loss, l2Normalize, ...bound });
              for (let i = 0; i < 200; i++) m.learnMany(cornerBatch(v, mixed));
              const bad = nonFiniteTensors(m.toState());
              assert(bad.length === 0, `${what}: non-finite ${bad}`);
              const s = m.predictScores({
                indices: Int32Array.of(0, 1, 2, 3),
                values: Float32Array.of(v, -v, v, v),
              });
              assert(s.every(Number.isFinite), `${what}: scores ${[...s]}`);
            }
          }
        }
      }
    }
  }
});
