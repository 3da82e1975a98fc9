// The prequential window's checkpoint state and top labels past int32: corrupt states are named,
// not allocated.
import { PrequentialP1, PrequentialWindow } from "../../src/metrics/prequential.ts";
import { assertBadInput, assertEquals } from "../helpers.ts";

Deno.test("PrequentialWindow.fromState: a corrupt size or missing buffer is named, not allocated", () => {
  const s = new PrequentialWindow(2).toState();
  assertBadInput([
    [
      () => PrequentialWindow.fromState({ ...s, size: 2 ** 40 }),
      /fromState: buffer lengths do not match the size 1099511627776 \(p1 has 2, p5 2\)/,
    ],
    [
      () => PrequentialWindow.fromState({ ...s, p1: undefined as unknown as Float32Array }),
      /fromState: buffer lengths do not match the size 2 \(p1 has undefined, p5 2\)/,
    ],
    [
      () => PrequentialWindow.fromState({ ...s, size: 1.5 }),
      /fromState: size must be a positive integer, got 1.5/,
    ],
  ]);
});

Deno.test("PrequentialP1: a top label beyond int32 is that label, not its low 32 bits", () => {
  const p = new PrequentialP1(10);
  p.add(2 ** 32 + 3, Int32Array.of(3)); // label 4294967299 is not label 3: a miss
  p.add(2 ** 31, Int32Array.of(2 ** 30)); // a miss, not a "negative label" error
  assertEquals([p.p1, p.windowP1, p.rows], [0, 0, 2]);
});
