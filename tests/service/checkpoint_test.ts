import {
  decodeCheckpoint,
  encodeCheckpoint,
  readFileIfExists,
  writeFileAtomic,
} from "../../src/service/checkpoint.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

Deno.test("checkpoint encoding round-trips nested objects and every typed array", () => {
  const obj = {
    a: Float32Array.of(1.5, -2, 3e-8),
    b: { c: Float64Array.of(Math.PI), d: [Int32Array.of(-7, 8), "x", 3, null] },
    e: Uint8Array.of(0, 255),
    f: Int8Array.of(-128),
    g: Uint16Array.of(65535),
    h: Uint32Array.of(4294967295),
    i: Int16Array.of(-32768),
    big: 2 ** 40,
    nested: { empty: new Float32Array(0) },
  };
  const back = decodeCheckpoint(encodeCheckpoint(obj)) as typeof obj;
  assert(back.a instanceof Float32Array && back.b.c instanceof Float64Array);
  assertEquals(back.a, obj.a);
  assertEquals(back.b.c[0], Math.PI);
  assert(back.b.d[0] instanceof Int32Array);
  assertEquals(back.b.d, [[-7, 8], "x", 3, null]);
  assertEquals([back.e, back.f, back.g, back.h, back.i], [[0, 255], [-128], [65535], [
    4294967295,
  ], [-32768]]);
  assertEquals(back.big, 2 ** 40);
  assertEquals(back.nested.empty.length, 0);
});

Deno.test("typed arrays that are views of larger buffers are encoded by their own bytes", () => {
  const big = Float32Array.of(1, 2, 3, 4);
  const back = decodeCheckpoint(encodeCheckpoint({ v: big.subarray(1, 3) })) as {
    v: Float32Array;
  };
  assertEquals(back.v, [2, 3]);
});

Deno.test("decoding garbage is a SyntaxError naming the size", () => {
  let err: unknown;
  try {
    decodeCheckpoint(Uint8Array.of(0xc1, 0xc1, 0xc1));
  } catch (e) {
    err = e;
  }
  assert(err instanceof SyntaxError && err.message.includes("3 bytes"), String(err));
});

Deno.test("writeFileAtomic replaces the file and leaves no temporary file", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/ck.bin`;
    assertEquals(await readFileIfExists(path), undefined);
    await writeFileAtomic(path, Uint8Array.of(1, 2, 3));
    await writeFileAtomic(path, Uint8Array.of(9));
    assertEquals(await readFileIfExists(path), [9]);
    const names: string[] = [];
    for await (const e of Deno.readDir(dir)) names.push(e.name);
    assertEquals(names, ["ck.bin"]);
  });
});
