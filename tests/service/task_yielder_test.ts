import { TaskYielder } from "../../src/service/task_yielder.ts";
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
  await y.close();
  // resolves at once after close: before a timer set first, and without a turn
  const timer = new Promise<string>((r) => setTimeout(() => r("timer"), 0));
  assertEquals(await Promise.race([y.yield().then(() => "yield"), timer]), "yield");
  assertEquals(y.turns, 6);
  await timer;
});

Deno.test("TaskYielder: close releases the tasks still waiting", async () => {
  const y = new TaskYielder();
  let released = 0;
  const waits = [y.yield(), y.yield(), y.yield()].map((p) => p.then(() => released++));
  assertEquals(y.waiting, 3);
  await y.close();
  await Promise.all(waits);
  assertEquals(released, 3);
});

/**
 * Runs `fn` while a client process sends requests one after the other to a server of this
 * thread, until `fn` is done (the client is killed then; its own 120 s limit only keeps it from
 * outliving a test process that died: a slow or paused machine must not end it early).
 */
async function withClient(fn: (handled: () => number) => Promise<void>): Promise<void> {
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
      `const end = Date.now() + 120_000;
       while (Date.now() < end) { try { await (await fetch("${url}")).text(); } catch { break; } }`,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const t0 = performance.now();
    while (handled === 0 && performance.now() - t0 < 30_000) { // a hang guard
      await new Promise((r) => setTimeout(r, 5));
    }
    assert(handled > 0, "the client never reached the server");
    await fn(() => handled);
  } finally {
    client.kill();
    await client.status;
    ac.abort();
    await server.finished;
  }
}

Deno.test("TaskYielder: requests from another process are answered during a chain of busy slices", async () => {
  // The property the service depends on: between two slices the event loop polls for I/O, so
  // requests do not wait for the chain's end. A client process sends requests one after the
  // other; a chain of 1 ms slices runs until the server has answered 10 of them after at least
  // 5 different slices, and records after which slice each was answered. The evidence is the
  // interleaving, not a rate: requests seen while the chain ran (it ends only after them) and
  // after several different slices (a loaded machine may stretch one turn over several polls
  // and let it see two answers: the chain then runs on; it is bounded in slices, not in time).
  // (How many requests a second get through is measured by bench/service_load.ts, not asserted.)
  await withClient(async (handled) => {
    const y = new TaskYielder();
    try {
      // the first turn starts opening the loopback connection: timer turns until it is open
      const first = y.yield();
      assertEquals(y.turnKind, "timer");
      await first;
      for (let i = 0; i < 10_000 && y.turnKind !== "loopback"; i++) {
        await y.yield();
        await new Promise((r) => setTimeout(r, 1));
      }
      assertEquals(y.turnKind, "loopback");
      const before = handled();
      // answeredAfter[i]: the slice after whose turn the (i+1)-th request of the chain was seen
      const answeredAfter: number[] = [];
      let slices = 0;
      const distinct = () => new Set(answeredAfter).size;
      while ((answeredAfter.length < 10 || distinct() < 5) && slices < 20_000) {
        busy(1);
        slices++;
        await y.yield();
        const n = handled() - before;
        while (answeredAfter.length < n) answeredAfter.push(slices);
      }
      assert(answeredAfter.length >= 10, `${slices} slices answered only ${answeredAfter}`);
      // spread over the chain, slices running between answers
      assert(distinct() >= 5, `requests answered after slices ${answeredAfter}: not interleaved`);
    } finally {
      await y.close();
    }
  });
});

Deno.test("TaskYielder: loopback or blocking-pool turns; close ends a turn in flight", async () => {
  const y = new TaskYielder("blocking-pool");
  for (let i = 0; i < 5; i++) await y.yield();
  assertEquals([y.turns, y.turnKind], [5, "blocking-pool"]);
  await y.close();
  // In a process of its own: the close ends the turn in flight and closes the loopback
  // connection. Without --allow-net the default yielder falls back to blocking-pool turns, with
  // no prompt and no error.
  const fixture = new URL("./fixtures/yielder_turns.ts", import.meta.url).pathname;
  for (
    const [flags, expected] of [
      [["--allow-net=127.0.0.1"], [true, "loopback", 2, "blocking-pool", 0]],
      [[], [true, "blocking-pool", 2, "blocking-pool", 0]],
    ] as const
  ) {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        ...flags,
        fixture,
        flags.length > 0 ? "net" : "none",
      ],
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000); // a hang guard
    const out = await child.output();
    clearTimeout(timer);
    const err = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, `${flags.join(" ")}: ${err}`);
    assertEquals(new TextDecoder().decode(out.stdout).trim(), JSON.stringify(expected));
  }
});
