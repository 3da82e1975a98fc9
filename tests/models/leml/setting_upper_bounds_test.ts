// Streaming LEML took any finite lr, lrH, lambda, initScale and threshold: at 1e300 Adam's step or
// the initial H overflowed the float32 factors and every score was NaN (a threshold of 1e300 made
// every score −Infinity). They are now at most 1e6 (|threshold| too), refused above it naming the
// option and the range, and every corner at the bound stays finite.
import { LemlStream } from "../../../src/models/leml/stream.ts";
import { factory } from "../../../src/models/leml/mod.ts";
import type { LemlLoss } from "../../../src/models/leml/loss.ts";
import type { LemlStreamOptions } from "../../../src/models/leml/settings.ts";
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

Deno.test("leml settings: lr, lrH, lambda, initScale and threshold past 1e6 are refused naming the option and the range", () => {
  const cases: [string, number, string][] = [
    ["lr", 1e300, "[0, 1000000]"],
    ["lrH", 1e300, "[0, 1000000]"],
    ["lambda", 1e300, "[0, 1000000]"],
    ["lr", 1.5e6, "[0, 1000000]"],
    ["initScale", 1e300, "(0, 1000000]"],
    ["threshold", 1e300, "[-1000000, 1000000]"],
    ["threshold", -1e300, "[-1000000, 1000000]"],
  ];
  for (const [key, value, range] of cases) {
    for (const optimizer of ["adam", "sgd"]) {
      const opts = { optimizer, [key]: value };
      for (
        const msg of [
          messageOf(() => factory.create(opts)),
          messageOf(() => new LemlStream(opts)),
        ]
      ) {
        assert(msg.includes(`option ${key}`) && msg.includes(range), `${key} ${value}: ${msg}`);
      }
    }
    // the bound itself is allowed
    new LemlStream({ [key]: Math.sign(value) * 1e6 });
  }
});

Deno.test("leml settings: at lr, lambda and initScale 1e6 every optimiser, loss and l2Normalize stays finite on rows from 1e-20 to 1e15", () => {
  const bounds: LemlStreamOptions[] = [
    { lr: 1e6 },
    { lambda: 1e6 },
    { lr: 1e6, lambda: 1e6 },
    { initScale: 1e6 },
    { lr: 1e6, threshold: -1e6 },
  ];
  for (const optimizer of ["adam", "sgd"] as const) {
    for (const loss of ["squared", "logistic", "sqhinge"] as LemlLoss[]) {
      for (const bound of bounds) {
        for (const l2Normalize of [false, true]) {
          // 3.3e14: the largest value, 3v, stays within the raw-value limit 1e15
          for (const v of [1e-20, 1e-3, 1, 3.3e14]) {
            for (const mixed of [false, true]) {
              const what = `${optimizer} ${loss} ${
                JSON.stringify(bound)
              } l2Normalize ${l2Normalize} v ${v}${mixed ? " mixed" : ""}`;
              const m = new LemlStream({
                optimizer,
                loss,
                l2Normalize,
                rank: 4,
                seed: 1,
                ...bound,
              });
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
