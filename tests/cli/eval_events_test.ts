// `tagstream eval` on labelled NDJSON events (raw text in): the model of a state directory and
// its model file score the events' text as the SDK does, labels are matched by name, and
// mistakes are refused naming the flag, the file and the line.
import { loadModel } from "../../sdk/mod.ts";
import { evaluateEvents } from "../../src/cli/commands/eval_events.ts";
import { Evaluator } from "../../src/metrics/evaluate.ts";
import { propensities } from "../../src/metrics/propensity.ts";
import { assert, assertEquals, expectRun, runMain, tempDirWith } from "./helpers.ts";

// Three topics, each named by its words; a few events carry a second label.
const WORDS: Record<string, string[]> = {
  db: ["sql", "database", "query", "index", "table"],
  web: ["http", "server", "browser", "html", "css"],
  math: ["matrix", "algebra", "solver", "sparse", "linear"],
};
function events(n: number, seed: number): string {
  const topics = Object.keys(WORDS);
  const lines: string[] = [];
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < n; i++) {
    const t = topics[i % 3], u = topics[(i + 1) % 3];
    const words = Array.from({ length: 4 }, () => WORDS[t][Math.floor(next() * 5)]);
    const labels = i % 4 === 0 ? [t, u] : [t];
    if (i % 5 === 0) words.push(WORDS[u][Math.floor(next() * 5)]);
    lines.push(JSON.stringify({ id: `e${i}`, text: words.join(" "), labels }));
  }
  return lines.join("\n") + "\n";
}

const TRAIN = events(120, 1),
  TEST = events(30, 2) +
    JSON.stringify({ text: "sql server", labels: ["db", "unseen"] }) + "\n";

Deno.test("eval --data test.ndjson: a state directory and its model file give the metrics the SDK's top-k gives", async () => {
  const dir = await tempDirWith("tagstream_eval_events_", {
    "topics.train.ndjson": TRAIN,
    "topics.test.ndjson": TEST,
  });
  try {
    const model = `${dir}/m.tsm`, state = `${dir}/state`;
    await expectRun(
      ["train", "--data", `${dir}/topics.train.ndjson`, "--model", "ova", "--text-only", "--quiet"]
        .concat(["--state-dir", state, "--out", model]),
      0,
    );
    const fromState = await runMain([
      "eval",
      "--state-dir",
      state,
      "--data",
      `${dir}/topics.test.ndjson`,
    ]);
    assertEquals(fromState.code, 0, fromState.err);
    const fromFile = await runMain([
      "eval",
      "--model-file",
      model,
      "--data",
      `${dir}/topics.test.ndjson`,
    ]);
    assertEquals(fromFile.code, 0, fromFile.err);
    const a = JSON.parse(fromState.out), b = JSON.parse(fromFile.out);
    assertEquals(a.format, "ndjson");
    assertEquals(a.rows, 31);
    assertEquals(a.unknownLabels, 1); // "unseen"
    for (const key of ["P@1", "P@3", "P@5", "PSP@1", "instanceAUC"]) {
      assert(
        Math.abs(a.metrics[key] - b.metrics[key]) < 1e-9,
        `${key}: ${a.metrics[key]} vs ${b.metrics[key]}`,
      );
    }
    // P@1 by hand through the SDK on the raw text
    const m = loadModel(await Deno.readFile(model));
    let hits = 0;
    const test = TEST.trim().split("\n").map((l) => JSON.parse(l));
    for (const e of test) {
      const top = m.predictTopK({ text: e.text }, 1);
      if (e.labels.includes(m.labelName(top.labels[0]))) hits++;
    }
    assert(
      Math.abs(b.metrics["P@1"] - (100 * hits) / test.length) < 1e-9,
      `P@1 ${b.metrics["P@1"]}`,
    );
    assert(hits > 20, `the topics are learnable: ${hits} of ${test.length}`);
    // --dataset NAME --format ndjson reads NAME.test.ndjson, propensities from NAME.train.ndjson
    const ds = await runMain([
      "eval",
      "--model-file",
      model,
      "--dataset",
      "topics",
      "--format",
      "ndjson",
      "--data-dir",
      dir,
    ]);
    assertEquals(ds.code, 0, ds.err);
    const c = JSON.parse(ds.out);
    assertEquals(c.metrics["P@1"], b.metrics["P@1"]);
    assert(c.propensitiesFrom.endsWith("topics.train.ndjson"), c.propensitiesFrom);
    assert(c.metrics["PSP@1"] !== b.metrics["PSP@1"], "the training events' propensities are used");
    const withTrain = await runMain([
      "eval",
      "--model-file",
      model,
      "--data",
      `${dir}/topics.test.ndjson`,
      "--train",
      `${dir}/topics.train.ndjson`,
    ]);
    assertEquals(JSON.parse(withTrain.out).metrics, c.metrics);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("evaluateEvents matches labels by name, ranks no unknown label, and takes the training counts", () => {
  // the model knows "b", "a" and always scores a above b
  const model = {
    numLabels: 2,
    labelName: (l: number) => ["b", "a"][l],
    scoreEvent: () => Float32Array.of(0.1, 0.9),
  };
  const events = [
    { line: 1, text: "x", labels: ["a"] },
    { line: 2, text: "y", labels: ["b", "new"] },
  ];
  const counts = new Map([["a", 5], ["b", 1], ["new", 2], ["other", 9]]);
  const r = evaluateEvents(model, events, "t.ndjson", { counts, rows: 10 }, { k: 3 });
  // by hand: labels b = 0, a = 1, new = 2 (never scored)
  const ev = new Evaluator(3, { propensities: propensities([1, 5, 2], 10), k: 3 });
  ev.addScores(Float32Array.of(0.1, 0.9), Int32Array.of(1), 2);
  ev.addScores(Float32Array.of(0.1, 0.9), Int32Array.of(0, 2), 2);
  assertEquals(r.metrics, ev.result());
  assertEquals(r.stdErr, ev.standardErrors());
  assertEquals(r.unknownLabels, 1);
  assertEquals(r.metrics["P@1"], 50);
  // a model that cannot score an event: the error names its line
  const refusing = {
    ...model,
    scoreEvent: () => {
      throw new TypeError("features['q']: bad");
    },
  };
  try {
    evaluateEvents(refusing, events, "t.ndjson");
    throw new Error("no error");
  } catch (e) {
    assert(e instanceof TypeError, String(e));
    assertEquals((e as Error).message, "Cannot score line 1 of t.ndjson: features['q']: bad");
  }
});

Deno.test("eval on NDJSON events refuses what it cannot read, naming the flag, the file and the line", async () => {
  const dir = await tempDirWith("tagstream_eval_events_bad_", {
    "t.train.ndjson": TRAIN,
    "t.test.ndjson": TEST,
    "unlabelled.ndjson": '{"text": "sql", "labels": ["db"]}\n{"text": "http"}\n',
    "feat.ndjson": '{"features": {"0": 1}, "labels": ["0"]}\n',
    "t.train.txt": "1 1 1\n0 0:1\n",
    "t.svm": "0 1:1\n",
  });
  try {
    const model = `${dir}/m.tsm`;
    await expectRun(
      [
        "train",
        "--data",
        `${dir}/t.train.ndjson`,
        "--model",
        "ova",
        "--text-only",
        "--quiet",
        "--out",
        model,
      ],
      0,
    );
    const ev = (...a: string[]) => ["eval", "--model-file", model, ...a];
    await expectRun(
      ev("--data", `${dir}/unlabelled.ndjson`),
      2,
      /line 2 of .*unlabelled\.ndjson: field 'labels' is missing/,
    );
    await expectRun(
      ev("--data", `${dir}/t.test.ndjson`, "--labels", `${dir}/t.train.txt`),
      2,
      /--labels does not apply with NDJSON/,
    );
    await expectRun(
      ev("--data", `${dir}/t.test.ndjson`, "--train", `${dir}/t.train.txt`),
      2,
      /--train .*t\.train\.txt: NDJSON test events take their propensities from NDJSON/,
    );
    await expectRun(
      ev("--data", `${dir}/t.test.ndjson`, "--format", "csv"),
      2,
      /--format must be xc or ndjson, got 'csv'/,
    );
    await expectRun(ev("--data", `${dir}/t.svm`), 2, /not LIBSVM/);
    // a model trained on text scores an event with features only from its features
    const feat = await runMain(ev("--data", `${dir}/feat.ndjson`));
    assertEquals(feat.code, 0, feat.err);
    // a model trained on indexed features cannot read a text-only event
    const idx = `${dir}/idx.tsm`;
    await Deno.writeTextFile(
      `${dir}/idx.ndjson`,
      '{"features": {"0": 1}, "labels": ["a"]}\n{"features": {"1": 1}, "labels": ["b"]}\n',
    );
    await expectRun([
      "train",
      "--data",
      `${dir}/idx.ndjson`,
      "--model",
      "ova",
      "--quiet",
      "--out",
      idx,
    ], 0);
    await expectRun(
      ["eval", "--model-file", idx, "--data", `${dir}/t.test.ndjson`],
      2,
      /Cannot score line 1 of .*t\.test\.ndjson: .*not trained on text/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
