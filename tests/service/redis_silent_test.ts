/**
 * A Redis server (or the network to it) that goes silent — no reply, and no reset either, as
 * when its host is powered off or a firewall drops the connection's packets: reads and
 * acknowledgements give up after the reply timeout instead of waiting for ever, so the source
 * keeps retrying and `stop()` finishes with its last checkpoint. A fake server stands in for
 * Redis (a real one cannot be silenced without root).
 */
import { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

const enc = new TextEncoder();

/** RESP commands (arrays of bulk strings) from a byte stream. */
class Commands {
  #buf = new Uint8Array(0);
  feed(b: Uint8Array): string[][] {
    const all = new Uint8Array(this.#buf.length + b.length);
    all.set(this.#buf);
    all.set(b, this.#buf.length);
    const out: string[][] = [];
    let p = 0;
    const line = (from: number) => {
      const e = all.indexOf(10, from);
      return e < 0
        ? undefined
        : { text: new TextDecoder().decode(all.subarray(from, e - 1)), next: e + 1 };
    };
    while (true) {
      const head = line(p);
      if (head === undefined) break;
      const n = Number(head.text.slice(1));
      let q = head.next;
      const args: string[] = [];
      for (let i = 0; i < n; i++) {
        const len = line(q);
        if (len === undefined) break;
        const size = Number(len.text.slice(1));
        if (len.next + size + 2 > all.length) break;
        args.push(new TextDecoder().decode(all.subarray(len.next, len.next + size)));
        q = len.next + size + 2;
      }
      if (args.length < n) break;
      out.push(args);
      p = q;
    }
    this.#buf = all.slice(p);
    return out;
  }
}

const bulk = (s: string) => `$${enc.encode(s).length}\r\n${s}\r\n`;

/** An XREADGROUP reply holding `entries` of stream `key`. */
function streamReply(key: string, entries: [string, string][]): string {
  let r = `*1\r\n*2\r\n${bulk(key)}*${entries.length}\r\n`;
  for (const [id, event] of entries) r += `*2\r\n${bulk(id)}*2\r\n${bulk("event")}${bulk(event)}`;
  return r;
}

/** Whether stream id `a` ("ms-seq") comes after `b`. */
function idAfter(a: string, b: string): boolean {
  const [am, as = 0n] = a.split("-").map(BigInt), [bm, bs = 0n] = b.split("-").map(BigInt);
  return am > bm || (am === bm && as > bs);
}

/**
 * A fake Redis: creates the group, delivers `entries` to the first read of new entries, then
 * answers nothing more, on any connection, from the second read of new entries on. Until then
 * a read of pending entries answers the delivered ones not acknowledged, as Redis does: when a
 * slow or paused machine makes the delivery's reply late, the source's reply timeout drops it
 * and the source reads it again from there after reconnecting.
 */
function silentAfterDelivery(key: string, entries: [string, string][]) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  const state = { delivered: false, silent: false, commandsIgnored: 0 };
  const acked = new Set<string>();
  (async () => {
    for await (const conn of listener) {
      conns.push(conn);
      (async () => {
        const parser = new Commands();
        const buf = new Uint8Array(65536);
        while (true) {
          const n = await conn.read(buf).catch(() => null);
          if (n === null) return;
          for (const args of parser.feed(buf.subarray(0, n))) {
            if (state.silent) {
              state.commandsIgnored++;
              continue;
            }
            const cmd = args[0].toUpperCase();
            let reply = "+OK\r\n";
            if (cmd === "XREADGROUP" && args[args.length - 1] === ">") {
              if (state.delivered) {
                state.silent = true;
                state.commandsIgnored++;
                continue;
              }
              state.delivered = true;
              reply = streamReply(key, entries);
            } else if (cmd === "XREADGROUP") {
              // this consumer's pending entries after the id given
              const after = args[args.length - 1];
              const pending = state.delivered
                ? entries.filter(([id]) => !acked.has(id) && idAfter(id, after))
                : [];
              reply = pending.length > 0 ? streamReply(key, pending) : "*-1\r\n";
            } else if (cmd === "XACK") {
              for (const id of args.slice(3)) acked.add(id);
              reply = `:${args.length - 3}\r\n`;
            } else if (cmd === "XPENDING") reply = "*4\r\n:0\r\n$-1\r\n$-1\r\n*-1\r\n";
            await conn.write(enc.encode(reply)).catch(() => {});
          }
        }
      })();
    }
  })();
  return {
    url: `redis://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    state,
    close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
    },
  };
}

async function waitFor(what: string, ok: () => boolean, boundMs = 10000): Promise<void> {
  const t0 = performance.now();
  while (!ok()) {
    if (performance.now() - t0 > boundMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("a Redis server gone silent: reads and acknowledgements give up after the reply timeout, and stop() ends with its checkpoint", async () => {
  const events = plantedEvents(2);
  const fake = silentAfterDelivery("ev", [["1-0", events[0]], ["2-0", events[1]]]);
  try {
    await withTempDir(async (dir) => {
      const logs: string[] = [];
      const s = await LearningService.open(serviceOptions(dir, {
        redis: { url: fake.url, key: "ev", blockMs: 20, claimIdleMs: 0, replyTimeoutMs: 300 },
        checkpointSeconds: 0,
        log: (m) => logs.push(m),
      }));
      await s.start();
      await waitFor("the two entries", () => s.applied === 2);
      await waitFor("the server to fall silent", () => fake.state.silent);
      // the read in flight, then the last checkpoint's acknowledgement, get no answer
      let stopped = false;
      const stopping = s.stop().then(() => stopped = true);
      await waitFor("stop() to finish", () => stopped, 20000);
      await stopping;
      assert(
        logs.some((m) => /no reply within/.test(m)),
        `the timeout is logged: ${JSON.stringify(logs)}`,
      );
      // the last checkpoint holds both events (their entries stay pending in Redis: a restart
      // acknowledges them without applying them again)
      const t = await LearningService.open(serviceOptions(dir));
      assertEquals(t.applied, 2);
      assertEquals((t.learner.position.redis as { lastId: string }).lastId, "2-0");
      await t.stop();
    });
  } finally {
    fake.close();
  }
});
