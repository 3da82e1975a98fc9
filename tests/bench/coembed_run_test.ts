/**
 * `bench/coembed_run.ts` takes the coembed experiment's flags (its `FLAGS`), parsed as
 * `deno task repro coembed` parses them, plus its `all` grids over variants and τ.
 */
import { parseCoembedRunArgs } from "../../bench/coembed_run.ts";
import { FLAGS } from "../../bench/repro/experiments/coembed.ts";
import { assert, assertEquals, runDenoScript, tempDirWith } from "../cli/helpers.ts";

const SCRIPT = new URL("../../bench/coembed_run.ts", import.meta.url).pathname;

/** The message of what `fn` throws, with its class; fails when it returns. */
function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
  throw new Error("no error thrown");
}

Deno.test("coembed_run: takes every flag of the experiment's FLAGS, and no other", () => {
  for (const flag of FLAGS.flags) {
    const a = parseCoembedRunArgs([`--${flag}`, "1"]);
    const expected = flag === "variant" || flag === "tau" ? {} : { [flag]: "1" };
    assertEquals(a.flags, expected, flag);
    assertEquals(
      parseCoembedRunArgs([`--${flag}`]).flags,
      flag === "variant" || flag === "tau" ? {} : { [flag]: true },
      `bare --${flag}`,
    );
  }
  const e = thrown(() => parseCoembedRunArgs(["--epoch", "3"]));
  assert(
    e.startsWith(
      "TypeError: unknown flag --epoch for coembed (coembed takes --dataset, --data-dir, --seed, " +
        `${FLAGS.flags.map((f) => `--${f}`).join(", ")})`,
    ),
    e,
  );
  assert(thrown(() => parseCoembedRunArgs(["--rank", "0x10"])).includes("plain decimal"));
  assert(thrown(() => parseCoembedRunArgs(["--seed", "1.5"])).startsWith("RangeError: "));
  assert(thrown(() => parseCoembedRunArgs(["--tau", "1", "--tau", "2"])).includes("given twice"));
});

Deno.test("coembed_run: defaults, runner flags and the grids", () => {
  assertEquals(parseCoembedRunArgs([]), {
    dataset: "yeast",
    seed: 0,
    variants: ["NL"],
    taus: ["0.5"],
    flags: {},
  });
  assertEquals(
    parseCoembedRunArgs([
      "--dataset=bibtex",
      "--data-dir",
      "/d",
      "--seed",
      "-2",
      "--variant",
      "all",
      "--tau",
      "all",
      "--tune",
      "false",
      "--no-stream",
    ]),
    {
      dataset: "bibtex",
      dataDir: "/d",
      seed: -2,
      variants: ["L", "NL"],
      taus: ["0.3", "0.5", "0.8"],
      flags: { tune: "false", "no-stream": true },
    },
  );
  assertEquals(parseCoembedRunArgs(["--variant", "L", "--tau", "0.3"]).variants, ["L"]);
  assertEquals(parseCoembedRunArgs(["--variant", "L", "--tau", "0.3"]).taus, ["0.3"]);
  assertEquals(parseCoembedRunArgs(["--help", "--nope"]).help, true);
});

Deno.test("coembed_run: end to end, one JSON line per (variant, τ); a bad flag exits 2", async () => {
  const dir = await tempDirWith("tagstream_coembed_run_", {
    "tiny.train.txt": "4 3 4\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n",
    "tiny.test.txt": "3 3 4\n0 0:1\n1,2 2:1\n 2:1\n",
  });
  try {
    const base = ["--dataset", "tiny", "--data-dir", dir, "--repeats", "1", "--epochs", "1"];
    // --rowUpdate (in FLAGS) was missing from this script's own list
    const r = await runDenoScript(SCRIPT, ["--allow-all"], [
      ...base,
      "--variant",
      "all",
      "--rowUpdate",
      "joint",
      "--no-stream",
    ]);
    assertEquals(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assertEquals(lines.map((l) => [l.experiment, l.dataset, l.variant]), [
      ["coembed", "tiny", "L"],
      ["coembed", "tiny", "NL"],
    ]);
    const bad = await runDenoScript(SCRIPT, ["--allow-all"], [...base, "--nope", "1"]);
    assertEquals(bad.code, 2, bad.stderr);
    assert(/^coembed_run: unknown flag --nope for coembed/.test(bad.stderr), bad.stderr);
    assertEquals(bad.stdout, "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
