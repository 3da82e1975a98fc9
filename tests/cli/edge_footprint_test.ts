/**
 * `edgeFootprint` (src/cli/edge_footprint.ts) and `tagstream inspect --edge`: the memory the
 * SDK holds for a loaded model, measured in a fresh process, counts what the SDK builds at load.
 * A `knn-embedding` file of P points of rank r makes the SDK build its search's suffix norms,
 * P·(⌊r/8⌋ + 1) float32s, and read the points in place; an i8 file also makes it build a float32
 * copy of the points, P·r float32s.
 *
 * @module
 */
import { assert, assertEquals, runMain, withTempDir } from "./helpers.ts";
import {
  edgeFootprint,
  KV_VALUE_BYTES,
  WORKER_MEMORY_BYTES,
} from "../../src/cli/edge_footprint.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import { knnModelContent } from "../../src/models/sleec/model_file.ts";
import { mulberry32 } from "../mulberry32.ts";

const P = 20_000, r = 32, D = 8, L = 50;

/** One learner, one cluster of P random unit points, each with one label. */
function knnFile(quantize?: "i8"): Uint8Array {
  const rand = mulberry32(7), points = new Float32Array(P * r);
  for (let p = 0; p < P; p++) {
    let s = 0;
    for (let a = 0; a < r; a++) s += (points[p * r + a] = rand() - 0.5) ** 2;
    for (let a = 0; a < r; a++) points[p * r + a] /= Math.sqrt(s);
  }
  const centroid = new Float32Array(D).fill(1 / Math.sqrt(D));
  const v = Float32Array.from({ length: D * r }, () => rand() - 0.5);
  const labels = Array.from({ length: P }, (_, p) => Int32Array.of(p % L));
  return encodeModelFile(knnModelContent({
    numFeatures: D,
    numLabels: L,
    rank: r,
    numLearners: 1,
    k: 10,
    weighted: true,
    clusters: [{ learner: 0, centroid, v, numPoints: P, points, labels }],
  }, quantize ? { quantize } : {}));
}

// the search's suffix norms, and the points as float32s (a copy for i8 files)
const NORMS = P * ((r >> 3) + 1) * 4, POINTS = P * r * 4;

Deno.test("edgeFootprint counts the SDK's suffix norms, and the float32 points of an i8 file only", async () => {
  await withTempDir(async (dir) => {
    for (
      const [name, quantize, built] of [
        ["f32", undefined, NORMS],
        ["i8", "i8" as const, NORMS + POINTS],
      ] as const
    ) {
      const bytes = knnFile(quantize), path = `${dir}/${name}.tsm`;
      await Deno.writeFile(path, bytes);
      const f = await edgeFootprint(path);
      assertEquals(f.fileBytes, bytes.length);
      const grew = f.heldBytes - f.fileBytes;
      // what else a load allocates (decoded objects, small arrays, code) is far below half the
      // points: so no copy of them is counted, nor is any missed
      assert(grew >= built && grew < built + POINTS / 2, `${name}: grew ${grew}, built ${built}`);
      assert(f.loadMs > 0 && f.firstQueryMs > 0, JSON.stringify(f));
      assertEquals(f.fitsWorkerMemory, f.heldBytes <= WORKER_MEMORY_BYTES);
      assertEquals(f.fitsKvValue, true);
      assert(bytes.length < KV_VALUE_BYTES);
    }
  });
});

Deno.test("edgeFootprint names the file it cannot load", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/bad.tsm`;
    await Deno.writeFile(path, new TextEncoder().encode("not a model"));
    let message = "";
    try {
      await edgeFootprint(path);
    } catch (e) {
      message = (e as Error).message;
    }
    assert(message.startsWith(`Cannot measure ${path} at the edge: `), message);
    assert(message.includes("Cannot read model file"), message);
  });
});

Deno.test("tagstream inspect --edge adds the measured footprint; not with --state-dir", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/m.tsm`;
    await Deno.writeFile(path, knnFile());
    const r = await runMain(["inspect", path, "--edge", "--json"]);
    assertEquals(r.code, 0, r.err);
    const edge = JSON.parse(r.out).edge;
    assert(edge.heldBytes - edge.fileBytes >= NORMS, r.out);
    assertEquals(edge.fitsWorkerMemory, true);
    const s = await runMain(["inspect", "--state-dir", dir, "--edge"]);
    assertEquals(s.code, 2);
    assert(s.err.includes("--edge measures a model file"), s.err);
  });
});
