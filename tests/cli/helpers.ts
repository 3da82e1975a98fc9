/**
 * Helpers of the command-line tests: a script run as a `deno run` subprocess, the JSON summary
 * on its last stdout line, and a temporary directory holding a tiny dataset.
 *
 * @module
 */
import { main } from "../../src/cli/main.ts";
import { CheckpointChain } from "../../src/service/checkpoint_chain.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { factory as ova, type OvaEstimator } from "../../src/models/ova/mod.ts";
export { assert, assertEquals, withTempDir } from "../helpers.ts";

/**
 * Runs the CLI's `main(args)` in this process, capturing what it logs to stdout and stderr. A
 * `serve --no-auth` runs as a child process instead ({@linkcode runDenoScript}, without
 * `$TAGSTREAM_TOKEN`): serve reads the token from the process's environment and refuses
 * `--no-auth` while it is set, so a developer's exported token would fail the test, and a test
 * must not change the environment that the tests running beside it read.
 *
 * @example
 * ```ts
 * import { runMain } from "./helpers.ts";
 * const r = await runMain(["--help"]);
 * console.log(r.code, r.out.length > 0); // 0 true
 * ```
 */
export async function runMain(
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  if (args[0] === "serve" && args.includes("--no-auth")) {
    const r = await runDenoScript(MAIN, ["--allow-all"], args);
    return { code: r.code, out: r.stdout.trimEnd(), err: r.stderr.trimEnd() };
  }
  const log = console.log, error = console.error;
  const out: string[] = [], err: string[] = [];
  console.log = (...a: unknown[]) => out.push(a.join(" "));
  console.error = (...a: unknown[]) => err.push(a.join(" "));
  try {
    const code = await main(args);
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    console.log = log;
    console.error = error;
  }
}

/**
 * The command `tagstream serve --no-auth --quiet --port 0 --state-dir DIR ARGS` as a child
 * process (stdout and stderr piped; `TAGSTREAM_TOKEN` empty whatever the developer exported).
 *
 * @example
 * ```ts
 * import { serveCommand } from "./helpers.ts";
 * const cmd = serveCommand("/tmp/state", ["--model", "ova"]);
 * console.log(cmd instanceof Deno.Command); // true
 * ```
 */
export function serveCommand(stateDir: string, args: string[]): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      new URL("../../src/cli/main.ts", import.meta.url).pathname,
      "serve",
      ...["--no-auth", "--quiet", "--port", "0", "--state-dir", stateDir],
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", TAGSTREAM_TOKEN: "" },
  });
}

/**
 * Runs `tagstream serve --no-auth --quiet --port 0 --state-dir DIR ARGS` as a child process for at
 * most `ms`; a run still going then is killed (`code` null: it started serving).
 *
 * @example
 * ```ts
 * import { runServe } from "./helpers.ts";
 * const dir = await Deno.makeTempDir();
 * const r = await runServe(dir, ["--group", "g"]);
 * console.log(r.code); // 2
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function runServe(
  stateDir: string,
  args: string[],
  ms = 20_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = serveCommand(stateDir, args).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, ms);
  const out = await child.output();
  clearTimeout(timer);
  const dec = new TextDecoder();
  return {
    code: timedOut ? null : out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}

/**
 * Runs `tagstream ARGS` in this process ({@linkcode runMain}) and asserts the exit `code` and that
 * stderr matches every pattern. A usage error (exit 2) must print nothing on stdout, no stack
 * trace and no raw OS error.
 *
 * @example
 * ```ts
 * import { expectRun } from "./helpers.ts";
 * await expectRun(["train", "--nope"], 2, /unknown option '--nope'/);
 * ```
 */
export async function expectRun(
  args: string[],
  code: number,
  ...patterns: RegExp[]
): Promise<{ code: number; out: string; err: string }> {
  const r = await runMain(args);
  const cmd = args.join(" ");
  if (r.code !== code) {
    throw new Error(`${cmd}: exit ${r.code}, expected ${code}\nstdout: ${r.out}\nstderr: ${r.err}`);
  }
  for (const p of patterns) {
    if (!p.test(r.err)) throw new Error(`${cmd}: ${p} not in: ${r.err}`);
  }
  if (code === 2) {
    if (r.out !== "") throw new Error(`${cmd}: printed on failure: ${r.out}`);
    if (/\n\s+at /.test(r.err)) throw new Error(`${cmd}: stack trace: ${r.err}`);
    if (/os error/.test(r.err)) throw new Error(`${cmd}: raw OS error: ${r.err}`);
  }
  return r;
}

/**
 * Exit code and output of a finished subprocess.
 *
 * @example
 * ```ts
 * import type { RunResult } from "./helpers.ts";
 * const r: RunResult = { code: 0, stdout: "{}\n", stderr: "" };
 * console.log(r.code); // 0
 * ```
 */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI's entry point, as a path for `deno run`. */
const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

/**
 * Runs `deno run PERMISSIONS SCRIPT ARGS` (with `NO_COLOR=1`, and without `$TAGSTREAM_TOKEN`: a
 * developer's exported token must not change what `serve` does) to the end and collects its exit
 * code and output.
 *
 * @example
 * ```ts
 * import { runDenoScript } from "./helpers.ts";
 * const script = new URL("../../src/cli/main.ts", import.meta.url).pathname;
 * const r = await runDenoScript(script, ["--allow-all"], ["--help"]);
 * console.log(r.code, r.stdout.startsWith("tagstream")); // 0 true
 * ```
 */
export async function runDenoScript(
  script: string,
  permissions: readonly string[],
  args: readonly string[],
): Promise<RunResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, script, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", TAGSTREAM_TOKEN: "" },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * The last line of `stdout`, parsed as JSON (the summary the CLIs print last).
 *
 * @example
 * ```ts
 * import { lastJson } from "./helpers.ts";
 * console.log(lastJson('progress\n{"rows": 3}\n').rows); // 3
 * ```
 */
export function lastJson(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

/**
 * A small XC training file: 10 rows, 6 features, 3 labels (row i has label i % 3); the default
 * 0.2 validation split holds 2 rows.
 *
 * @example
 * ```ts
 * import { TEN_ROWS_XC } from "./helpers.ts";
 * console.log(TEN_ROWS_XC.split("\n")[0]); // "10 6 3"
 * ```
 */
export const TEN_ROWS_XC = "10 6 3\n" + Array.from({ length: 10 }, (_, i) => {
  const l = i % 3;
  return `${l} ${l}:1 ${3 + (i % 3)}:0.5`;
}).join("\n") + "\n";

/**
 * Six NDJSON events, one a line (event i: feature `i % 3`, label `l<i % 2>`), for `train --data`.
 *
 * @example
 * ```ts
 * import { SIX_EVENTS } from "./helpers.ts";
 * console.log(SIX_EVENTS.trim().split("\n").length); // 6
 * ```
 */
export const SIX_EVENTS: string = Array.from(
  { length: 6 },
  (_, i) => `{"features": {"${i % 3}": 1}, "labels": ["l${i % 2}"]}`,
).join("\n") + "\n";

/**
 * Writes {@linkcode SIX_EVENTS} to `DIR/e.ndjson` and runs `tagstream train --quiet --model
 * popularity --data DIR/e.ndjson --state-dir STATE_DIR ARGS` in this process
 * ({@linkcode runMain}).
 *
 * @example
 * ```ts
 * import { trainSixEvents } from "./helpers.ts";
 * const dir = await Deno.makeTempDir();
 * const r = await trainSixEvents(dir, `${dir}/s`, ["--out", `${dir}/m.tsm`]);
 * console.log(r.code); // 0
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function trainSixEvents(
  dir: string,
  stateDir: string,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  await Deno.writeTextFile(`${dir}/e.ndjson`, SIX_EVENTS);
  return await runMain([
    "train",
    "--quiet",
    "--model",
    "popularity",
    "--data",
    `${dir}/e.ndjson`,
    "--state-dir",
    stateDir,
    ...args,
  ]);
}

/**
 * The names of the entries of `dir`, sorted.
 *
 * @example
 * ```ts
 * import { filesIn } from "./helpers.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/b`, "");
 * await Deno.writeTextFile(`${dir}/a`, "");
 * console.log(await filesIn(dir)); // [ "a", "b" ]
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function filesIn(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir), (e) => e.name)).sort();
}

/**
 * A new temporary directory (name starting with `prefix`) holding `files` (name → text); the
 * caller removes it.
 *
 * @example
 * ```ts
 * import { tempDirWith } from "./helpers.ts";
 * const dir = await tempDirWith("tagstream_doc_", { "tiny.train.txt": "1 1 1\n0 0:1\n" });
 * console.log(await Deno.readTextFile(`${dir}/tiny.train.txt`)); // "1 1 1\n0 0:1\n"
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function tempDirWith(prefix: string, files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return dir;
}

/**
 * Writes into the existing directory `dir` the state of an "ova" learner that checkpointed twice:
 * a base checkpoint ("news") and an incremental checkpoint after it ("sport"); returns the learner.
 *
 * @example
 * ```ts
 * import { chainStateDir } from "./helpers.ts";
 * const dir = await Deno.makeTempDir();
 * const l = await chainStateDir(dir);
 * console.log(l.applied, [...Deno.readDirSync(`${dir}/checkpoint.deltas`)].length); // 2 1
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function chainStateDir(dir: string): Promise<StreamLearner> {
  const chain = new CheckpointChain(dir);
  const l = StreamLearner.create(ova, { batchSize: 1 });
  (l.estimator as OvaEstimator).stateDeltaMaxFraction = 1; // a tiny model: deltas still taken
  l.ingestLine('{"features": {"0": 1}, "labels": ["news"]}', "t", 1);
  await chain.write(chain.take(l));
  l.ingestLine('{"features": {"1": 1}, "labels": ["sport"]}', "t", 2);
  const delta = chain.take(l);
  if (!delta.delta) throw new Error("the second checkpoint is not a delta");
  await chain.write(delta);
  return l;
}
