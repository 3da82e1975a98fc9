// A synthetic feature space smaller than the default prototype size (16 features a label) was
// refused with "featuresPerLabel must be an integer in [1, numFeatures], got 16", an option the
// caller never gave (and `deno task demo --features 8` cannot give): the default is now at most
// numFeatures. Spaces of 16 features or more keep their rows exactly.
import { syntheticExamples } from "../../src/data/synthetic.ts";
import { runDemo } from "../../src/cli/demo.ts";
import { Progress } from "../../src/progress/mod.ts";
import { assert, assertEquals, assertThrowsMsg } from "./helpers.ts";

Deno.test("synthetic: a feature space below 16 works, every index inside it", () => {
  for (const numFeatures of [1, 8, 15]) {
    const rows = [
      ...syntheticExamples({ rows: 50, numFeatures, numLabels: 5, avgNnz: 4, seed: 3 }),
    ];
    assertEquals(rows.length, 50);
    for (const e of rows) {
      assert(e.x.indices.length > 0, `numFeatures ${numFeatures}: an empty row`);
      assert(
        e.x.indices.every((j) => j < numFeatures),
        `numFeatures ${numFeatures}: ${e.x.indices}`,
      );
    }
  }
});

Deno.test("synthetic: the default prototype size is min(16, numFeatures)", async () => {
  const same = (a: object, b: object) => {
    const x = [...syntheticExamples({ rows: 20, ...a })],
      y = [...syntheticExamples({ rows: 20, ...b })];
    assertEquals(
      x.map((e) => [[...e.x.indices], [...e.labels]]),
      y.map((e) => [[...e.x.indices], [...e.labels]]),
    );
  };
  same({ numFeatures: 8, seed: 1 }, { numFeatures: 8, featuresPerLabel: 8, seed: 1 });
  same({ numFeatures: 100, seed: 1 }, { numFeatures: 100, featuresPerLabel: 16, seed: 1 });
  // an explicit value above the space is still refused, naming it
  await assertThrowsMsg(
    () => syntheticExamples({ rows: 1, numFeatures: 8, featuresPerLabel: 16 }).next(),
    RangeError,
    "featuresPerLabel must be an integer in [1, numFeatures], got 16",
  );
});

Deno.test("demo --features 8: synthetic rows in 8 columns", async () => {
  const r = await runDemo({
    rows: 100,
    model: "popularity",
    synthetic: { numFeatures: 8 },
    progress: Progress.silent(),
  });
  assertEquals([r.rows, r.testRows], [100, 20]);
  assert(r.numFeatures <= 8, `numFeatures ${r.numFeatures}`);
});
