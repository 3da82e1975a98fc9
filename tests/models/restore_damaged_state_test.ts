/**
 * Every model of the registry restores a damaged state with the same rules and words (the
 * shared `checkStateKind` and `requireTensor` of src/models/state_check.ts): no state (null,
 * undefined) or a state of another kind is a TypeError `<where>: state kind is …, not "<kind>"`;
 * a tensor missing or of another array class a TypeError `<where>: tensor <name> must be a
 * <Class>…, got none|<Class>`; a tensor of the wrong length a RangeError naming both lengths.
 * knn, sleec and coembed had their own words ("tensor 'rowVal' is missing or not a
 * Float32Array", "SLEEC state: tensor l0.c0.V is missing or mistyped", "CoEmbed restore: tensor V
 * must be a Float64Array of 40 …, got none" as a RangeError), and `restore(null)` of sleec and
 * coembed was the engine's "Cannot read properties of null".
 */
import { loadFactory, MODEL_NAMES, type ModelName } from "../../src/models/registry.ts";
import type { ModelState } from "../../src/models/estimator.ts";
import { assert, refusalOf } from "../helpers.ts";

const ROWS: readonly [number[], number[]][] = [
  [[0, 2], [1]],
  [[1], [0, 2]],
  [[3], [2]],
  [[0, 1], [1]],
];

/** Per model, a tensor whose length the state's sizes fix (for the wrong-length case). */
const SIZED: Record<ModelName, string> = {
  leml: "W",
  sleec: "l0.c0.V",
  coembed: "P",
  br: "w",
  ova: "counts",
  knn: "labelPtr",
  popularity: "counts",
};

/**
 * Tensors a state may go without: the replay rows (a state without them restores with an empty
 * reservoir, e.g. one made from a batch fit), all or none of them.
 */
const OPTIONAL = /^res[A-Z]/;

type Tensors = Record<string, unknown>;

async function stateOf(name: ModelName): Promise<ModelState> {
  const m = (await loadFactory(name)).create({ seed: 1, numFeatures: 4, numLabels: 3 });
  for (const [x, y] of ROWS) {
    m.learnOne({ indices: Int32Array.from(x), values: Float32Array.from(x, () => 1) }, y);
  }
  return m.toState();
}

/** A copy of `s` whose tensors are edited (the arrays are shared: the edits replace them). */
function withTensors(s: ModelState, edit: (t: Tensors) => void): ModelState {
  const t: Tensors = { ...s.tensors };
  edit(t);
  return { ...s, tensors: t } as ModelState;
}

const WHERE = "[\\w.]+(?: [\\w.]+)?";
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

Deno.test("restore of every model: no state, another kind, a tensor missing, of another class or length", async () => {
  const failed: string[] = [];
  for (const name of MODEL_NAMES) {
    const factory = await loadFactory(name);
    const s = await stateOf(name);
    const cases: [string, unknown, RegExp][] = [
      ["null", null, new RegExp(`^TypeError: ${WHERE}: state kind is undefined, not "${name}"$`)],
      [
        "undefined",
        undefined,
        new RegExp(`^TypeError: ${WHERE}: state kind is undefined, not "${name}"$`),
      ],
      [
        "another kind",
        { ...s, kind: "other" },
        new RegExp(`^TypeError: ${WHERE}: state kind is "other", not "${name}"$`),
      ],
    ];
    for (const [field, a] of Object.entries(s.tensors)) {
      if (OPTIONAL.test(field)) continue;
      const want = `^TypeError: ${WHERE}: tensor ${esc(field)} must be a ${a.constructor.name}`;
      cases.push(
        [
          `${field} missing`,
          withTensors(s, (t) => delete t[field]),
          new RegExp(`${want}( of length \\d+)?( \\([^)]*\\))?, got none$`),
        ],
        [
          `${field} as an Array`,
          withTensors(s, (t) => t[field] = Array.from(a)),
          new RegExp(`${want}( of length \\d+)?( \\([^)]*\\))?, got Array$`),
        ],
      );
    }
    const sized = s.tensors[SIZED[name]];
    assert(sized !== undefined, `${name}: no tensor ${SIZED[name]}`);
    const Class = sized.constructor as new (n: number) => typeof sized;
    cases.push([
      `${SIZED[name]} one entry longer`,
      withTensors(s, (t) => t[SIZED[name]] = new Class(sized.length + 1)),
      new RegExp(
        `^RangeError: ${WHERE}: tensor ${
          esc(SIZED[name])
        } must be a ${Class.name} of length ${sized.length}( \\([^)]*\\))?, got length ${
          sized.length + 1
        }$`,
      ),
    ]);
    for (const [what, state, re] of cases) {
      const got = refusalOf(() => factory.restore(state as ModelState), "accepted");
      if (!re.test(got)) failed.push(`${name}, ${what}: ${got}`);
    }
    // the undamaged state restores
    assert(factory.restore(s).kind === name, name);
  }
  assert(failed.length === 0, `\n  ${failed.join("\n  ")}`);
});

Deno.test("restore of every replica state (toReplicaState, adopted): no state, another kind, each tensor missing, of another class or one entry longer", async () => {
  const failed: string[] = [];
  let replicas = 0;
  for (const name of MODEL_NAMES) {
    const factory = await loadFactory(name);
    const m = factory.create({ seed: 1, numFeatures: 4, numLabels: 3 });
    for (const [x, y] of ROWS) {
      m.learnOne({ indices: Int32Array.from(x), values: Float32Array.from(x, () => 1) }, y);
    }
    if (m.toReplicaState === undefined) continue;
    replicas++;
    // a fresh state per case: an adopted state's arrays become the replica's
    const s = () => m.toReplicaState!();
    const cases: [string, () => unknown, RegExp][] = [
      [
        "null",
        () => null,
        new RegExp(`^TypeError: ${WHERE}: state kind is undefined, not "${name}"$`),
      ],
      [
        "another kind",
        () => ({ ...s(), kind: "other" }),
        new RegExp(`^TypeError: ${WHERE}: state kind is "other", not "${name}"$`),
      ],
    ];
    for (const [field, a] of Object.entries(s().tensors)) {
      const Class = a.constructor as new (n: number) => typeof a;
      const want = `${WHERE}: tensor ${esc(field)} must be a ${Class.name}`;
      cases.push(
        [
          `${field} missing`,
          () => withTensors(s(), (t) => delete t[field]),
          new RegExp(`^TypeError: ${want}( of length \\d+)?( \\([^)]*\\))?, got none$`),
        ],
        [
          `${field} as an Array`,
          () => withTensors(s(), (t) => t[field] = Array.from(t[field] as ArrayLike<number>)),
          new RegExp(`^TypeError: ${want}( of length \\d+)?( \\([^)]*\\))?, got Array$`),
        ],
        [
          `${field} one entry longer`,
          () => withTensors(s(), (t) => t[field] = new Class(a.length + 1)),
          new RegExp(
            `^RangeError: ${want} of length ${a.length}( \\([^)]*\\))?, got length ${
              a.length + 1
            }$`,
          ),
        ],
      );
    }
    for (const [what, state, re] of cases) {
      const got = refusalOf(
        () => factory.restore(state() as ModelState, { adopt: true }),
        "accepted",
      );
      if (!re.test(got)) failed.push(`${name} replica, ${what}: ${got}`);
    }
    // the undamaged replica state restores, and predicts like the model
    const r = factory.restore(s(), { adopt: true });
    const x = { indices: Int32Array.of(0, 1), values: Float32Array.of(1, 1) };
    assert(r.predictScores(x).join() === m.predictScores(x).join(), name);
  }
  assert(replicas >= 5, `only ${replicas} models have a replica state`);
  assert(failed.length === 0, `\n  ${failed.join("\n  ")}`);
});

Deno.test("restore of a leml replica state: its optional calibration queries as a plain Array are a TypeError", async () => {
  const factory = await loadFactory("leml");
  const m = factory.create({ seed: 1, numFeatures: 4, numLabels: 3, rank: 2 });
  const s = m.toReplicaState!();
  // (a model of 4096 labels or more sends them: one query of `rank` entries here)
  const got = refusalOf(
    () => factory.restore(withTensors(s, (t) => t.calibration = [0.5, 0.5]), { adopt: true }),
    "accepted",
  );
  assert(
    got === "TypeError: leml.restore: tensor calibration must be a Float32Array, got Array",
    got,
  );
  factory.restore(withTensors(s, (t) => t.calibration = Float32Array.of(0.5, 0.5)));
});
