// Byte sources: files, file: URLs, stdin, HTTP URLs, streams and iterables; gzip detection.
import { openSource } from "../../src/data/sources.ts";
import { readExamples } from "../../src/data/readers.ts";
import { assert, assertEquals, assertThrowsMsg, bytes } from "./helpers.ts";
import { gzip, withLocalServer } from "../helpers.ts";

const TEXT = "3 4 2\n0 1:1\n1 2:0.5\n0,1 0:1 3:2\n";

async function labelsOf(input: Parameters<typeof readExamples>[0], name?: string) {
  const r = await readExamples(input, name ? { name } : {});
  const out: number[][] = [];
  for await (const e of r.stream) out.push([...e.labels]);
  return { name: r.name, labels: out };
}

const WANT = [[0], [1], [0, 1]];

Deno.test("sources: a file path, a gzip file with a .txt name, a file: URL; missing file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_src_" });
  try {
    await Deno.writeTextFile(`${dir}/a.txt`, TEXT);
    await Deno.writeFile(`${dir}/b.txt`, await gzip(TEXT));
    const a = await labelsOf(`${dir}/a.txt`);
    assert(a.name === "a.txt", a.name);
    assertEquals(a.labels, WANT);
    assertEquals((await labelsOf(`${dir}/b.txt`)).labels, WANT, "gzip found by magic bytes");
    const src = await openSource(`${dir}/b.txt`);
    assert(src.gzip && src.name === "b.txt", "gzip flag");
    await src.stream.cancel();
    const u = await labelsOf(new URL(`file://${dir}/a.txt`));
    assert(u.name === "a.txt", u.name);
    assertEquals(u.labels, WANT);
    await assertThrowsMsg(
      () => readExamples(`${dir}/nope.txt`),
      TypeError,
      `Cannot read ${dir}/nope.txt: no such file`,
    );
    await assertThrowsMsg(() => readExamples(dir), TypeError, "it is a directory");
    const raw = await openSource(`${dir}/b.txt`, { decompress: "none" });
    const head = (await raw.stream.getReader().read()).value!;
    assert(!raw.gzip && head[0] === 0x1f && head[1] === 0x8b, "decompress none keeps the bytes");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sources: iterables and streams of strings, bytes and ArrayBuffers; empty chunks", async () => {
  const b = bytes(TEXT);
  const inputs = [
    [TEXT.slice(0, 5), TEXT.slice(5)],
    [b.slice(0, 3).buffer, "", b.slice(3)],
    (async function* () {
      for (const c of b) yield Uint8Array.of(c);
    })(),
    new Blob([TEXT]).stream(),
    ReadableStream.from([TEXT.slice(0, 9), "", TEXT.slice(9)]),
  ];
  for (const input of inputs) {
    const r = await labelsOf(input, "mem");
    assert(r.name === "mem", r.name);
    assertEquals(r.labels, WANT);
  }
  assert((await labelsOf([TEXT])).name === "<stream>", "default name");
  const bad = await readExamples([TEXT, 42 as unknown as string], { name: "odd" });
  const it = bad.stream[Symbol.asyncIterator]();
  let err: unknown;
  try {
    while (!(await it.next()).done);
  } catch (e) {
    err = e;
  }
  assert(
    err instanceof TypeError &&
      err.message ===
        "Cannot parse line 5 of odd: chunks must be strings, Uint8Arrays or ArrayBuffers, got number",
    String(err),
  );
  await assertThrowsMsg(() => openSource(42 as unknown as string), TypeError, "expected a path");
});

Deno.test("sources: stdin ('-') in a subprocess, plain and gzip", async () => {
  const script = `
    import { readExamples } from ${
    JSON.stringify(new URL("../../src/data/readers.ts", import.meta.url).href)
  };
    const r = await readExamples("-");
    let n = 0, nnz = 0;
    for await (const e of r.stream) { n++; nnz += e.x.indices.length; }
    console.log(JSON.stringify({ name: r.name, n, nnz }));
  `;
  for (const input of [bytes(TEXT), await gzip(TEXT)]) {
    const p = new Deno.Command(Deno.execPath(), {
      args: ["eval", script],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = p.stdin.getWriter();
    await w.write(input);
    await w.close();
    const out = await p.output();
    const text = new TextDecoder().decode(out.stdout).trim();
    assert(out.code === 0, new TextDecoder().decode(out.stderr));
    assertEquals(JSON.parse(text), { name: "<stdin>", n: 3, nnz: 4 });
  }
});

Deno.test("sources: HTTP URL (plain, gzip body, 404) from a local Deno.serve", async () => {
  const gz = await gzip(TEXT);
  const handler = (req: Request) => {
    const path = new URL(req.url).pathname;
    if (path === "/data.txt") return new Response(TEXT);
    if (path === "/ev.ndjson") return new Response('{"features": {"2": 1}, "labels": ["a"]}\n');
    if (path === "/data.txt.gz") {
      return new Response(gz, { headers: { "content-type": "application/gzip" } });
    }
    return new Response("not here", { status: 404, statusText: "Not Found" });
  };
  await withLocalServer(handler, async (base) => {
    const plain = await labelsOf(`${base}/data.txt`);
    assert(plain.name === `${base}/data.txt`, plain.name);
    assertEquals(plain.labels, WANT);
    assertEquals((await labelsOf(new URL(`${base}/data.txt.gz`))).labels, WANT, "gzip over HTTP");
    await assertThrowsMsg(
      () => readExamples(`${base}/missing.txt`),
      TypeError,
      `Cannot read ${base}/missing.txt: HTTP 404 Not Found`,
    );
    const nd = await readExamples(`${base}/ev.ndjson?since=0`);
    assert(nd.format === "ndjson", `format from the URL path: ${nd.format}`);
    for await (const e of nd.stream) assertEquals(e.x.indices, [2]);
    const r = await readExamples(`${base}/data.txt`, { format: "xc" });
    const rows = [];
    for await (const e of r.stream) rows.push(e);
    assert(rows.length === 3 && r.report.accepted === 3, "report of a URL read");
  });
});

Deno.test("sources: cancelling the example stream releases the source", async () => {
  let cancelled = false;
  const src = new ReadableStream<string>({
    pull(c) {
      c.enqueue("0 1:1\n");
    },
    cancel() {
      cancelled = true;
    },
  });
  const r = await readExamples(src, { format: "libsvm", featureIndexBase: 0 });
  let n = 0;
  for await (const _ of r.stream) if (++n === 5) break;
  assert(cancelled, "the underlying stream was cancelled");
});
