import { hashUniform, Rng, SmallRng } from "../../src/random/mod.ts";
import { assert, assertEquals } from "../helpers.ts";

Deno.test("Rng: deterministic per seed, different across seeds", () => {
  const a = new Rng(123), b = new Rng(123), c = new Rng(124);
  const sa = Array.from({ length: 20 }, () => a.nextUint32());
  const sb = Array.from({ length: 20 }, () => b.nextUint32());
  const sc = Array.from({ length: 20 }, () => c.nextUint32());
  assertEquals(sa, sb);
  assert(sa.join() !== sc.join());
});

Deno.test("Rng: uniform, nextInt, normal and shuffle have the right distribution", () => {
  const r = new Rng(2024);
  let sum = 0;
  const counts = new Int32Array(10);
  let m1 = 0, m2 = 0;
  const n = 20000;
  for (let i = 0; i < n; i++) {
    const u = r.next();
    assert(u >= 0 && u < 1);
    sum += u;
    counts[r.nextInt(10)]++;
    const z = r.normal();
    m1 += z;
    m2 += z * z;
  }
  assert(Math.abs(sum / n - 0.5) < 0.01, `mean ${sum / n}`);
  for (const k of counts) assert(Math.abs(k - n / 10) < 300, `bucket ${k}`);
  assert(Math.abs(m1 / n) < 0.03 && Math.abs(m2 / n - 1) < 0.05, `normal ${m1 / n} ${m2 / n}`);
  const p = Int32Array.from({ length: 50 }, (_, i) => i);
  r.shuffle(p);
  assertEquals([...p].sort((x, y) => x - y), Array.from({ length: 50 }, (_, i) => i));
  assert(p.some((v, i) => v !== i), "shuffle moved something");
});

Deno.test("the three generators give the numbers they gave in their former modules (models stay bit for bit)", () => {
  const r = new Rng(42);
  assertEquals(Array.from({ length: 4 }, () => r.nextUint32()), [
    1028872839,
    2516511472,
    400437680,
    853279530,
  ]);
  const s = new SmallRng(42);
  assertEquals(Array.from({ length: 4 }, () => s.next()), [
    0.6011037519201636,
    0.44829055899754167,
    0.8524657934904099,
    0.6697340414393693,
  ]);
  assertEquals(s.state, (42 + 4 * 0x6d2b79f5) % 2 ** 32); // a Weyl sequence: 4 steps from 42
  assertEquals(new SmallRng(s.state).next(), s.next(), "the state is the whole generator");
  assertEquals([hashUniform(1, 2, 3), hashUniform(7, 0, 0), hashUniform(-5, 100000, 31)], [
    0.1449591750279069,
    -0.16240087989717722,
    0.3667602827772498,
  ]);
});
