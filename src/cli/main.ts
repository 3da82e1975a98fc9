/**
 * `npx deno task tagstream <command> [options]`: the Tagstream command line.
 *
 * Commands: `train`, `eval`, `prune`, `export`, `serve`, `inspect`; `--help` on each. Errors
 * print one line on stderr and exit with 2 for bad input (TypeError, RangeError, SyntaxError,
 * ModelFormatError) or 1 otherwise.
 *
 * @module
 */
import type { Command } from "./commands/args.ts";
import { isBadInput } from "./run_script.ts";
import { trainCommand } from "./commands/train.ts";
import { evalCommand } from "./commands/eval.ts";
import { pruneCommand } from "./commands/prune.ts";
import { exportCommand } from "./commands/export.ts";
import { serveCommand } from "./commands/serve.ts";
import { inspectCommand } from "./commands/inspect.ts";

/**
 * The sub-commands, in help order.
 *
 * @example
 * ```ts
 * import { COMMANDS } from "./main.ts";
 * console.log(COMMANDS.map((c) => c.name)); // [ "train", "eval", "prune", "export", "serve", "inspect" ]
 * ```
 */
export const COMMANDS: readonly Command[] = [
  trainCommand,
  evalCommand,
  pruneCommand,
  exportCommand,
  serveCommand,
  inspectCommand,
];

/**
 * The top-level help text.
 *
 * @example
 * ```ts
 * import { usage } from "./main.ts";
 * console.log(usage().startsWith("tagstream")); // true
 * ```
 */
export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "tagstream: continuous extreme multi-label tagging (npx deno task tagstream <command>)",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Run 'tagstream <command> --help' for the options of a command.",
  ].join("\n");
}

/**
 * Runs the command line `args`; resolves with the exit code. Errors are reported on stderr.
 *
 * @example
 * ```ts
 * import { main } from "./main.ts";
 * console.log(await main(["no-such-command"])); // 2 (and a message on stderr)
 * ```
 */
export async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    if (name === "help" && rest[0] !== undefined) return await main([rest[0], "--help"]);
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    console.error(`tagstream: unknown command '${name}'\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    // a message naming the command already (not one naming a path `tagstream.tsm`)
    console.error(/^tagstream( [a-z]+)?: /.test(msg) ? msg : `tagstream ${name}: ${msg}`);
    return isBadInput(e) ? 2 : 1;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
