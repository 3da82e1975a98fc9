// The label index writer keeps the probe counts it writes within the index it made
// (docs/model-format.md: `mipsProbes` in 1 … C, `mipsGroupProbes` in 1 … G).
import { withLabelIndex } from "../../src/linalg/mips_index.ts";
import { LabelIndex } from "../../src/models/label_index.ts";
import { assert } from "../helpers.ts";

Deno.test("withLabelIndex: given probes past the leaves made are written as every leaf", () => {
  const L = 600, r = 3;
  const H = Float32Array.from({ length: L * r }, (_, i) => Math.sin(i * 1.7));
  for (const probes of [40, 1000, 2 ** 31]) {
    const c = withLabelIndex(
      {
        kind: "linear-lowrank",
        numFeatures: 1,
        numLabels: L,
        params: { rank: r },
        tensors: {
          W: { dtype: "f32", shape: [1, r], data: new Float32Array(r) },
          H: { dtype: "f32", shape: [L, r], data: H },
        },
      },
      "H",
      { minLabels: 0, clusters: 12, probes, groupProbes: probes },
    );
    const C = c.tensors.mipsPtr.shape[0] - 1, p = c.params.mipsProbes as number;
    assert(C >= 2 && p >= 1 && p <= C, `probes ${probes}: mipsProbes ${p} for ${C} leaves`);
    const G = c.tensors.mipsGroupPtr ? c.tensors.mipsGroupPtr.shape[0] - 1 : 1;
    const gp = (c.params.mipsGroupProbes as number | undefined) ?? G;
    assert(gp >= 1 && gp <= G, `probes ${probes}: mipsGroupProbes ${gp} for ${G} groups`);
    const idx = LabelIndex.build(
      { kind: "linear-lowrank", rowsName: "H", rows: H, bias: undefined, numLabels: L, rank: r },
      { minLabels: 0, clusters: 12, probes },
    )!;
    assert(idx.probes <= idx.leaves, `probes ${probes}: LabelIndex.probes ${idx.probes}`);
  }
});
