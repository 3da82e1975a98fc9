/**
 * The SDK's code stays small: sdk/mod.ts bundled and minified by esbuild, msgpackr left out, is
 * at most LIMIT bytes. On failure the message lists each file's share of the bundle.
 *
 * Issue 15's target is 15 KB; the indexes (label index, knn lists, the exact knn search) brought
 * the bundle from 14.3 to 16.6 KB, and a trim (shared helpers and validation, table-driven
 * errors, the label index's leaf copy holding the biases, a comparison sort for files without
 * `biasOrder`) back to 15.7 KB, then 15.9 KB with the label index's selection of its best
 * leaves. A second trim took it to 15.5 KB by expressing things once: one vector-matrix product
 * (sparse or dense rows), one ordered dot product (dense scores, label-index ranks, knn lists and
 * similarities), one offsets check (range and order in one pass), one thrower of
 * `ModelFormatError`, and the knn search's redundant whole-sum check gone (one posting loop in
 * `linear-sparse` saved 41 bytes more but slowed its dense path by 10%: not taken). The
 * `knn-embedding` vote power (format version 4) added 49 bytes, and `exact` answered by each
 * kind's own top-k (knn: the exact neighbours, not every label scored) 10 more (15,558). What is left are speed features (the fast CRC-32 for the load time, the bias walk, the leaf
 * copy, the f16 table, the selection, the knn bounds). Until the target is met LIMIT guards the
 * trimmed size against growth; it is not the target (issue 15 stays open on it).
 */
import { assert } from "./helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const LIMIT = 15_600;

Deno.test("the SDK's code without msgpackr stays within 15,600 bytes minified", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(`${ROOT}node_modules/.bin/esbuild`, {
      args: [
        `${ROOT}sdk/mod.ts`,
        "--bundle",
        "--minify",
        "--format=esm",
        "--external:msgpackr",
        "--external:msgpackr/unpack",
        `--outfile=${dir}/sdk.js`,
        `--metafile=${dir}/meta.json`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert(out.success, `esbuild failed: ${new TextDecoder().decode(out.stderr)}`);
    const bytes = (await Deno.readFile(`${dir}/sdk.js`)).length;
    const meta = JSON.parse(await Deno.readTextFile(`${dir}/meta.json`)) as {
      outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
    };
    const files = Object.values(meta.outputs).flatMap((o) => Object.entries(o.inputs))
      .sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)
      .map(([name, i]) => `${name.replace(/^.*sdk\//, "sdk/")} ${i.bytesInOutput}`);
    assert(files.some((f) => f.startsWith("sdk/model.ts")), "the bundle lacks the SDK");
    assert(!files.some((f) => f.includes("msgpackr")), "msgpackr is in the bundle");
    assert(
      bytes <= LIMIT,
      `the SDK bundle has ${bytes} bytes (limit ${LIMIT}):\n${files.join("\n")}`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
