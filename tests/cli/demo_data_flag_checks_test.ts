// `deno task demo --data FILE` mistakes, named by the flag the user gave:
// - `--feature-keys`/`--text` on XC or LIBSVM input said "readExamples: option featureKeys
//   applies to NDJSON input only; this input is XC" (a library option, not the flag);
// - `--text` on events read with index keys said "ndjson: text needs named feature keys
//   (featureKeys "name" or hashing)" (library options, not --feature-keys or --hash-dim);
// - `--seed -1` said "leml: option seed must be an integer in [0, 4294967295]" (the model's
//   option, not --seed);
// - an empty file said "gave 0 rows, and --holdout 0.2 holds out about 1 row in 5 ... (give more
//   rows or a larger --holdout)", advice that cannot help;
// - a URL with a query (`.../e.ndjson?v=1`) was read as XC, the query hiding the extension.
import { assert, assertEquals, runDenoScript, tempDirWith } from "./helpers.ts";

const DEMO = new URL("../../src/cli/demo.ts", import.meta.url).pathname;

Deno.test("demo: NDJSON-only flags on XC input, --text without names, --seed and an empty file: the flag named", async () => {
  const dir = await tempDirWith("tagstream_demo_flags_", {
    "t.txt": "2 3 2\n0 0:1\n1 2:1\n",
    "e.ndjson": "",
  });
  try {
    const keys = await runDenoScript(DEMO, ["--allow-all"], [
      "--data",
      `${dir}/t.txt`,
      "--feature-keys",
      "name",
    ]);
    assertEquals(keys.code, 2, keys.stderr);
    assertEquals(
      keys.stderr.trim(),
      `demo: --feature-keys has no effect on xc input, only on NDJSON events (--data ${dir}/t.txt ` +
        "is read as xc; --format ndjson reads events)",
    );
    const text = await runDenoScript(DEMO, ["--allow-all"], [
      "--data",
      `${dir}/t.txt`,
      "--format",
      "libsvm",
      "--text",
    ]);
    assertEquals(text.code, 2, text.stderr);
    assert(text.stderr.startsWith("demo: --text has no effect on libsvm input"), text.stderr);
    const ev = `${dir}/e.ndjson`;
    await Deno.writeTextFile(ev, '{"text":"fast json parser","labels":["lib"]}\n');
    const words = await runDenoScript(DEMO, ["--allow-all"], ["--data", ev, "--text"]);
    assertEquals(words.code, 2, words.stderr);
    assertEquals(words.stderr.trim(), "demo: --text needs --feature-keys name or --hash-dim N");
    await Deno.writeTextFile(ev, "");
    const seed = await runDenoScript(DEMO, ["--allow-all"], ["--seed", "-1"]);
    assertEquals(seed.code, 2, seed.stderr);
    assertEquals(
      seed.stderr.trim(),
      "demo: --seed must be an integer in [0, 4294967295], got '-1'",
    );
    const empty = await runDenoScript(DEMO, ["--allow-all"], ["--data", `${dir}/e.ndjson`]);
    assertEquals(empty.code, 2, empty.stderr);
    assertEquals(
      empty.stderr.trim(),
      "demo: e.ndjson has no rows: nothing to learn from or evaluate on",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("demo: a URL with a query is read in the format of its path", async () => {
  const events = Array.from(
    { length: 40 },
    (_, i) => JSON.stringify({ features: { [`w${i % 7}`]: 1 }, labels: [`t${i % 3}`] }),
  ).join("\n") + "\n";
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    () => new Response(events),
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}/e.ndjson?v=1`;
    const r = await runDenoScript(DEMO, ["--allow-all"], [
      "--data",
      url,
      "--feature-keys",
      "name",
      "--model",
      "popularity",
    ]);
    assertEquals(r.code, 0, r.stderr);
    assert(r.stdout.startsWith(`popularity on ${url}: 32 rows streamed`), r.stdout);
  } finally {
    ac.abort();
    await server.finished;
  }
});
