// learnOne hands its example to learnMany as a one-row batch, and its errors named learnMany and
// the batch's row ("leml.learnMany: row 0 of y: label index 7 is out of range ..."), a batch the
// caller never built. They now name learnOne, without the row (src/models/learn_one.ts), in every
// model; learnMany's own messages are unchanged.
// CoEmbed's prefix was "CoEmbed learnMany" where the others write "leml.learnMany".
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { batchFactory } from "../../src/models/leml/mod.ts";
import type { EstimatorFactory } from "../../src/models/estimator.ts";
import type { SparseVector } from "../../src/data/types.ts";
import { assert, assertBadInput, assertEquals, refusalOf } from "../helpers.ts";

const row = (indices: number[], values: number[]): SparseVector => ({
  indices: Int32Array.from(indices),
  values: Float32Array.from(values),
});

/** The models (and the name their messages use) whose learnOne is checked here. */
async function models(): Promise<[string, EstimatorFactory, Record<string, unknown>][]> {
  const out: [string, EstimatorFactory, Record<string, unknown>][] = [];
  for (const name of MODEL_NAMES) {
    out.push([name, await loadFactory(name), {}]);
  }
  out.push(["leml batch", batchFactory, { rank: 2, iterations: 1 }]);
  return out;
}

Deno.test("learnOne: a row learnMany refuses is named as learnOne's x or y, without a batch row", async () => {
  for (const [name, factory, options] of await models()) {
    const make = (o: Record<string, unknown> = {}) =>
      factory.create({ seed: 1, numFeatures: 4, numLabels: 3, ...options, ...o });
    const p = name.replace(".", "\\.");
    const cases: [string, () => unknown, RegExp][] = [
      [
        "unsorted",
        () => make().learnOne(row([2, 1], [1, 1]), [0]),
        new RegExp(
          `^RangeError: ${p}\\.learnOne: x: feature indices are not strictly increasing \\(1 after 2\\)$`,
        ),
      ],
      [
        "repeated",
        () => make().learnOne(row([1, 1], [1, 1]), [0]),
        new RegExp(`^RangeError: ${p}\\.learnOne: x: feature indices are not strictly increasing`),
      ],
      [
        "NaN",
        () => make().learnOne(row([1], [NaN]), [0]),
        new RegExp(`^RangeError: ${p}\\.learnOne: x: non-finite value at feature 1 \\(NaN\\)$`),
      ],
      [
        "negative",
        () => make().learnOne(row([-1], [1]), [0]),
        new RegExp(`^RangeError: ${p}\\.learnOne: x: feature index -1 is negative$`),
      ],
      [
        "label past maxLabels",
        () => make({ maxLabels: 5 }).learnOne(row([1], [1]), [7]),
        new RegExp(
          `^RangeError: ${p}\\.learnOne: y: label index 7 is out of range \\[0, 5\\): above the model's maxLabels 5$`,
        ),
      ],
      [
        "feature past maxFeatures",
        () => make({ maxFeatures: 5 }).learnOne(row([9], [1]), [0]),
        new RegExp(
          `^RangeError: ${p}\\.learnOne: x: feature index 9 is out of range \\[0, 5\\): above the model's maxFeatures 5$`,
        ),
      ],
      [
        "fewer values",
        () => make().learnOne({ indices: Int32Array.of(1, 2), values: Float32Array.of(1) }, [0]),
        new RegExp(`^RangeError: ${p}\\.learnOne: x has 2 indices but 1 values$`),
      ],
      [
        "null x",
        () => make().learnOne(null as never, [0]),
        new RegExp(
          `^TypeError: ${p}\\.learnOne: x must be a sparse row \\{ indices, values \\}, got null$`,
        ),
      ],
      [
        "plain arrays",
        () => make().learnOne({ indices: [1], values: [1] } as never, [0]),
        new RegExp(`^TypeError: ${p}\\.learnOne: x\\.indices must be an Int32Array, got Array$`),
      ],
      [
        "float64 values",
        () =>
          make().learnOne({ indices: Int32Array.of(1), values: Float64Array.of(1) } as never, [0]),
        new RegExp(
          `^TypeError: ${p}\\.learnOne: x\\.values must be a Float32Array, got Float64Array$`,
        ),
      ],
    ];
    for (const [what, f, re] of cases) {
      const got = refusalOf(f);
      assert(re.test(got), `${name}, ${what}: ${got}`);
      assert(!/learnMany|row 0/.test(got), `${name}, ${what}: ${got}`);
    }
  }
});

Deno.test("learnOne: a raw value past the limit says it cannot learn the row, not row 0 of a batch", async () => {
  const leml = await loadFactory("leml");
  const got = refusalOf(() => leml.create({ seed: 1 }).learnOne(row([0, 4], [1, -2e16]), [0]));
  assert(
    got.startsWith(
      "RangeError: leml.learnOne: cannot learn the row: feature 4 has value -2e+16, above the limit 1e+15",
    ),
    got,
  );
  assert(got.endsWith("; nothing was learned"), got);
});

Deno.test("learnOne: the error is learnMany's own (same class), and learnMany's messages still name its rows", async () => {
  const br = await loadFactory("br");
  const m = br.create({ seed: 1, maxLabels: 5 });
  let caught: unknown;
  try {
    m.learnOne(row([1], [1]), [7]);
  } catch (e) {
    caught = e;
  }
  assert(caught instanceof RangeError, String(caught));
  // the stack's first line says what the message says
  assert(
    (caught as Error).stack!.startsWith(`RangeError: ${(caught as Error).message}`),
    String((caught as Error).stack),
  );
  const batch = {
    x: {
      numRows: 2,
      numCols: 2,
      indptr: Int32Array.of(0, 1, 2),
      indices: Int32Array.of(0, 1),
      values: Float32Array.of(1, 1),
    },
    y: { numRows: 2, numCols: 8, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 7) },
  };
  assertEquals(
    refusalOf(() => m.learnMany(batch)),
    "RangeError: br.learnMany: row 1 of y: label index 7 is out of range [0, 5): above the model's maxLabels 5",
  );
});

Deno.test("coembed: learnMany's errors begin with coembed.learnMany, like the other models'", async () => {
  const coembed = await loadFactory("coembed");
  const m = coembed.create({ seed: 1, maxFeatures: 5 });
  assertBadInput([[
    () =>
      m.learnMany({
        x: {
          numRows: 1,
          numCols: 9,
          indptr: Int32Array.of(0, 1),
          indices: Int32Array.of(0),
          values: Float32Array.of(1),
        },
        y: { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) },
      }),
    /^coembed\.learnMany: x declares 9 features: above the model's maxFeatures 5$/,
  ]]);
});
