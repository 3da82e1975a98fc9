/**
 * The deduplication window of event ids (`src/service/id_window.ts`): the bound, eviction in
 * order, the hash set staying consistent through evictions (against a plain reference), the
 * checkpoint form and its memory.
 */
import { IdWindow } from "../../src/service/id_window.ts";
import { Rng } from "../../src/random/mod.ts";
import { assert, assertEquals } from "./helpers.ts";

Deno.test("IdWindow: a duplicate is found; the oldest id falls out once the window is full", () => {
  const w = new IdWindow(3);
  assertEquals(["a", "b", "c"].map((id) => w.add(id)), [true, true, true]);
  assertEquals([w.add("a"), w.add("c"), w.size], [false, false, 3]);
  // a duplicate does not move its id: "a" is still the oldest
  assertEquals(w.add("d"), true);
  assertEquals([w.has("a"), w.has("b"), w.has("c"), w.has("d")], [false, true, true, true]);
  assertEquals(w.add("a"), true, "fell out: new again");
  assertEquals([w.has("b"), w.size], [false, 3]);
});

Deno.test("IdWindow: capacity 0 turns deduplication off", () => {
  const w = new IdWindow(0);
  assertEquals([w.add("a"), w.add("a"), w.has("a"), w.size], [true, true, false, 0]);
});

Deno.test("IdWindow: matches a reference queue through growth and many evictions", () => {
  const rng = new Rng(3);
  for (const cap of [1, 2, 5, 1000, 1500, 3000]) {
    const w = new IdWindow(cap);
    const queue: string[] = [];
    const set = new Set<string>();
    for (let i = 0; i < 20000; i++) {
      // ids from a range a few times the capacity: hits, misses and evictions all happen
      const id = `x${Math.floor(rng.next() * cap * 3)}`;
      const fresh = !set.has(id);
      assertEquals(w.add(id), fresh, `cap ${cap}, step ${i}, ${id}`);
      if (fresh) {
        queue.push(id);
        set.add(id);
        if (queue.length > cap) set.delete(queue.shift()!);
      }
    }
    assertEquals(w.size, queue.length);
    for (let k = 0; k < cap * 3; k++) assertEquals(w.has(`x${k}`), set.has(`x${k}`), `x${k}`);
  }
});

Deno.test("IdWindow: checkpoint round trip keeps the ids in order; a smaller window keeps the newest", () => {
  const w = new IdWindow(2000);
  for (let i = 0; i < 2500; i++) w.add(`e${i}`); // wrapped around
  const s = w.toState();
  assertEquals([s.capacity, s.hashes.length], [2000, 4000]);
  const v = IdWindow.fromState(s);
  assertEquals([v.capacity, v.size], [2000, 2000]);
  assertEquals([v.has("e499"), v.has("e500"), v.has("e2499")], [false, true, true]);
  assertEquals(v.toState().hashes, s.hashes);
  // the same order: the next id pushes e500 out of both
  w.add("new");
  v.add("new");
  assertEquals([w.has("e500"), v.has("e500"), v.has("e501")], [false, false, true]);
  const small = IdWindow.fromState(s, 10);
  assertEquals([small.size, small.has("e2489"), small.has("e2490")], [10, false, true]);
  const big = IdWindow.fromState(s, 5000);
  for (let i = 0; i < 3000; i++) big.add(`f${i}`);
  assertEquals([big.size, big.has("e500"), big.has("e2499")], [5000, true, true]);
});

Deno.test("IdWindow: 1,000,000 ids take about 16.4 MB, allocated as they arrive", () => {
  const w = new IdWindow(1_000_000);
  assert(w.bytes < 20_000, `empty window holds ${w.bytes} bytes`);
  for (let i = 0; i < 1_000_000; i++) w.add(`event-${i}`);
  assertEquals(w.size, 1_000_000);
  assertEquals(w.bytes, 8_000_000 + 4 * 2 ** 21);
  assert(w.has("event-0") && w.has("event-999999") && !w.has("event-1000000"), "lookups");
  w.add("event-1000000");
  assertEquals([w.has("event-0"), w.has("event-1"), w.size], [false, true, 1_000_000]);
});
