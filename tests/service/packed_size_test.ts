// The checkpoint writer sizes its msgpack exactly first (src/service/packed_size.ts): every kind
// of value must take exactly the bytes sized, and decode (msgpackr's unpack) to what was packed.
import { unpack } from "msgpackr/unpack";
import { packedSize, packSized, utf8Length } from "../../src/service/packed_size.ts";
import { assert, assertEquals } from "./helpers.ts";

const numbers = [
  0,
  1,
  127,
  128,
  255,
  256,
  65535,
  65536,
  2 ** 32 - 1,
  2 ** 32,
  2 ** 40,
  Number.MAX_SAFE_INTEGER,
  -1,
  -32,
  -33,
  -128,
  -129,
  -32768,
  -32769,
  -(2 ** 31),
  -(2 ** 31) - 1,
  -(2 ** 40),
  Number.MIN_SAFE_INTEGER,
  0.5,
  -0,
  1e300,
  Infinity,
  -Infinity,
  NaN,
  2 ** 53 + 2,
];
const strings = [
  "",
  "a",
  "x".repeat(31),
  "x".repeat(32),
  "y".repeat(255),
  "y".repeat(256),
  "z".repeat(65536),
  "é€😀",
  "\ud800",
  "a\udc00b",
  "😀".repeat(20),
];

Deno.test("packSized: every size class takes exactly the bytes sized and decodes back", () => {
  const values: unknown[] = [
    ...numbers,
    ...strings,
    null,
    true,
    false,
    Uint8Array.of(),
    Uint8Array.of(1, 2, 3),
    Array.from({ length: 15 }, (_, i) => i),
    Array.from({ length: 16 }, (_, i) => i),
    Array.from({ length: 70000 }, (_, i) => i % 3),
    Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])),
    { a: [1, "x", { b: Uint8Array.of(9), c: [null, true] }], skipped: undefined, d: -0.25 },
  ];
  for (const [i, v] of values.entries()) {
    const bytes = packSized(v, 3);
    assertEquals(bytes.length, 3 + packedSize(v), `value ${i}: length`);
    assert(bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0, `value ${i}: the offset is room`);
    const back = unpack(bytes.subarray(3));
    const want = typeof v === "object" && v !== null && !Array.isArray(v) &&
        !(v instanceof Uint8Array)
      ? JSON.parse(JSON.stringify(v, (_k, x) => x instanceof Uint8Array ? [...x] : x))
      : v;
    const norm = (x: unknown) =>
      JSON.stringify(x, (_k, y) => y instanceof Uint8Array ? [...y] : Object.is(y, -0) ? "-0" : y);
    if (typeof v === "number") {
      assert(Object.is(back, v), `value ${i}: ${v} came back as ${String(back)}`);
    } else if (typeof v === "string") {
      assertEquals(back, new TextDecoder().decode(new TextEncoder().encode(v)), `string ${i}`);
    } else assertEquals(norm(back), norm(want), `value ${i}`);
  }
});

Deno.test("utf8Length equals TextEncoder's length, lone surrogates included", () => {
  for (const s of strings) assertEquals(utf8Length(s), new TextEncoder().encode(s).length, s);
});

Deno.test("packedSize refuses values msgpack cannot hold here, naming the path", () => {
  for (
    const [v, at] of [[{ a: [1, 2n] }, "value.a[1]"], [{ f: () => 1 }, "value.f"], [
      { t: Float32Array.of(1) },
      "value.t",
    ]] as const
  ) {
    let message = "";
    try {
      packedSize(v);
    } catch (e) {
      message = (e as TypeError).message;
    }
    assert(message.startsWith(`Cannot pack ${at}:`), `${at}: ${message}`);
  }
});
