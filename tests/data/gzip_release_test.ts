// A gzip source whose decompression stops before its input does (corrupt data, or zero padding
// after the last member, which zlib ends on as zcat does) must close that input: it was left
// open, so every such file read leaked its file descriptor.
import { gunzipStream } from "../../src/data/gzip.ts";
import { readExamples } from "../../src/data/readers.ts";
import { loadXcFile } from "../../src/data/dataset_load.ts";
import { assert, assertEquals, assertThrowsMsg } from "../helpers.ts";

async function gz(text: string): Promise<Uint8Array> {
  const s = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

/** `bytes` in chunks of `size`, recording whether the stream was cancelled. */
function tracked(bytes: Uint8Array, size: number) {
  const state = { cancelled: false };
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at += size));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

const BODY = "3000 4 2\n" +
  Array.from({ length: 3000 }, (_, i) => `${i % 2} ${i % 4}:${i}\n`).join("");

async function corrupt(): Promise<Uint8Array> {
  const bad = await gz(BODY);
  for (let i = 200; i < 260; i++) bad[i] ^= 0x55;
  return bad;
}

Deno.test("gunzipStream: corrupt data closes the rest of the input", async () => {
  const { stream, state } = tracked(await corrupt(), 256);
  await assertThrowsMsg(
    () => new Response(gunzipStream(stream, "bad.gz")).text(),
    TypeError,
    "Cannot read bad.gz: truncated or corrupt gzip data",
  );
  assert(state.cancelled, "the input of a corrupt gzip stream was left open");
});

Deno.test("gunzipStream: zero padding after the last member: data whole, input closed", async () => {
  const packed = await gz("a 1:2\n");
  const padded = new Uint8Array(packed.length + 100_000);
  padded.set(packed);
  const { stream, state } = tracked(padded, 1024);
  assertEquals(await new Response(gunzipStream(stream, "pad.gz")).text(), "a 1:2\n");
  assert(state.cancelled, "the unread padding of a gzip stream was left open");
});

const fdDir = "/proc/self/fd";
/** Skips the test where the process's descriptors are not listed (the stream tests cover it). */
const NEEDS_PROC = {
  ignore: (() => {
    try {
      Deno.readDirSync(fdDir);
      return false;
    } catch {
      return true;
    }
  })(),
};

Deno.test("readExamples and loadXcFile release a corrupt gzip file", NEEDS_PROC, async () => {
  const path = await Deno.realPath(await Deno.makeTempFile({ suffix: ".txt" }));
  /** How many of the process's descriptors are open on `path`. */
  const openOnPath = () =>
    [...Deno.readDirSync(fdDir)].filter((d) => {
      try {
        return Deno.readLinkSync(`${fdDir}/${d.name}`) === path;
      } catch {
        return false; // closed meanwhile
      }
    }).length;
  try {
    await Deno.writeFile(path, await corrupt());
    const probe = await Deno.open(path); // the count does see a descriptor open on the file
    try {
      assertEquals(openOnPath(), 1, "an open descriptor on the file is not counted");
    } finally {
      probe.close();
    }
    const r = await readExamples(path);
    await assertThrowsMsg(
      async () => {
        for await (const _ of r.stream) { /* drain */ }
      },
      TypeError,
      "truncated or corrupt gzip data",
    );
    await assertThrowsMsg(() => loadXcFile(path), TypeError, "truncated or corrupt gzip data");
    assertEquals(openOnPath(), 0, "descriptors left open on the corrupt gzip file");
  } finally {
    await Deno.remove(path);
  }
});
