// `deno task demo --data X.txt` on an XC file whose header declares more features (or labels)
// than the model grows to said "demo: leml.learnMany: x declares 2000000000 features: above the
// model's maxFeatures 16777216": the model's limit, but neither the file nor its header. The
// demo now names the file and line 1 (the header); a LIBSVM row past the limit is named by its
// line (not by its row in a minibatch, nor as a width the batch "declares" because the reader
// had parsed the row already), and --features, --labels or --hash-dim past the limit by the flag.
import { runDemo } from "../../src/cli/demo.ts";
import { Progress } from "../../src/progress/mod.ts";
import { assert, assertEquals, runDenoScript, tempDirWith } from "./helpers.ts";

const DEMO = new URL("../../src/cli/demo.ts", import.meta.url).pathname;

/** The message `runDemo(options)` rejects with (a RangeError), or "no error". */
async function refusal(options: Parameters<typeof runDemo>[0]): Promise<string> {
  try {
    await runDemo({ progress: Progress.silent(), ...options });
  } catch (e) {
    assert(e instanceof RangeError, String(e));
    return e.message;
  }
  return "no error";
}

/** `n` rows of labels 0..2 and one feature (0..4, plus `base`: LIBSVM counts from 1). */
const rows = (n: number, base = 0) =>
  Array.from({ length: n }, (_, i) => `${i % 3} ${(i % 5) + base}:1`).join("\n");

Deno.test("demo: an XC header or a row past the model's limits is named by its file and line", async () => {
  const dir = await tempDirWith("tagstream_demo_limits_", {
    "features.txt": `20 2000000000 3\n${rows(20)}\n`,
    "labels.txt": `20 5 5000000\n${rows(20)}\n`,
    "row.svm": `${rows(6, 1)}\n1 2000000000:1\n${rows(6, 1)}\n`,
    "small.txt": `20 8 4\n${rows(20)}\n`,
  });
  try {
    assertEquals(
      await refusal({ data: `${dir}/features.txt` }),
      "demo: line 1 of features.txt (the header) declares 2000000000 features, above the leml " +
        "model's maxFeatures 16777216",
    );
    assertEquals(
      await refusal({ data: `${dir}/labels.txt`, model: "popularity" }),
      "demo: line 1 of labels.txt (the header) declares 5000000 labels, above the popularity " +
        "model's maxLabels 2097152",
    );
    // LIBSVM features count from 1, as the file writes them; the rows before it learn as usual
    assertEquals(
      await refusal({ data: `${dir}/row.svm`, model: "br" }),
      "demo: line 7 of row.svm: feature index 2000000000 is out of range [1, 16777217): above " +
        "the br model's maxFeatures 16777216",
    );
    // the limits are the model's, as its options set them
    assertEquals(
      await refusal({ data: `${dir}/small.txt`, model: "knn", modelOptions: { maxLabels: 3 } }),
      "demo: line 1 of small.txt (the header) declares 4 labels, above the knn model's maxLabels 3",
    );
    const r = await runDemo({
      data: `${dir}/small.txt`,
      model: "knn",
      progress: Progress.silent(),
    });
    assertEquals(r.rows, 20);
    // the command line says the same
    const cli = await runDenoScript(DEMO, ["--allow-all"], ["--data", `${dir}/features.txt`]);
    assertEquals(cli.code, 2, cli.stderr);
    assert(
      cli.stderr.trim().endsWith(
        "line 1 of features.txt (the header) declares 2000000000 features, above the leml " +
          "model's maxFeatures 16777216",
      ),
      cli.stderr,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("demo: --features, --labels or --hash-dim past the model's limits is named by the flag", async () => {
  assertEquals(
    await refusal({ rows: 50, synthetic: { numFeatures: 20_000_000 } }),
    "demo: --features 20000000 is above the leml model's maxFeatures 16777216",
  );
  assertEquals(
    await refusal({ rows: 50, model: "popularity", synthetic: { numLabels: 3_000_000 } }),
    "demo: --labels 3000000 is above the popularity model's maxLabels 2097152",
  );
  const dir = await tempDirWith("tagstream_demo_hash_limits_", {
    "e.ndjson": '{"features":{"3":1},"labels":[1]}\n{"features":{"5":1},"labels":[2]}\n',
  });
  try {
    assertEquals(
      await refusal({ data: `${dir}/e.ndjson`, hashDim: 20_000_000 }),
      "demo: --hash-dim 20000000 is above the leml model's maxFeatures 16777216",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
