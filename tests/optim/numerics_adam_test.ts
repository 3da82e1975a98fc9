import { adamUpdate, adamUpdateRows } from "../../src/optim/adam.ts";
import { sgdUpdateRows } from "../../src/optim/sgd.ts";
import { assert, messageOf } from "../helpers.ts";

Deno.test("optim numerics: an Adam step counter of 0 (or NaN, or negative) is refused, not a NaN model", () => {
  // the bias correction 1 − β₁ᵗ is 0 at t = 0: step = lr·0/0 made every parameter NaN, silently
  for (const t of [0, -3, NaN]) {
    const p = Float32Array.of(1, 2), m = new Float32Array(2), v = new Float32Array(2);
    const msg = messageOf(() => adamUpdate(p, m, v, Float64Array.of(1, 1), t, { lr: 0.1 }));
    assert(/adamUpdate: the step t must be >= 1/.test(msg), msg);
    const msgRows = messageOf(() =>
      adamUpdateRows(p, m, v, Float64Array.of(1), Int32Array.of(1), 1, 1, t, { lr: 0.1 })
    );
    assert(/adamUpdateRows: the step t must be >= 1/.test(msgRows), msgRows);
    assert(p.join() === "1,2", `parameters changed: ${p}`);
  }
  // very large step counters (a long-lived restored model) keep the plain Adam step: lr·m/√v
  const p = Float32Array.of(1), m = Float32Array.of(0.5), v = Float32Array.of(0.25);
  adamUpdate(p, m, v, Float64Array.of(0.5), 2 ** 53, { lr: 0.1 });
  assert(Math.abs(p[0] - 0.9) < 1e-6, `${p}`);
});

Deno.test("optim numerics: row updates with a short gradient or moment are refused, not NaN rows", () => {
  // row 1 of a 2 × 2 matrix with one gradient value: the second read undefined and the parameter
  // became NaN; a short moment did the same
  const p = new Float32Array(4);
  const cases: [() => void, RegExp][] = [
    [
      () =>
        adamUpdateRows(
          p,
          new Float32Array(4),
          new Float32Array(4),
          [1],
          Int32Array.of(1),
          1,
          2,
          1,
          { lr: 0.1 },
        ),
      /adamUpdateRows: 1 rows of 2 need 1 row indices, 2 gradient values and moments of 4, got 1, 1 and 4/,
    ],
    [
      () =>
        adamUpdateRows(
          p,
          new Float32Array(2),
          new Float32Array(4),
          [1, 1],
          Int32Array.of(1),
          1,
          2,
          1,
          { lr: 0.1 },
        ),
      /adamUpdateRows: .* moments of 4, got 1, 2 and 2/,
    ],
    [
      () =>
        adamUpdateRows(
          p,
          new Float32Array(4),
          new Float32Array(4),
          [1, 1, 1, 1],
          Int32Array.of(1),
          2,
          2,
          1,
          { lr: 0.1 },
        ),
      /need 2 row indices, 4 gradient values and moments of 4, got 1, 4 and 4/,
    ],
    [() => sgdUpdateRows(p, [1], Int32Array.of(1), 1, 2, 0.1), /sgdUpdateRows: 1 rows of 2 need/],
  ];
  for (const [f, re] of cases) {
    const msg = messageOf(f);
    assert(re.test(msg), msg);
  }
  assert(p.every((x) => x === 0), `parameters changed: ${p}`);
});
