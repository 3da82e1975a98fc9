// `tagstream eval --top N`: each row is scored by the model's top-k search (its N best labels, as
// /predict answers) instead of every label. The top-k metrics are those of scoring every label;
// the AUCs rank the labels past N last; bad values are refused naming the flag and the limit.
import { evaluateModel } from "../../src/metrics/evaluate.ts";
import { assertBadInput } from "../helpers.ts";
import { mulberry32 } from "../mulberry32.ts";
import { assert, assertEquals, expectRun, runMain, tempDirWith } from "./helpers.ts";

const L = 30, D = 40;

/** Rows of 1-8 labels (more than the top 5); each lights up its own two features, plus noise. */
function rows(n: number, seed: number): { labels: number[]; features: Map<number, number> }[] {
  const rnd = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const labels = new Set<number>();
    const count = 1 + Math.floor(rnd() * 8);
    while (labels.size < count) labels.add(Math.floor(rnd() * L));
    const features = new Map<number, number>();
    for (const l of labels) {
      features.set(l, 1);
      features.set((l + 7) % D, 1);
    }
    features.set(L + Math.floor(rnd() * (D - L)), 1);
    return { labels: [...labels].sort((a, b) => a - b), features };
  });
}

function xc(data: ReturnType<typeof rows>): string {
  const line = (r: ReturnType<typeof rows>[number]) =>
    `${r.labels.join(",")} ${
      [...r.features].sort((a, b) => a[0] - b[0]).map(([j, v]) => `${j}:${v}`).join(" ")
    }`;
  return `${data.length} ${D} ${L}\n${data.map(line).join("\n")}\n`;
}

function ndjson(data: ReturnType<typeof rows>): string {
  return data.map((r) =>
    JSON.stringify({
      features: Object.fromEntries([...r.features].map(([j, v]) => [String(j), v])),
      labels: r.labels.map(String),
    })
  ).join("\n") + "\n";
}

const TOP_K_KEYS = /^(P|nDCG|PSP|PSnDCG|coverage)@/;

async function evalJson(args: string[]): Promise<Record<string, unknown>> {
  const r = await runMain(["eval", ...args]);
  assertEquals(r.code, 0, r.err);
  return JSON.parse(r.out.trim().split("\n").at(-1)!);
}

Deno.test("eval --top 5: the top-k metrics of scoring every label, for a state directory and a model file, on XC rows and NDJSON events", async () => {
  const test = rows(60, 2);
  const dir = await tempDirWith("tagstream_eval_top_", {
    "t.train.txt": xc(rows(300, 1)),
    "t.test.txt": xc(test),
    "t.test.ndjson": ndjson(test),
  });
  try {
    const state = `${dir}/state`, file = `${dir}/m.tsm`;
    await expectRun(
      ["train", "--data", `${dir}/t.train.txt`, "--model", "ova", "--quiet"]
        .concat(["--state-dir", state, "--out", file]),
      0,
    );
    for (const model of [["--state-dir", state], ["--model-file", file]]) {
      for (const data of [`${dir}/t.test.txt`, `${dir}/t.test.ndjson`]) {
        const what = `${model.join(" ")} --data ${data}`;
        const all = await evalJson([...model, "--data", data]);
        const top = await evalJson([...model, "--data", data, "--top", "5"]);
        assertEquals(all.top, undefined, what);
        assertEquals(top.top, 5, what);
        const a = all.metrics as Record<string, number>, t = top.metrics as Record<string, number>;
        const keys = Object.keys(a).filter((key) => TOP_K_KEYS.test(key));
        assertEquals(keys.length, 15, what); // P, nDCG, PSP, PSnDCG and coverage at 1, 3 and 5
        for (const key of keys) assertEquals(t[key], a[key], `${what}: ${key}`);
        assert(a["P@1"] > 50, `${what}: the model learned nothing (P@1 ${a["P@1"]})`);
        // the labels past the top 5 are ranked last, tied: a row's ranking is shorter
        assert(
          t.instanceAUC < a.instanceAUC,
          `${what}: instance AUC ${t.instanceAUC} vs ${a.instanceAUC}`,
        );
      }
    }
    await expectRun(
      ["eval", "--model-file", file, "--data", `${dir}/t.test.txt`, "--top", "3"],
      2,
      /--top 3 is below --k 5: P@5 needs each row's 5 best labels \(give --top 5 or more\)/,
    );
    await expectRun(
      ["eval", "--model-file", file, "--data", `${dir}/t.test.txt`, "--top", "31"],
      2,
      /--top 31 is above the 30 labels of the model .*m\.tsm: leave --top out to score every/,
    );
    await expectRun(
      ["eval", "--model-file", file, "--data", `${dir}/t.test.txt`, "--top", "0"],
      2,
      /--top/,
    );
    await Deno.writeTextFile(`${dir}/p.txt`, "0:1\n".repeat(60));
    await expectRun(
      ["eval", "--dataset", "t", "--data-dir", dir, "--predictions", `${dir}/p.txt`, "--top", "5"],
      2,
      /--top does not apply with --predictions/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("evaluateModel top: needs predictTopK and a top of at least k", () => {
  const x = { numRows: 1, numCols: 1, indptr: Int32Array.of(0, 1), indices: Int32Array.of(0) };
  const test = {
    numLabels: 2,
    x: { ...x, values: Float32Array.of(1) },
    y: { numRows: 1, numCols: 2, indptr: Int32Array.of(0, 1), indices: Int32Array.of(1) },
  };
  const scores = () => Float32Array.of(0.1, 0.8);
  const options = { propensities: Float64Array.of(0.5, 0.5), k: 2, timingRows: 0 };
  assertBadInput([
    [
      () => evaluateModel({ predictScores: scores }, test, { ...options, top: 2 }),
      /evaluateModel: top needs a model with predictTopK/,
    ],
    [
      () => evaluateModel({ predictScores: scores }, test, { ...options, top: 1 }),
      /evaluateModel: top must be an integer >= k \(2\).*got 1/,
    ],
  ]);
  // one listed label, ranked first: P@1 as with every score, the other label unranked
  const r = evaluateModel(
    {
      predictScores: scores,
      predictTopK: () => ({ labels: Int32Array.of(1), scores: Float32Array.of(0.8) }),
    },
    test,
    { ...options, top: 2 },
  );
  assertEquals(r.metrics["P@1"], 100);
});
