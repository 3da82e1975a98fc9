// checkFeatureSpace (sdk/model_file.ts: the writer's encodeModelFile and the strict reader) names
// the field and shows the value it got. It interpolated the raw value: an object printed
// "[object Object]", the string "8" printed as the number 8, a bigint lost its n, a symbol made
// the message itself throw, and an unknown type was not shown at all. Now a number shows as is,
// anything else as JSON (a bigint as 5n), cut to 40 characters.
import { checkFeatureSpace, type FeatureSpace } from "../../sdk/model_file.ts";
import { encodeModelFile } from "../../src/format/model_file.ts";
import type { ModelFileContent } from "../../src/format/types.ts";
import { assert } from "./helpers.ts";

/** The message checkFeatureSpace throws for `fs` (a model of 3 features). */
function message(fs: unknown): string {
  try {
    checkFeatureSpace(fs as FeatureSpace, 3, (m) => new RangeError(m));
  } catch (e) {
    assert(e instanceof RangeError, `not a RangeError: ${e}`);
    return e.message;
  }
  throw new Error(`accepted ${String(fs)}`);
}

const hashing = (o: Record<string, unknown>) => ({ type: "hashing", dim: 3, seed: 0, ...o });

Deno.test("checkFeatureSpace shows the value it got: a number as is, others as JSON, cut", () => {
  const dim = "featureSpace.dim must be an integer in [numFeatures = 3, 2^31), got ";
  const cases: [unknown, string][] = [
    [hashing({ dim: 2 }), dim + "2"],
    [hashing({ dim: 3.5 }), dim + "3.5"],
    [hashing({ dim: NaN }), dim + "NaN"],
    [hashing({ dim: {} }), dim + "{}"],
    [hashing({ dim: { n: 8 } }), dim + '{"n":8}'],
    [hashing({ dim: "8" }), dim + '"8"'],
    [hashing({ dim: null }), dim + "null"],
    [hashing({ dim: undefined }), dim + "undefined"],
    [hashing({ seed: [1, 2] }), "featureSpace.seed must be an integer in [0, 2^32), got [1,2]"],
    [hashing({ seed: 5n }), "featureSpace.seed must be an integer in [0, 2^32), got 5n"],
    [hashing({ signed: "yes" }), 'featureSpace.signed must be a boolean, got "yes"'],
    [hashing({ signed: 1 }), "featureSpace.signed must be a boolean, got 1"],
    [hashing({ signed: Symbol("s") }), "featureSpace.signed must be a boolean, got Symbol(s)"],
    [
      hashing({ signed: "x".repeat(100) }),
      `featureSpace.signed must be a boolean, got "${"x".repeat(36)}...`,
    ],
    [
      { type: "hash", dim: 3, seed: 0 },
      'featureSpace.type must be "index", "vocabulary" or "hashing", got "hash"',
    ],
    [{}, 'featureSpace.type must be "index", "vocabulary" or "hashing", got undefined'],
  ];
  for (const [fs, want] of cases) {
    const got = message(fs);
    assert(got === want, `expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  // a cycle has no JSON: shown as its kind, the message still built
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const got = message(hashing({ seed: cyclic }));
  assert(got.endsWith("got [object Object]"), got);
});

Deno.test("encodeModelFile names the feature space's bad value as JSON, not [object Object]", () => {
  const content: ModelFileContent = {
    kind: "linear-lowrank",
    numFeatures: 3,
    numLabels: 2,
    params: { rank: 1 },
    tensors: {
      W: { dtype: "f32", shape: [3, 1], data: new Float32Array(3) },
      H: { dtype: "f32", shape: [2, 1], data: new Float32Array(2) },
    },
    featureSpace: { type: "hashing", dim: { size: 8 } as unknown as number, seed: 0 },
  };
  let msg = "";
  try {
    encodeModelFile(content);
  } catch (e) {
    assert(e instanceof RangeError, `not a RangeError: ${e}`);
    msg = e.message;
  }
  assert(
    msg ===
      'encodeModelFile: featureSpace.dim must be an integer in [numFeatures = 3, 2^31), got {"size":8}',
    msg,
  );
});
