import { TaskYielder } from "../../src/stream/task_yielder.ts";
import { assert, assertEquals } from "./helpers.ts";

function busy(ms: number): void {
  const t = performance.now();
  while (performance.now() - t < ms) { /* a slice of synchronous work */ }
}

Deno.test("TaskYielder: one waiting task per turn, first come first served", async () => {
  const y = new TaskYielder();
  const order: string[] = [];
  const task = async (name: string, slices: number) => {
    for (let i = 0; i < slices; i++) {
      order.push(`${name}${i}`);
      await y.yield();
    }
  };
  await Promise.all([task("a", 3), task("b", 1), task("c", 2)]);
  assertEquals(order.join(" "), "a0 b0 c0 a1 c1 a2");
  // a turn per yield: 6 yields, each released by its own turn
  assertEquals(y.turns, 6);
  y.close();
  const t = performance.now();
  await y.yield(); // resolves at once after close
  assert(performance.now() - t < 50);
});

Deno.test("TaskYielder: close releases the tasks still waiting", async () => {
  const y = new TaskYielder();
  let released = 0;
  const waits = [y.yield(), y.yield(), y.yield()].map((p) => p.then(() => released++));
  assertEquals(y.waiting, 3);
  y.close();
  await Promise.all(waits);
  assertEquals(released, 3);
});

Deno.test("TaskYielder: requests from another process are answered during a chain of busy slices", async () => {
  // The property the service depends on (and MessageChannel turns lack on Deno 2.9.5): between
  // two slices the event loop polls for I/O, so requests do not wait for the chain's end. A
  // client process sends requests one after the other; once the first arrived, a chain of 1 ms
  // slices runs for 1 s and counts the requests answered meanwhile (with message turns: about
  // one per 20 ms timer turn, so < 50; with this turn: hundreds).
  let handled = 0;
  const ac = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen() {} },
    () => {
      handled++;
      return new Response("ok");
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const client = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const end = Date.now() + 8000;
       while (Date.now() < end) { try { await (await fetch("${url}")).text(); } catch { break; } }`,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const y = new TaskYielder();
  try {
    const t0 = performance.now();
    while (handled === 0 && performance.now() - t0 < 10000) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert(handled > 0, "the client never reached the server");
    const before = handled;
    const start = performance.now();
    while (performance.now() - start < 1000) {
      busy(1);
      await y.yield();
    }
    const during = handled - before;
    assert(during >= 50, `${during} requests answered during 1 s of slices (${y.turns} turns)`);
  } finally {
    y.close();
    client.kill();
    await client.status;
    ac.abort();
    await server.finished;
  }
});
