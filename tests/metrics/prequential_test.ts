// The prequential accumulators against a brute-force recount of the last `window` rows: the
// service's PrequentialWindow (P@1, P@5, window and since the start, checkpoint state) and the
// PrequentialP1 view the demo and the event-stream example use.
import { PrequentialP1, PrequentialWindow } from "../../src/metrics/prequential.ts";
import { assert, assertEquals } from "../helpers.ts";
import { mulberry32 } from "../mulberry32.ts";

interface Row {
  predicted: Int32Array;
  truth: Int32Array;
}

function randomRows(seed: number, n: number): Row[] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const predicted = Int32Array.from(
      { length: Math.floor(rand() * 7) },
      () => Math.floor(rand() * 8),
    );
    const truth = [
      ...new Set(Array.from({ length: Math.floor(rand() * 3) }, () => Math.floor(rand() * 8))),
    ].sort((a, b) => a - b);
    return { predicted, truth: Int32Array.from(truth) };
  });
}

/** P@k (percent) of one row: distinct hits among the first k predictions, divided by k. */
function precision(r: Row, k: number): number {
  const top = new Set(r.predicted.subarray(0, k));
  return (100 * [...top].filter((l) => r.truth.includes(l)).length) / k;
}

const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;

Deno.test("PrequentialWindow: windowed and cumulative P@1 and P@5 equal a recount", () => {
  const rows = randomRows(3, 120);
  const w = new PrequentialWindow(7);
  assert(Number.isNaN(w.precisionAt1) && Number.isNaN(w.cumulativeP5), "NaN before any event");
  rows.forEach((r, i) => {
    w.record(r.predicted, r.truth);
    const last = rows.slice(Math.max(0, i - 6), i + 1);
    const all = rows.slice(0, i + 1);
    assertEquals(w.filled, last.length);
    assertEquals(w.totalScored, i + 1);
    const close = (a: number, b: number, what: string) =>
      assert(Math.abs(a - b) < 1e-5, `row ${i} ${what}: ${a} vs ${b}`);
    close(w.precisionAt1, mean(last.map((x) => precision(x, 1))), "window P@1");
    close(w.precisionAt5, mean(last.map((x) => precision(x, 5))), "window P@5");
    close(w.cumulativeP1, mean(all.map((x) => precision(x, 1))), "cumulative P@1");
    close(w.cumulativeP5, mean(all.map((x) => precision(x, 5))), "cumulative P@5");
  });
});

Deno.test("PrequentialWindow: a restored state goes on exactly like the original", () => {
  const rows = randomRows(5, 60);
  const a = new PrequentialWindow(9);
  rows.slice(0, 25).forEach((r) => a.record(r.predicted, r.truth));
  const b = PrequentialWindow.fromState(a.toState());
  for (const r of rows.slice(25)) {
    a.record(r.predicted, r.truth);
    b.record(r.predicted, r.truth);
    assertEquals(
      [b.precisionAt1, b.precisionAt5, b.cumulativeP1, b.cumulativeP5, b.filled],
      [a.precisionAt1, a.precisionAt5, a.cumulativeP1, a.cumulativeP5, a.filled],
    );
  }
  const bad = { ...a.toState(), p5: new Float32Array(3) };
  let msg = "";
  try {
    PrequentialWindow.fromState(bad);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("buffer lengths do not match"), msg);
});

Deno.test("PrequentialP1: the top label's running and windowed P@1, 0 before any row", () => {
  const rows = randomRows(11, 90);
  const p = new PrequentialP1(5);
  assertEquals([p.p1, p.windowP1, p.rows], [0, 0, 0]);
  rows.forEach((r, i) => {
    p.add(r.predicted.length > 0 ? r.predicted[0] : -1, r.truth);
    const hit = (x: Row): number =>
      x.predicted.length > 0 && x.truth.includes(x.predicted[0]) ? 1 : 0;
    const all = rows.slice(0, i + 1).map(hit), last = all.slice(-5);
    assertEquals(p.rows, i + 1);
    assertEquals(p.p1, (100 * all.reduce((a, b) => a + b, 0)) / all.length, `row ${i} P@1`);
    assertEquals(p.windowP1, (100 * last.reduce((a, b) => a + b, 0)) / last.length, `row ${i}`);
  });
  let msg = "";
  try {
    new PrequentialP1(0);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("PrequentialP1: window must be a positive integer"), msg);
});

Deno.test("PrequentialWindow: a label listed again counts once (P@5 stays within [0, 1])", () => {
  const w = new PrequentialWindow(3);
  w.record([2, 2, 2, 2, 2], [2]); // one true label: P@1 = 1, P@5 = 1/5, not 5/5
  w.record([4, 1, 4, 1, 3], [1, 3, 4]); // hits at ranks 1, 2 and 5: P@5 = 3/5
  assert(Math.abs(w.precisionAt1 - 100) < 1e-9, `P@1 ${w.precisionAt1}`);
  assert(Math.abs(w.precisionAt5 - 40) < 1e-5, `P@5 ${w.precisionAt5}`);
  assert(Math.abs(w.cumulativeP5 - 40) < 1e-5, `cumulative P@5 ${w.cumulativeP5}`);
});
