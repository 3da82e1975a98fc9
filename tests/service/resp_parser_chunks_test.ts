// The RESP parser takes replies in any chunking: random replies (simple strings, errors,
// integers, bulk strings with CRLF and non-ASCII inside, nulls, nested arrays), encoded, fed in
// random chunks from 1 byte up, give back the same replies in order. (The parser keeps a growing
// buffer and waits for a bulk string's end before parsing a reply again, so that a large reply
// in many chunks costs time linear in its size; `bench`-style timing is in the session note.)
import { RespParser, type RespValue } from "../../src/service/redis_client.ts";
import { mulberry32 } from "../mulberry32.ts";
import { assertEquals } from "../helpers.ts";

type Reply = { value: RespValue } | { error: string };

function randomValue(rand: () => number, depth: number): RespValue {
  const r = rand();
  if (r < 0.2) return `s${Math.floor(rand() * 1000)}`;
  if (r < 0.35) return Math.floor(rand() * 2e9) - 1e9;
  if (r < 0.45) return null;
  if (r < 0.75 || depth > 2) {
    const n = Math.floor(rand() ** 3 * 3000);
    let b = "";
    for (let i = 0; i < n; i++) b += rand() < 0.05 ? "\r\n" : rand() < 0.05 ? "é" : "x";
    return b;
  }
  return Array.from({ length: Math.floor(rand() * 6) }, () => randomValue(rand, depth + 1));
}

const enc = new TextEncoder();

/** RESP bytes of a value (simple strings as `+`, other strings as bulk strings). */
function encode(v: RespValue, simple: boolean): string {
  if (v === null) return "$-1\r\n";
  if (typeof v === "number") return `:${v}\r\n`;
  if (typeof v === "string") {
    return simple ? `+${v}\r\n` : `$${enc.encode(v).length}\r\n${v}\r\n`;
  }
  return `*${v.length}\r\n${v.map((e) => encode(e, false)).join("")}`;
}

Deno.test("RespParser: random replies fed in random chunks come back whole and in order", () => {
  for (let seed = 1; seed <= 30; seed++) {
    const rand = mulberry32(seed);
    const replies: Reply[] = [];
    let text = "";
    for (let i = 0; i < 40; i++) {
      if (rand() < 0.1) {
        const msg = `ERR bad ${i}`;
        replies.push({ error: msg });
        text += `-${msg}\r\n`;
        continue;
      }
      const v = randomValue(rand, 0);
      const simple = typeof v === "string" && /^s\d+$/.test(v);
      replies.push({ value: v });
      text += encode(v, simple);
    }
    const bytes = enc.encode(text);
    const p = new RespParser();
    const got: Reply[] = [];
    for (let at = 0; at < bytes.length;) {
      const n = 1 + Math.floor(rand() ** 4 * 5000);
      // a reused read buffer, as the client's: the parser must copy what it keeps
      const chunk = bytes.slice(at, at + n);
      p.feed(chunk);
      chunk.fill(0);
      at += n;
      for (let r = p.next(); r !== undefined; r = p.next()) got.push(r);
    }
    assertEquals(got, replies, `seed ${seed}`);
    assertEquals(p.next(), undefined);
  }
});

Deno.test("RespParser: errors inside arrays, empty and null arrays, byte by byte", () => {
  const text = "*3\r\n-WRONGTYPE x\r\n*0\r\n*2\r\n$-1\r\n*-1\r\n*0\r\n+OK\r\n";
  const p = new RespParser();
  const got: Reply[] = [];
  for (const b of enc.encode(text)) {
    p.feed(Uint8Array.of(b));
    for (let r = p.next(); r !== undefined; r = p.next()) got.push(r);
  }
  assertEquals(got, [
    { value: ["ERR WRONGTYPE x", [], [null, null]] },
    { value: [] },
    { value: "OK" },
  ]);
});
