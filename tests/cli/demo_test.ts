// `deno task demo` end to end with tiny --rows (subprocesses), and runDemo in process.
import { runDemo as runDemoInProcess } from "../../src/cli/demo.ts";
import { Progress } from "../../src/progress/mod.ts";
import { assert, lastJson, runDenoScript, type RunResult } from "./helpers.ts";

const DEMO = new URL("../../src/cli/demo.ts", import.meta.url).pathname;

const runDemo = (args: string[]): Promise<RunResult> =>
  runDenoScript(DEMO, ["--allow-read", "--allow-env", "--allow-write", "--allow-net"], args);

Deno.test("demo streams synthetic rows, holds out every fifth, prints metrics JSON", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_demo_" });
  try {
    const r = await runDemo(["--rows", "500", "--model", "knn", "--plot", `${dir}/curve.svg`]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    const out = lastJson(r.stdout);
    assert(out.model === "knn" && out.source === "synthetic", `${out.model} ${out.source}`);
    assert(out.rows === 500 && out.trainRows === 400 && out.testRows === 100, "row split");
    const m = out.metrics as Record<string, number>;
    for (const key of ["P@1", "P@3", "P@5", "nDCG@5", "PSP@5", "instanceAUC", "hamming"]) {
      assert(typeof m[key] === "number", `metric ${key}`);
    }
    assert(m["P@1"] >= 0 && m["P@1"] <= 100, `P@1 ${m["P@1"]}`);
    assert(typeof out.prequentialP1 === "number", "prequential P@1");
    const svg = await Deno.readTextFile(`${dir}/curve.svg`);
    assert(svg.startsWith("<svg") && svg.includes("polyline"), "SVG curve written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("demo: kNN learns the synthetic structure better than popularity", async () => {
  const args = ["--rows", "1500", "--seed", "3"];
  const knn = lastJson((await runDemo([...args, "--model", "knn"])).stdout);
  const pop = lastJson((await runDemo([...args, "--model", "popularity"])).stdout);
  const pk = (knn.metrics as Record<string, number>)["P@1"];
  const pp = (pop.metrics as Record<string, number>)["P@1"];
  assert(pk > pp + 5, `knn held-out P@1 ${pk} vs popularity ${pp}`);
});

Deno.test("demo reads an XC file with --data; the default model runs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_demo_" });
  try {
    const lines = Array.from({ length: 50 }, (_, i) => `${i % 3} ${i % 3}:1 ${3 + (i % 2)}:0.5`);
    await Deno.writeTextFile(`${dir}/toy.txt`, `50 5 3\n${lines.join("\n")}\n`);
    const r = await runDemo(["--data", `${dir}/toy.txt`, "--model", "knn", "--batch-size", "8"]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    const out = lastJson(r.stdout);
    assert(out.source === "toy.txt" && out.rows === 50 && out.testRows === 10, "file rows");
    // feature i % 3 determines label i % 3: every held-out row is predicted right
    assert((out.metrics as Record<string, number>)["P@1"] === 100, `P@1 ${JSON.stringify(out)}`);
    const d = await runDemo(["--rows", "200"]);
    assert(d.code === 0, `default model: exit ${d.code}: ${d.stderr}`);
    assert(typeof lastJson(d.stdout).model === "string", "default model named");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("demo rejects an unknown model, listing the available ones", async () => {
  const r = await runDemo(["--model", "nope", "--rows", "10"]);
  assert(r.code === 2, `exit ${r.code}`);
  assert(r.stderr.includes("unknown model 'nope'") && r.stderr.includes("knn"), r.stderr);
});

Deno.test("the demo's progress reporter throttles events and always reports start and done", async () => {
  const { Progress } = await import("../../src/progress/mod.ts");
  const p = new Progress({ silent: true, intervalMs: 60_000 });
  const seen: { done: number; total: number | undefined; etaSeconds: number; loss?: number }[] = [];
  p.addEventListener("progress", (e) => seen.push((e as CustomEvent).detail));
  p.start(100, "work");
  for (let i = 0; i < 100; i++) p.tick(1, { loss: i });
  p.done();
  // a 60 s interval lets only start and done through
  assert(seen.length === 2, `events ${seen.length}`);
  assert(seen[0].done === 0 && seen[1].done === 100 && seen[1].total === 100, "done counts");
  assert(seen[1].loss === 99 && seen[1].etaSeconds === 0, `detail ${JSON.stringify(seen[1])}`);
  assert(!p.drawing, "silent never draws");
  const q = new Progress({ silent: true, intervalMs: 0 });
  let n = 0;
  q.addEventListener("progress", () => n++);
  q.start(undefined, "open-ended");
  q.tick(5);
  q.tick(5);
  q.done();
  assert(n === 4 && q.doneCount === 10, `unthrottled events ${n}`);
});

Deno.test("runDemo: the default model (streaming LEML) learns the planted structure", async () => {
  const opts = { rows: 3000, seed: 2, progress: Progress.silent() };
  const leml = await runDemoInProcess(opts);
  const pop = await runDemoInProcess({ ...opts, model: "popularity" });
  assert(leml.model === "leml" && leml.trainRows === 2400 && leml.testRows === 600, "split");
  assert(leml.numFeatures === 5000 && leml.numLabels === 200, `${leml.numFeatures}`);
  assert(
    leml.metrics["P@1"] > pop.metrics["P@1"] + 20,
    `leml P@1 ${leml.metrics["P@1"]} vs popularity ${pop.metrics["P@1"]}`,
  );
});

Deno.test("demo --data: NDJSON with names, gzip, --on-error skip counts bad lines, --rows stops early", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_demo_" });
  try {
    const lines: string[] = [];
    for (let i = 0; i < 60; i++) {
      const c = ["red", "green", "blue"][i % 3];
      lines.push(
        JSON.stringify({ id: `e${i}`, features: { [`w_${c}`]: 1, noise: 0.5 }, labels: [c] }),
      );
      if (i === 7) lines.push('{"features": {"x": "one"}, "labels": []}');
      if (i === 30) lines.push("not json");
    }
    const gz = new Uint8Array(
      await new Response(
        new Blob([lines.join("\n") + "\n"]).stream().pipeThrough(new CompressionStream("gzip")),
      ).arrayBuffer(),
    );
    await Deno.writeFile(`${dir}/ev.ndjson.gz`, gz);
    const keys = ["--feature-keys", "name"];
    const idx = await runDemo(["--data", `${dir}/ev.ndjson.gz`]);
    assert(
      idx.code === 2 && idx.stderr.includes("Cannot parse line 1 of ev.ndjson.gz"),
      idx.stderr,
    );
    const bad = await runDemo(["--data", `${dir}/ev.ndjson.gz`, ...keys, "--model", "knn"]);
    assert(bad.code === 2, `fail mode exit ${bad.code}`);
    assert(
      bad.stderr.includes("Cannot parse line 9 of ev.ndjson.gz") && bad.stderr.includes("features"),
      bad.stderr,
    );
    const r = await runDemo([
      "--data",
      `${dir}/ev.ndjson.gz`,
      "--on-error",
      "skip",
      ...keys,
      "--model",
      "knn",
      "--batch-size",
      "4",
    ]);
    assert(r.code === 0, `exit ${r.code}: ${r.stderr}`);
    const out = lastJson(r.stdout);
    assert(out.rows === 60 && out.skipped === 2, `rows ${out.rows} skipped ${out.skipped}`);
    assert(out.numLabels === 3 && out.numFeatures === 4, `${out.numLabels} ${out.numFeatures}`);
    assert((out.metrics as Record<string, number>)["P@1"] === 100, JSON.stringify(out.metrics));
    const few = lastJson(
      (await runDemo([
        "--data",
        `${dir}/ev.ndjson.gz`,
        ...keys,
        "--on-error",
        "skip",
        "--rows",
        "10",
      ]))
        .stdout,
    );
    assert(few.rows === 10 && few.testRows === 2, `limited rows ${few.rows}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("demo --help prints the usage; a bad flag value is a clear error", async () => {
  const h = await runDemo(["--help"]);
  assert(h.code === 0 && h.stdout.includes("--data FILE|URL|-"), h.stdout);
  const b = await runDemo(["--on-error", "ignore"]);
  assert(b.code === 2 && b.stderr.includes("--on-error must be fail or skip"), b.stderr);
});
