// A setting given where the model would not use it (Adam's β1 with SGD, a replay ratio with no
// replay, the RBF γ of the linear CoEmbed) is refused by create, naming it and when it applies;
// its default spelled out, and a saved state recording every setting, are still fine.
import { loadFactory } from "../../src/models/registry.ts";
import { assert, assertBadInput, assertEquals } from "../helpers.ts";
import { expectRun, tempDirWith } from "../cli/helpers.ts";

const REFUSED: [string, Record<string, unknown>, RegExp][] = [
  [
    "br",
    { optimizer: "sgd", beta1: 0.5 },
    /^br: option beta1 = 0\.5 would do nothing: it applies only when optimizer is adam$/,
  ],
  [
    "br",
    { optimizer: "sgd", epsilon: "1e-6" },
    /^br: option epsilon = 0\.000001 would do .*optimizer is adam$/,
  ],
  [
    "ova",
    { replayRatio: 3 },
    /^ova: option replayRatio = 3 would do nothing: it applies only when replay > 0$/,
  ],
  ["coembed", { variant: "L", numRff: 50 }, /^coembed: option numRff = 50 .*when variant is NL$/],
  ["coembed", { variant: "L", gamma: 2 }, /^coembed: option gamma = 2 .*when variant is NL$/],
  [
    "coembed",
    { replay: 0, replayPerStep: false },
    /^coembed: option replayPerStep = false .*when replay > 0$/,
  ],
  ["leml", { lrDecay: 0.1 }, /^leml: option lrDecay = 0\.1 .*when optimizer is sgd$/],
  ["leml", { negatives: 4 }, /^leml: option negatives = 4 .*when loss is logistic or sqhinge$/],
  ["leml", { replaySteps: 2 }, /^leml: option replaySteps = 2 .*when replay > 0$/],
  [
    "sleec",
    { weighted: false, votePower: 8 },
    /^sleec: option votePower = 8 .*when weighted is true$/,
  ],
];

const ACCEPTED: [string, Record<string, unknown>][] = [
  ["br", { optimizer: "adam", beta1: 0.5 }],
  ["br", { optimizer: "sgd", beta1: 0.9 }], // the default, spelled out
  ["ova", { replay: 100, replayRatio: 3 }],
  ["coembed", { variant: "NL", numRff: 50, gamma: 2 }],
  ["leml", { optimizer: "sgd", lrDecay: 0.1 }],
  ["leml", { loss: "logistic", negatives: 4 }],
  ["leml", { replay: 100, replaySteps: 2 }],
  ["sleec", { weighted: true, votePower: 8 }],
];

Deno.test("create refuses a setting the other settings leave unused, naming it and when it applies", async () => {
  const cases: [() => unknown, RegExp][] = [];
  for (const [model, options, message] of REFUSED) {
    const factory = await loadFactory(model);
    cases.push([() => factory.create({ seed: 1, ...options }), message]);
  }
  assertBadInput(cases);
  for (const [model, options] of REFUSED) {
    const factory = await loadFactory(model);
    let error: unknown;
    try {
      factory.create({ seed: 1, ...options });
    } catch (e) {
      error = e;
    }
    assert(error instanceof TypeError, `${model} ${JSON.stringify(options)}: ${error}`);
  }
  for (const [model, options] of ACCEPTED) {
    const factory = await loadFactory(model);
    assertEquals(factory.create({ seed: 1, ...options }).kind, model);
  }
});

Deno.test("a state recording every setting restores, and the help says when a setting is used", async () => {
  const br = await loadFactory("br");
  // an SGD model's state records Adam's settings too (at their defaults)
  const state = br.create({ seed: 1, optimizer: "sgd", numFeatures: 2, numLabels: 2 }).toState();
  assertEquals((state.config as Record<string, unknown>).beta1, 0.9);
  assertEquals(br.restore(state).numLabels, 2);
  const help = br.settings!.help();
  assert(/^beta1 .*Adam β1\. Used when optimizer is adam\.$/m.test(help), help);
});

Deno.test("tagstream train --option: an unused setting is an error naming it, before any data is read", async () => {
  const dir = await tempDirWith("tagstream_settings_used_", { "t.txt": "1 2 2\n0 0:1\n" });
  try {
    await expectRun(
      ["train", "--data", `${dir}/t.txt`, "--model", "br", "--option", "optimizer=sgd"]
        .concat(["--option", "beta1=0.5", "--out", `${dir}/m.tsm`, "--quiet"]),
      2,
      /br: option beta1 = 0\.5 would do nothing: it applies only when optimizer is adam/,
    );
    let written = true;
    await Deno.stat(`${dir}/m.tsm`).catch(() => written = false);
    assert(!written, "a model file was written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
