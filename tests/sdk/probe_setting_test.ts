/**
 * A file's default probe counts (docs/model-format.md): `mipsProbes` is required with a label
 * index, an integer in [1, C] (C leaves), `mipsGroupProbes` one in [1, G] (G groups; G when
 * absent), and `knnProbes` is required with a neighbour index, a positive integer. A missing, 0
 * or fractional `mipsProbes` / `knnProbes` was read as "probe every leaf / list" (the file then
 * answered every query by the slow exact path, silently); the SDK now refuses such a file as
 * `corrupt`, naming the param and its range.
 */
import { encodeModelFile } from "../../src/format/model_file.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { withLabelIndex } from "../../src/linalg/mips_index.ts";
import { knnModelContent } from "../../src/models/sleec/model_file.ts";
import { withKnnIndex } from "../../src/models/sleec/knn_index.ts";
import { loadModel, ModelFormatError } from "../../sdk/mod.ts";
import { assert, mulberry32 } from "./helpers.ts";

/** The `corrupt` message of loading `content`, or "read" when it loads. */
function refusal(content: ModelFileContent): string {
  try {
    loadModel(encodeModelFile(content));
  } catch (e) {
    if (e instanceof ModelFormatError && e.reason === "corrupt") return e.message;
    throw e;
  }
  return "read";
}

/** `content` with param `name` set to `v` (left out when `v` is undefined). */
function withParam(content: ModelFileContent, name: string, v: number | undefined) {
  const params = { ...content.params };
  if (v === undefined) delete params[name];
  else params[name] = v;
  return { ...content, params };
}

/** A `linear-lowrank` file of 400 labels with a label index of 40 leaves in groups. */
function lowrank(): ModelFileContent {
  const L = 400, r = 4, rand = mulberry32(5), g = () => rand() - 0.5;
  return withLabelIndex(
    {
      kind: "linear-lowrank",
      numFeatures: r,
      numLabels: L,
      params: { rank: r },
      tensors: {
        W: { dtype: "f32", shape: [r, r], data: Float32Array.from({ length: r * r }, g) },
        H: { dtype: "f32", shape: [L, r], data: Float32Array.from({ length: L * r }, g) },
      },
    },
    "H",
    { minLabels: 0, clusters: 40, groups: 5, probes: 2, groupProbes: 2, seed: 3 },
  );
}

Deno.test("mipsProbes missing, 0, fractional or past the leaves: a corrupt file naming it", () => {
  const content = lowrank(), C = content.tensors.mipsPtr.shape[0] - 1;
  assert(refusal(content) === "read", `the file itself: ${refusal(content)}`);
  assert(refusal(withParam(content, "mipsProbes", C)) === "read", "mipsProbes = C");
  for (const v of [undefined, 0, 1.5, -1, C + 1]) {
    const msg = refusal(withParam(content, "mipsProbes", v));
    assert(
      msg.includes(`param "mipsProbes" must be an integer in [1, ${C}]`),
      `mipsProbes ${v}: ${msg}`,
    );
  }
});

Deno.test("mipsGroupProbes: G when absent, else an integer in [1, G]", () => {
  const content = lowrank(), G = content.tensors.mipsGroupPtr.shape[0] - 1;
  assert(G > 1, `groups ${G}`);
  // absent: every group (the documented default), as the file with mipsGroupProbes = G
  const x = { indices: [0, 1, 2, 3], values: [0.3, -0.2, 0.5, 0.1] };
  const a = loadModel(encodeModelFile(withParam(content, "mipsGroupProbes", undefined)));
  const b = loadModel(encodeModelFile(withParam(content, "mipsGroupProbes", G)));
  assert(
    JSON.stringify(a.predictTopK(x, 5)) === JSON.stringify(b.predictTopK(x, 5)),
    "absent is not G",
  );
  for (const v of [0, 1.5, G + 1]) {
    const msg = refusal(withParam(content, "mipsGroupProbes", v));
    assert(
      msg.includes(`param "mipsGroupProbes" must be an integer in [1, ${G}]`),
      `mipsGroupProbes ${v}: ${msg}`,
    );
  }
});

Deno.test("knnProbes missing, 0 or fractional beside a neighbour index: a corrupt file", () => {
  const rand = mulberry32(11), g = () => rand() - 0.5, n = 60;
  const content = withKnnIndex(
    knnModelContent({
      numFeatures: 3,
      numLabels: 4,
      rank: 2,
      numLearners: 1,
      k: 3,
      weighted: false,
      clusters: [{
        learner: 0,
        centroid: Float32Array.of(1, 0, 0),
        v: Float32Array.from({ length: 6 }, g),
        numPoints: n,
        points: Float32Array.from({ length: 2 * n }, g),
        labels: Array.from({ length: n }, (_, i) => Int32Array.of(i % 4)),
      }],
    }),
    { minPoints: 0, listSize: 10, probes: 2 },
  );
  assert(content.tensors.knnOrder !== undefined, "no neighbour index");
  assert(refusal(content) === "read", `the file itself: ${refusal(content)}`);
  // more probes than lists stay valid (they probe every list, as the `probes` option does)
  assert(refusal(withParam(content, "knnProbes", 1000)) === "read", "knnProbes 1000");
  for (const v of [undefined, 0, 2.5, -3]) {
    const msg = refusal(withParam(content, "knnProbes", v));
    assert(msg.includes(`param "knnProbes" must be an integer in [1, `), `knnProbes ${v}: ${msg}`);
  }
});
