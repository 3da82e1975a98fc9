// `tagstream eval`, `prune` and `inspect` on wrong input: labels the model never saw are misses,
// data of another dataset, empty test files, missing paths, ignored flags and invalid model
// files are refused with messages naming the file (or flag) and the counts.
import { encodeModelFile } from "../../src/format/model_file.ts";
import { assert, runMain, tempDirWith } from "./helpers.ts";

// 4 rows, 5 features, 3 labels
const GOOD = "4 5 3\n0,1 0:1 2:0.5\n2 1:1 4:2\n1 0:1 3:1\n0 2:1 4:1\n";
// the same features, 5 labels: labels 3 and 4 are unknown to a model trained on GOOD
const UNKNOWN = "3 5 5\n4 0:1 2:0.5\n4 1:1 4:2\n3 0:1 3:1\n";

/** A directory with good.{train,test}.txt and a BR model trained on it (good.tsm). */
async function fixture(): Promise<string> {
  const dir = await tempDirWith("tagstream_evh_", {
    "good.train.txt": GOOD,
    "good.test.txt": GOOD,
    "unk.txt": UNKNOWN,
    "empty.txt": "0 5 3\n",
  });
  const t = await runMain([
    "train",
    "--data",
    `${dir}/good.train.txt`,
    "--model",
    "br",
    "--out",
    `${dir}/good.tsm`,
  ]);
  assert(t.code === 0, `train: ${t.err}`);
  return dir;
}

const json = (out: string) => JSON.parse(out.trim().split("\n").pop()!);

Deno.test("eval: test labels the model never saw are misses, never hits", async () => {
  const dir = await fixture();
  try {
    // labels named as the model knows them ("0", "1", "2"), plus two new names
    await Deno.writeTextFile(`${dir}/unk.names.txt`, "0\n1\n2\nnew-3\nnew-4\n");
    const r = await runMain([
      "eval",
      "--model-file",
      `${dir}/good.tsm`,
      "--data",
      `${dir}/unk.txt`,
      "--labels",
      `${dir}/unk.names.txt`,
    ]);
    assert(r.code === 0, r.err);
    const o = json(r.out);
    assert(o.unknownLabels === 2, `unknownLabels ${o.unknownLabels}`);
    // every true label is unknown to the model: nothing can be a hit
    for (const key of ["P@1", "P@3", "P@5", "PSP@3", "PSP@5", "nDCG@5", "coverage@5"]) {
      assert(o.metrics[key] === 0, `${key} = ${o.metrics[key]}`);
    }
    // the same model on its own data does score hits
    const own = await runMain([
      "eval",
      "--model-file",
      `${dir}/good.tsm`,
      "--dataset",
      "good",
      "--data-dir",
      dir,
    ]);
    assert(own.code === 0 && json(own.out).metrics["P@1"] > 0, own.err);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval: another dataset's test or training file is refused, naming both", async () => {
  const dir = await fixture();
  try {
    // an index-labelled model (3 labels) on a 5-label test file
    await Deno.writeTextFile(`${dir}/wide.txt`, "1 5 5\n4 0:1\n");
    let r = await runMain(["eval", "--model-file", `${dir}/good.tsm`, "--data", `${dir}/wide.txt`]);
    assert(r.code === 2, `exit ${r.code}`);
    assert(/wide\.txt has 5 labels but the model .*good\.tsm has 3/.test(r.err), r.err);
    // propensities from a training file with another label count
    r = await runMain([
      "eval",
      "--model-file",
      `${dir}/good.tsm`,
      "--data",
      `${dir}/good.test.txt`,
      "--train",
      `${dir}/unk.txt`,
    ]);
    assert(r.code === 2, `exit ${r.code}`);
    assert(/unk\.txt has 5 labels but .*good\.test\.txt has 3/.test(r.err), r.err);
    // a narrower file is evaluated, with the mismatch reported
    await Deno.writeTextFile(`${dir}/narrow.txt`, "1 2 3\n1 0:1\n");
    r = await runMain(["eval", "--model-file", `${dir}/good.tsm`, "--data", `${dir}/narrow.txt`]);
    assert(r.code === 0, r.err);
    const o = json(r.out);
    assert(o.features.model === 5 && o.features.test === 2, JSON.stringify(o.features));
    assert(o.warnings.length === 1 && /narrow\.txt has 2 features/.test(o.warnings[0]), r.out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval: an empty test file, missing paths and ignored flags are usage errors", async () => {
  const dir = await fixture();
  try {
    const model = `${dir}/good.tsm`;
    const cases: [string[], RegExp][] = [
      [["--model-file", model, "--data", `${dir}/empty.txt`], /empty\.txt has no rows/],
      [
        ["--model-file", `${dir}/nope.tsm`, "--data", `${dir}/unk.txt`],
        /--model-file .*nope\.tsm: no such file/,
      ],
      [["--model-file", dir, "--data", `${dir}/unk.txt`], /--model-file .*: is a directory/],
      [["--model-file", model, "--data", `${dir}/nope.txt`], /--data .*nope\.txt: no such file/],
      [
        ["--model-file", model, "--data", `${dir}/unk.txt`, "--labels", `${dir}/l.txt`],
        /--labels .*l\.txt: no such file/,
      ],
      [
        ["--model-file", model, "--dataset", "nope", "--data-dir", dir],
        /--dataset nope: .*nope\.test\.txt: no such file/,
      ],
      [
        [
          "--model-file",
          model,
          "--dataset",
          "good",
          "--data-dir",
          dir,
          "--train",
          `${dir}/unk.txt`,
        ],
        /--train does not apply with --dataset/,
      ],
      [
        ["--model-file", model, "--data", `${dir}/unk.txt`, "--data-dir", dir],
        /--data-dir does not apply with --data/,
      ],
      [
        [
          "--predictions",
          "p.txt",
          "--dataset",
          "good",
          "--model-file",
          "n.tsm",
          "--data",
          "n.txt",
          "--train",
          "t.txt",
          "--labels",
          "l.txt",
        ],
        /--model-file, --data, --train, --labels do not apply with --predictions/,
      ],
    ];
    for (const [args, re] of cases) {
      const r = await runMain(["eval", ...args]);
      assert(r.code === 2, `${args.join(" ")}: exit ${r.code} (${r.err})`);
      assert(re.test(r.err), `${args.join(" ")}: stderr "${r.err}"`);
      assert(!/os error/.test(r.err), `raw OS error: ${r.err}`);
      assert(r.out === "", "no JSON on failure");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("inspect: files the SDK rejects fail, naming the file", async () => {
  const dir = await fixture();
  try {
    // CRC-valid frames that the SDK rejects: an unknown kind, a label index out of range
    await Deno.writeFile(
      `${dir}/mystery.tsm`,
      encodeModelFile({
        kind: "mystery" as unknown as "linear-sparse",
        numFeatures: 1,
        numLabels: 1,
        params: {},
        tensors: {},
      }),
    );
    const good = await Deno.readFile(`${dir}/good.tsm`);
    await Deno.writeFile(`${dir}/cut.tsm`, good.subarray(0, good.length - 9));
    for (const name of ["mystery.tsm", "cut.tsm"]) {
      const r = await runMain(["inspect", `${dir}/${name}`]);
      assert(r.code === 2, `${name}: exit ${r.code}, not 2 (bad input) (${r.out})`);
      assert(r.err.includes(`Cannot read model file ${dir}/${name} (`), `${name}: ${r.err}`);
      // eval names it the same way
      const e = await runMain([
        "eval",
        "--model-file",
        `${dir}/${name}`,
        "--data",
        `${dir}/unk.txt`,
      ]);
      assert(e.code === 2 && e.err.includes(`${dir}/${name}`), `eval ${name}: ${e.code} ${e.err}`);
    }
    const missing = await runMain(["inspect", `${dir}/nope.tsm`]);
    assert(missing.code === 2 && /nope\.tsm: no such file/.test(missing.err), missing.err);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prune: another dataset's --valid file, a directory as --model; --state-dir source", async () => {
  const dir = await fixture();
  try {
    const base = ["prune", "--dataset", "good", "--data-dir", dir, "--no-plot"];
    let r = await runMain([...base, "--model", `${dir}/good.tsm`, "--valid", `${dir}/unk.txt`]);
    assert(
      r.code === 2 && /unk\.txt has 5 labels but the model .*good\.tsm has 3/.test(r.err),
      r.err,
    );
    r = await runMain([...base, "--model", dir]);
    assert(r.code === 2 && /--model .*: is a directory/.test(r.err), r.err);
    // a state directory's model: the summary names the directory, which still exists after the
    // temporary model file is gone
    const state = `${dir}/state`;
    const t = await runMain([
      "train",
      "--data",
      `${dir}/good.train.txt`,
      "--model",
      "br",
      "--state-dir",
      state,
    ]);
    assert(t.code === 0, t.err);
    r = await runMain([...base, "--state-dir", state]);
    assert(r.code === 0, r.err);
    const o = json(r.out);
    assert(o.source === state, `source ${o.source}`);
    if (o.pruned === false) {
      assert(o.message.endsWith(`keep using ${state}.`), o.message);
    }
    assert((await Deno.stat(o.source as string)).isDirectory, "the source exists");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
