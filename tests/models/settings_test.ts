/**
 * Typed model settings (src/models/settings.ts): the declaration helper, and every model's
 * factory validating its options where they enter — an unknown key or a bad value is an error
 * naming the model, the key and what is allowed; strings (the command line's) are parsed by the
 * declared kind; valid options give the same model as before.
 */
import { defineSettings, parseSetting, SIZE_SPECS } from "../../src/models/settings.ts";
import { factories, loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { DEFAULT_CONFIG as COEMBED_DEFAULTS } from "../../src/models/coembed/config.ts";
import { COEMBED_SETTINGS } from "../../src/models/coembed/settings.ts";
import { DEFAULT_CONFIG as SLEEC_DEFAULTS, resolveConfig } from "../../src/models/sleec/config.ts";
import { LEML_SETTINGS, LemlStream } from "../../src/models/leml/mod.ts";
import { batchFactory } from "../../src/models/leml/mod.ts";
import { BrEstimator } from "../../src/models/br/mod.ts";
import { assert, assertEquals } from "../helpers.ts";

/** The error `f` throws: its class name and message ("" when it does not throw). */
function thrown(f: () => unknown): { type: string; message: string } {
  try {
    f();
  } catch (e) {
    return { type: (e as Error).constructor.name, message: (e as Error).message };
  }
  return { type: "", message: "" };
}

interface Toy {
  rank: number;
  lr: number;
  optimizer: "adam" | "sgd";
  bias: boolean;
  decay?: number;
}

const TOY = defineSettings<Toy>("toy", {
  optimizer: { kind: "enum", values: ["adam", "sgd"], default: "adam", doc: "Optimiser." },
  rank: { kind: "int", default: 8, min: 1, max: 64, doc: "Rank." },
  lr: {
    kind: "number",
    default: (s) => s.optimizer === "adam" ? 0.01 : 0.1,
    min: 0,
    minExclusive: true,
    doc: "Learning rate.",
  },
  bias: { kind: "boolean", default: true, doc: "Bias." },
  decay: { kind: "number", min: 0, doc: "Decay (no default: absent unless given)." },
});

Deno.test("settings: defaults, derived defaults, and keys without a default left out", () => {
  assertEquals(TOY.resolve(), { optimizer: "adam", rank: 8, lr: 0.01, bias: true });
  assertEquals(TOY.resolve({ optimizer: "sgd" }).lr, 0.1);
  assertEquals(TOY.resolve({ decay: 0.5 }).decay, 0.5);
  assertEquals(TOY.names, ["optimizer", "rank", "lr", "bias", "decay"]);
  // undefined counts as not given, even for an unknown key
  assertEquals(TOY.resolve({ rank: undefined, other: undefined }).rank, 8);
});

Deno.test("settings: strings are parsed by the declared kind", () => {
  assertEquals(TOY.resolve({ rank: "16", lr: "1e-3", bias: "false", optimizer: "sgd" }), {
    optimizer: "sgd",
    rank: 16,
    lr: 0.001,
    bias: false,
  });
  assertEquals(TOY.parse({ rank: " 4 ", lr: ".5" }), { rank: 4, lr: 0.5 });
  for (const bad of ["", "abc", "0x10", "Infinity", "1,5", "16px"]) {
    const e = thrown(() => TOY.resolve({ rank: bad }));
    assertEquals(e.type, "RangeError", `rank "${bad}"`);
    assert(
      e.message.includes(`toy: option rank must be an integer in [1, 64], got "${bad}"`),
      e.message,
    );
  }
  assertEquals(thrown(() => TOY.resolve({ bias: "yes" })).type, "TypeError");
});

Deno.test("settings: an unknown key is a TypeError naming it and the known keys", () => {
  for (const f of [() => TOY.resolve({ rnak: 16 }), () => TOY.parse({ rnak: "16" })]) {
    const e = thrown(f);
    assertEquals(e.type, "TypeError");
    assertEquals(e.message, 'toy: unknown option "rnak" (known: optimizer, rank, lr, bias, decay)');
  }
});

Deno.test("settings: a bad value is an error naming the key and what is allowed", () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ rank: 0 }, "RangeError", "toy: option rank must be an integer in [1, 64], got 0"],
    [{ rank: 65 }, "RangeError", "toy: option rank must be an integer in [1, 64], got 65"],
    [{ rank: 2.5 }, "RangeError", "toy: option rank must be an integer in [1, 64], got 2.5"],
    [{ rank: [3] }, "TypeError", "toy: option rank must be an integer in [1, 64], got [3]"],
    [{ lr: 0 }, "RangeError", "toy: option lr must be a finite number > 0, got 0"],
    [{ lr: Number.NaN }, "RangeError", "toy: option lr must be a finite number > 0, got NaN"],
    [{ decay: -1 }, "RangeError", "toy: option decay must be a finite number >= 0, got -1"],
    [
      { optimizer: "lbfgs" },
      "RangeError",
      'toy: option optimizer must be one of adam, sgd, got "lbfgs"',
    ],
    [{ bias: 1 }, "TypeError", "toy: option bias must be true or false, got 1"],
  ];
  for (const [options, type, message] of cases) {
    const e = thrown(() => TOY.resolve(options));
    assertEquals([e.type, e.message], [type, message], JSON.stringify(options));
    // parse checks what is given the same way
    assertEquals(thrown(() => TOY.parse(options)).message, message);
  }
});

Deno.test("settings: a declaration whose own default is out of range is refused", () => {
  const e = thrown(() =>
    defineSettings<{ k: number }>("bad", { k: { kind: "int", default: 0, min: 1, doc: "" } })
  );
  assert(e.message.includes("option k must be an integer >= 1, got 0"), e.message);
  assertEquals(parseSetting("m", "s", SIZE_SPECS.numLabels, "7"), 7);
});

Deno.test("settings: help lists every key with its kind, range and default", () => {
  const help = TOY.help().split("\n");
  assertEquals(help.length, 5);
  assert(
    help[1].startsWith("rank") && help[1].includes("an integer in [1, 64]; default 8"),
    help[1],
  );
  assert(help[2].includes("default: derived"), help[2]);
});

Deno.test("every model's factory declares its settings: unknown keys and bad values fail naming the model", async () => {
  for (const name of MODEL_NAMES) {
    const f = await loadFactory(name);
    assert(f.settings !== undefined, `${name} declares its settings`);
    const names = f.settings!.names;
    for (const common of ["seed", "numFeatures", "numLabels"]) {
      assert(names.includes(common), `${name} takes ${common}`);
    }
    const unknown = thrown(() => f.create({ seed: 1, rnak: 16 }));
    assertEquals(unknown.type, "TypeError", name);
    assert(
      unknown.message.startsWith(`${name}: unknown option "rnak" (known: `) &&
        unknown.message.includes("numLabels"),
      unknown.message,
    );
    const size = thrown(() => f.create({ numLabels: -1 }));
    assertEquals(size.type, "RangeError", name);
    assert(
      size.message.includes(`${name}: option numLabels must be an integer in [0, `),
      size.message,
    );
    // the defaults work, and a string seed is parsed
    const strings: Record<string, unknown> = { seed: "2", numLabels: "3" };
    assertEquals(f.create(strings).numLabels, 3, name);
    // checkpoint restore takes what toState wrote
    assertEquals(f.restore(f.create({ numFeatures: 2, numLabels: 2 }).toState()).numLabels, 2);
  }
  assertEquals(factories.leml?.settings, LEML_SETTINGS);
  assertEquals(batchFactory.create({ rank: "2", numLabels: 2 }).numLabels, 2);
  assert(thrown(() => batchFactory.create({ iterations: 0 })).message.includes("iterations"));
});

Deno.test("leml: string options give the same model as typed ones, bit for bit", () => {
  const f = factories.leml!;
  const typed = f.create({ seed: 3, rank: 4, lr: 0.05, bias: false, optimizer: "sgd" });
  const raw: Record<string, unknown> = {
    seed: "3",
    rank: "4",
    lr: "0.05",
    bias: "false",
    optimizer: "sgd",
  };
  const strings = f.create(raw);
  const batch = {
    x: {
      numRows: 2,
      numCols: 3,
      indptr: Int32Array.of(0, 2, 3),
      indices: Int32Array.of(0, 2, 1),
      values: Float32Array.of(1, 0.5, 2),
    },
    y: { numRows: 2, numCols: 2, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(1, 0) },
  };
  for (let i = 0; i < 5; i++) {
    typed.learnMany(batch);
    strings.learnMany(batch);
  }
  assertEquals(strings.toState(), typed.toState());
  assertEquals(strings.toModelFile(), typed.toModelFile());
});

Deno.test("leml: the declared defaults are the estimator's, and the rules between options hold", () => {
  const m = new LemlStream({});
  assertEquals(m.config, {
    seed: 0,
    rank: 32,
    lambda: 1e-4,
    lr: 0.01,
    lrH: 0.01,
    lrDecay: 0,
    optimizer: "adam",
    loss: "squared",
    negatives: 16,
    bias: true,
    threshold: 0.5,
    initScale: 1 / Math.sqrt(32),
    l2Normalize: false,
    replay: 0,
    replayRatio: 1,
    replaySteps: 1,
  });
  const local = new LemlStream({ update: "local", replay: 50 }).config;
  assertEquals([local.update, local.refreshEvery, local.localNegatives], ["local", 50, 8]);
  assert(thrown(() => new LemlStream({ catchUp: 2 })).message.includes('update: "local" only'));
  assert(
    thrown(() => new LemlStream({ update: "local", loss: "logistic" })).message.includes(
      'needs loss "squared"',
    ),
  );
  const e = thrown(() => new LemlStream({ rank: 0 }));
  assertEquals([e.type, e.message], [
    "RangeError",
    "leml: option rank must be an integer in [1, 4096], got 0",
  ]);
});

Deno.test("br and sleec: the declared defaults are the estimators'", () => {
  assertEquals(new BrEstimator({ optimizer: "sgd" }).config, {
    loss: "squared-hinge",
    optimizer: "sgd",
    learningRate: 0.5,
    lambda: 1e-4,
    bias: true,
    beta1: 0.9,
    beta2: 0.999,
    epsilon: 1e-8,
    l2Normalize: false,
    seed: 0,
    maxFeatures: 2 ** 24,
    maxLabels: 2 ** 21,
  });
  assertEquals(resolveConfig({}), { ...SLEEC_DEFAULTS });
  assertEquals(resolveConfig({ numLabels: 3, rank: "20" }).rank, 20);
});

Deno.test("coembed: the declared settings follow its config (same keys, same defaults)", () => {
  const { numFeatures, numLabels, maxFeatures, maxLabels, ...declared } = COEMBED_SETTINGS
    .resolve({});
  assertEquals([numFeatures, numLabels, maxFeatures, maxLabels], [0, 0, 2 ** 24, 2 ** 21]);
  assertEquals(declared, { ...COEMBED_DEFAULTS });
  const e = thrown(() => factories.coembed!.create({ variant: "X" }));
  assertEquals([e.type, e.message], [
    "RangeError",
    'coembed: option variant must be one of L, NL, got "X"',
  ]);
});

Deno.test("popularity and knn: the constructors validate against the declarations too", async () => {
  const { PopularityEstimator } = await import("../../src/models/popularity/estimator.ts");
  const { KnnEstimator } = await import("../../src/models/knn/estimator.ts");
  const cases: [string, (o: Record<string, unknown>) => unknown][] = [
    ["popularity", (o) => new PopularityEstimator(o)],
    ["knn", (o) => new KnnEstimator(o)],
  ];
  for (const [model, make] of cases) {
    const msg = (o: Record<string, unknown>) => {
      try {
        make(o);
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    };
    assert(
      msg({ thresold: 0.4 }).includes(`${model}: unknown option "thresold"`),
      msg({ thresold: 0.4 }),
    );
    assert(msg({ numLabels: 2.5 }).includes("numLabels"), msg({ numLabels: 2.5 }));
    assert(msg({ threshold: Number.NaN }).includes("threshold"), "NaN threshold");
    assertEquals(msg({ threshold: 0.25, numLabels: 3 }), "");
  }
});

Deno.test("coembed: the learners' create validates against the declarations too", async () => {
  const { CoEmbedLearner, CoEmbedEstimator } = await import("../../src/models/coembed/mod.ts");
  for (const make of [CoEmbedLearner.create, CoEmbedEstimator.create]) {
    const msg = (o: Record<string, unknown>) => {
      try {
        make(o, 2, 2);
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    };
    assert(msg({ rnak: 3 }).includes('coembed: unknown option "rnak"'), msg({ rnak: 3 }));
    assert(msg({ alpha: 2 }).includes("alpha"), msg({ alpha: 2 }));
    assertEquals(msg({ variant: "L", seed: 3 }), "");
  }
});

Deno.test("sleec: an ensemble of at most 1024 learners (a million exhausted the memory at create)", async () => {
  const sleec = await loadFactory("sleec");
  const e = thrown(() => sleec.create({ numLearners: 1e6 }));
  assertEquals([e.type, e.message], [
    "RangeError",
    "sleec: option numLearners must be an integer in [1, 1024], got 1000000",
  ]);
  assertEquals(
    thrown(() => resolveConfig({ unclusteredLearners: 2000 })).message,
    "sleec: option unclusteredLearners must be an integer in [0, 1024], got 2000",
  );
});
