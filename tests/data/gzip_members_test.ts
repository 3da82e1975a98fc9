// gunzipStream reads every member of a gzip stream, as zcat does (`cat a.gz b.gz`, bgzip), and
// still names the source for truncated or corrupt data; the Web DecompressionStream stopped
// after the first member and refused the rest ("failed to write whole buffer").
import { gunzipStream } from "../../src/data/gzip.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";

async function gz(text: string): Promise<Uint8Array> {
  const s = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/** A stream of `bytes` in chunks of `size`. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at += size));
    },
  });
}

const text = (s: ReadableStream<Uint8Array>) => new Response(s).text();

Deno.test("gunzipStream: every member of a multi-member file, in any chunking", async () => {
  const a = await gz("1 2 3\n0:1 2\n"), b = await gz("1:0.5 3\n"), c = await gz("");
  const both = new Uint8Array([...a, ...b, ...c]);
  for (const size of [1, 7, 64, both.length]) {
    assertEquals(await text(gunzipStream(chunked(both, size), "ab.gz")), "1 2 3\n0:1 2\n1:0.5 3\n");
  }
});

Deno.test("gunzipStream: a large member comes out whole", async () => {
  const lines = Array.from({ length: 20000 }, (_, i) => `${i % 7} ${i}:${(i * 0.37).toFixed(3)}`);
  const body = lines.join("\n") + "\n";
  const packed = await gz(body);
  assertEquals(await text(gunzipStream(chunked(packed, 4096), "big.gz")), body);
});

Deno.test("gunzipStream: truncated or corrupt data is a TypeError naming the source", async () => {
  const a = await gz("x".repeat(5000) + "\n" + "y 1:2\n".repeat(300));
  await assertThrowsMsg(
    () => text(gunzipStream(chunked(a.slice(0, a.length - 12), 64), "cut.gz")),
    TypeError,
    "Cannot read cut.gz: truncated or corrupt gzip data",
  );
  const bad = a.slice();
  for (let i = 20; i < 40; i++) bad[i] ^= 0x5a;
  await assertThrowsMsg(
    () => text(gunzipStream(chunked(bad, 64), "bad.gz")),
    TypeError,
    "Cannot read bad.gz: truncated or corrupt gzip data",
  );
});

Deno.test("gunzipStream: cancelling the output cancels the input", async () => {
  let cancelled = false;
  const packed = await gz("z\n".repeat(100000));
  let at = 0;
  const input = new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= packed.length) return c.close();
      c.enqueue(packed.slice(at, at += 16));
    },
    cancel() {
      cancelled = true;
    },
  });
  const reader = gunzipStream(input, "z.gz").getReader();
  const first = await reader.read();
  assert(!first.done && first.value.length > 0);
  await reader.cancel();
  assert(cancelled, "the input was cancelled");
});
