/**
 * `loadModel` on a Node Buffer at an odd offset (a slice of a larger Buffer, as msgpackr and Node
 * streams hand out): its tensors are copied to an aligned buffer, as for a Uint8Array (a Buffer's
 * `slice` is a view at the same offset, and the typed-array views threw a RangeError).
 */
import { Buffer } from "node:buffer";
import { loadModel } from "../../sdk/mod.ts";
import { assert } from "../helpers.ts";

const FIXTURES = new URL("../fixtures/v1/", import.meta.url);

Deno.test("loadModel reads a model from a Node Buffer at an odd offset, as from the bytes", async () => {
  let read = 0;
  for await (const e of Deno.readDir(FIXTURES)) {
    if (!e.name.endsWith(".tsm")) continue;
    read++;
    const bytes = await Deno.readFile(new URL(e.name, FIXTURES));
    const big = Buffer.alloc(bytes.length + 3);
    big.set(bytes, 3);
    const odd = big.subarray(3);
    assert(odd.byteOffset % 2 === 1, "the Buffer is at an odd offset");
    const want = loadModel(bytes), got = loadModel(odd);
    assert(got.kind === want.kind && got.numLabels === want.numLabels, e.name);
    const x = { indices: Int32Array.of(0, 1), values: Float32Array.of(1, 0.5) };
    const a = want.predictTopK(x, 3), b = got.predictTopK(x, 3);
    assert(
      JSON.stringify([...a.labels, ...a.scores]) === JSON.stringify([...b.labels, ...b.scores]),
      `${e.name}: ${JSON.stringify(a)} against ${JSON.stringify(b)}`,
    );
  }
  assert(read >= 5, `only ${read} model files in ${FIXTURES.pathname}`);
});
