// The help of `tagstream` matches its parsers: every `--flag` a command's help names is a flag
// that command accepts, and `train --help` names every file extension that picks a format (it
// said only ".ndjson/.jsonl: ndjson", so a DATA.svm file looked like XC to its reader).
import { assert } from "../helpers.ts";
import { runDenoScript } from "../cli/helpers.ts";
import { COMMANDS } from "../../src/cli/main.ts";
import { parsePruneArgs } from "../../src/cli/prune.ts";
import { formatFromName } from "../../src/data/readers.ts";

/** The `--flags` a help text names, each once (not another command's: 'train --data …'). */
const flagsOf = (usage: string): string[] => [
  ...new Set(
    usage.replace(/'(?:tagstream )?(?:train|eval|prune|export|serve|inspect) [^'\n]*'/g, "").match(
      /--[a-z][a-z0-9-]*/g,
    ),
  ),
];

/** The message of what `f` throws (resolves "" when it does not throw). */
async function errorOf(f: () => unknown): Promise<string> {
  try {
    await f();
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}

Deno.test("every --flag a tagstream command's help names is a flag of its parser", async () => {
  const log = console.log;
  console.log = () => {}; // the usage each `--help` prints
  const unknown: string[] = [];
  try {
    for (const c of COMMANDS) {
      const flags = flagsOf(c.usage);
      assert(flags.length > 0, `${c.name}: no flags in its help`);
      for (const flag of flags) {
        // a value given inline, then --help: parsed, then the usage printed (no work is done);
        // `prune` answers --help before parsing, so its parser is asked directly
        const message = await errorOf(() =>
          c.name === "prune"
            ? parsePruneArgs(["--dataset", "d", `${flag}=1`], { stateDir: true })
            : c.run([`${flag}=1`, "--help"])
        );
        if (/unknown option/.test(message)) unknown.push(`${c.name} ${flag}: ${message}`);
      }
    }
  } finally {
    console.log = log;
  }
  assert(unknown.length === 0, `flags in the help that the parser refuses:\n${unknown.join("\n")}`);
});

Deno.test("train --help names the extensions that pick each --format", () => {
  const usage = COMMANDS.find((c) => c.name === "train")!.usage.replace(/\s+/g, " ");
  for (const [ext, format] of [["ndjson", "ndjson"], ["jsonl", "ndjson"], ["svm", "libsvm"]]) {
    assert(formatFromName(`DATA.${ext}.gz`) === format, `${ext} is read as ${format}`);
  }
  assert(formatFromName("DATA.libsvm") === "libsvm" && formatFromName("DATA.txt") === "xc");
  assert(usage.includes(".ndjson/.jsonl ndjson"), usage);
  assert(usage.includes(".svm/.libsvm libsvm"), usage);
  assert(usage.includes("else xc"), usage);
});

Deno.test("deno task prune --help sends to tagstream prune --help but says --state-dir is its own", async () => {
  // `deno task prune` has every flag of `tagstream prune` but --state-dir
  const msg = await errorOf(() => parsePruneArgs(["--dataset", "d", "--state-dir", "s"]));
  assert(/unknown option '--state-dir'/.test(msg), msg);
  const prune = new URL("../../src/cli/prune.ts", import.meta.url).pathname;
  const r = await runDenoScript(prune, ["--allow-read", "--allow-env"], ["--help"]);
  assert(r.code === 0, r.stderr);
  const text = r.stdout.replace(/\s+/g, " ");
  assert(text.includes("tagstream prune --help"), text);
  assert(text.includes("--state-dir is only tagstream prune's"), text);
});
