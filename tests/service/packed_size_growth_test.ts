// packSized writes into one array of exactly the size it computed first (a checkpoint of a big
// model is gigabytes): the writer must never regrow it, also when the value ends with a number or
// a string (MsgpackWriter reserves their worst case, 9 bytes or 5 + 3 per code unit, before
// writing), which made it allocate twice the size and copy the result to trim it.
import { unpack } from "msgpackr/unpack";
import { MsgpackWriter } from "../../src/format/msgpack_writer.ts";
import { packedSize, packSized } from "../../src/service/packed_size.ts";
import { assertEquals } from "./helpers.ts";

/** Runs `f` counting the times a MsgpackWriter had to grow its buffer. */
function countingGrowth(f: () => void): number {
  const proto = MsgpackWriter.prototype as unknown as {
    ensure(n: number): void;
  };
  const ensure = proto.ensure;
  let grown = 0;
  proto.ensure = function (this: { pos: number; buf: Uint8Array }, n: number) {
    if (this.pos + n > this.buf.length) grown++;
    return ensure.call(this, n);
  };
  try {
    f();
  } finally {
    proto.ensure = ensure;
  }
  return grown;
}

Deno.test("packSized never regrows its exactly sized array, whatever the value ends with", () => {
  const lasts: unknown[] = [
    0,
    1,
    127,
    300,
    70000,
    -5,
    0.5,
    -0,
    2 ** 40,
    "",
    "a",
    "é",
    "x".repeat(40),
    "€".repeat(300),
    "😀".repeat(20),
    true,
    null,
  ];
  const values: unknown[] = [];
  for (const v of lasts) {
    values.push(v, [v], { blob: new Uint8Array(100), counters: { a: 3, last: v } }, [1, "b", v]);
  }
  values.push({ ["ключ".repeat(10)]: 1 }, { ["k".repeat(40)]: "v" });
  for (const [i, v] of values.entries()) {
    for (const offset of [0, 16]) {
      let bytes: Uint8Array = new Uint8Array(0);
      const grown = countingGrowth(() => (bytes = packSized(v, offset)));
      assertEquals(grown, 0, `value ${i} (${JSON.stringify(v)?.slice(0, 40)}): buffer regrown`);
      assertEquals(bytes.length, offset + packedSize(v), `value ${i}: length`);
      const norm = (x: unknown) =>
        JSON.stringify(
          x,
          (_k, y) => y instanceof Uint8Array ? [...y] : Object.is(y, -0) ? "-0" : y,
        );
      assertEquals(norm(unpack(bytes.subarray(offset))), norm(v), `value ${i}: decodes back`);
    }
  }
});
