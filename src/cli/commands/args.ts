/**
 * Shared command-line plumbing of `tagstream`: the command contract, strict flag parsing with
 * `node:util` `parseArgs` and typed flag readers with errors naming the flag. The model and
 * learner flags are in ./learner_flags.ts, the checks of paths in ./path_checks.ts.
 *
 * @module
 */
import { parseArgs } from "node:util";

/**
 * One `tagstream` sub-command.
 *
 * @example
 * ```ts
 * import type { Command } from "./args.ts";
 * const hello: Command = {
 *   name: "hello",
 *   summary: "say hello",
 *   usage: "tagstream hello",
 *   run: () => Promise.resolve(0),
 * };
 * console.log(hello.name); // "hello"
 * ```
 */
export interface Command {
  /** Name on the command line. */
  readonly name: string;
  /** One line for `tagstream --help`. */
  readonly summary: string;
  /** Full help text for `tagstream <name> --help`. */
  readonly usage: string;
  /** Runs the command; resolves with the process exit code. */
  run(args: string[]): Promise<number>;
}

/**
 * Flag specification for {@linkcode parseFlags}: `string`, `boolean`, or repeatable `multiple`.
 *
 * @example
 * ```ts
 * import type { FlagSpec } from "./args.ts";
 * const spec: FlagSpec = { port: "string", quiet: "boolean", option: "multiple" };
 * console.log(spec.port); // "string"
 * ```
 */
export type FlagSpec = Record<string, "string" | "boolean" | "multiple">;

/**
 * Parsed flags and positional arguments.
 *
 * @example
 * ```ts
 * import type { Flags } from "./args.ts";
 * const f: Flags = { values: { port: "8080" }, positionals: [] };
 * console.log(f.values.port); // "8080"
 * ```
 */
export interface Flags {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * Parses `args` strictly (unknown flags are a TypeError naming the command and the flag).
 * `--help`/`-h` is always accepted as `values.help`; a negative number after a flag that takes a
 * value is that value (`--seed -1`); a flag that takes one value given twice with different
 * values is a TypeError naming it (one of them would be ignored). `maxPositionals` (default: any number)
 * bounds the positional arguments: more is a TypeError naming the extra ones. `program` is how
 * the user runs a script other than `tagstream COMMAND` (`deno task bench`): the errors then
 * point to `PROGRAM --help` and are not prefixed with `tagstream COMMAND:` (the script's
 * runner names it).
 *
 * @example
 * ```ts
 * import { parseFlags } from "./args.ts";
 * const f = parseFlags("serve", ["--port", "0", "--quiet", "x"], { port: "string", quiet: "boolean" });
 * console.log(f.values.port, f.values.quiet, f.positionals); // "0" true [ "x" ]
 * try {
 *   parseFlags("serve", ["--nope"], {});
 * } catch (e) {
 *   console.log((e as Error).message); // tagstream serve: unknown option '--nope' (see tagstream serve --help)
 * }
 * try {
 *   parseFlags("train", ["--quiet", "junk"], { quiet: "boolean" }, { maxPositionals: 0 });
 * } catch (e) {
 *   console.log((e as Error).message); // tagstream train: unexpected argument 'junk' (train takes no positional arguments; see tagstream train --help)
 * }
 * try {
 *   parseFlags("train", ["--data", "a.txt", "--data", "b.txt"], { data: "string" });
 * } catch (e) {
 *   console.log((e as Error).message); // tagstream train: --data is given twice ('a.txt' and 'b.txt'): give it once
 * }
 * try {
 *   parseFlags("bench", ["--nope"], {}, { program: "deno task bench" });
 * } catch (e) {
 *   console.log((e as Error).message); // unknown option '--nope' (see deno task bench --help)
 * }
 * ```
 */
export function parseFlags(
  command: string,
  args: string[],
  spec: FlagSpec,
  options: { maxPositionals?: number; program?: string } = {},
): Flags {
  const program = options.program ?? `tagstream ${command}`;
  const prefix = options.program === undefined ? `tagstream ${command}: ` : "";
  const flagOptions: Record<
    string,
    { type: "string" | "boolean"; multiple?: boolean; short?: string }
  > = { help: { type: "boolean", short: "h" } };
  for (const [name, kind] of Object.entries(spec)) {
    flagOptions[name] = kind === "multiple" ? { type: "string", multiple: true } : { type: kind };
  }
  // `--seed -1`: a negative number after a flag that takes a value is that value (parseArgs
  // would call it ambiguous); joined as `--seed=-1`
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i], next = args[i + 1];
    const name = a.startsWith("--") && !a.includes("=") ? a.slice(2) : undefined;
    if (
      name !== undefined && flagOptions[name]?.type === "string" && next !== undefined &&
      NEGATIVE_NUMBER.test(next)
    ) {
      joined.push(`${a}=${next}`);
      i++;
    } else joined.push(a);
    if (a === "--") {
      joined.push(...args.slice(i + 1));
      break;
    }
  }
  let flags: Flags;
  try {
    const r = parseArgs({
      args: joined,
      options: flagOptions,
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
    flags = { values: r.values as Flags["values"], positionals: r.positionals };
    refuseRepeats(r.tokens, flagOptions, prefix);
  } catch (e) {
    if (e instanceof RepeatedFlagError) throw new TypeError(e.message);
    const m = /Unknown option '([^']+)'/.exec((e as Error).message);
    if (m) {
      throw new TypeError(`${prefix}unknown option '${m[1]}' (see ${program} --help)`);
    }
    // parseArgs' three-line "argument is ambiguous" (`--out --seed 1`) and "argument missing"
    const missing = /^Option '(-[^' ]+)(?: <value>)?' argument (is ambiguous|missing)/.exec(
      (e as Error).message,
    );
    if (missing) {
      const [, flag, why] = missing;
      const hint = why === "missing" ? "" : ` (one starting with '-' is written ${flag}=VALUE)`;
      throw new TypeError(`${prefix}${flag} needs a value${hint}`);
    }
    throw new TypeError(`${prefix}${(e as Error).message}`);
  }
  const max = options.maxPositionals ?? Infinity;
  if (flags.positionals.length > max && flags.values.help !== true) {
    const extra = flags.positionals.slice(max).map((p) => `'${p}'`).join(", ");
    const takes = max === 0
      ? "no positional arguments"
      : `at most ${max} positional argument${max === 1 ? "" : "s"}`;
    throw new TypeError(
      `${prefix}unexpected argument${
        flags.positionals.length - max > 1 ? "s" : ""
      } ${extra} (${command} takes ${takes}; see ${program} --help)`,
    );
  }
  return flags;
}

/** A single-valued flag given twice with different values (see {@linkcode refuseRepeats}). */
class RepeatedFlagError extends Error {}

/**
 * Refuses a flag that takes one value given again with another (`--data a.txt --data b.txt`):
 * one of the two would be ignored without a word. The same value repeated is harmless.
 */
function refuseRepeats(
  tokens: readonly { kind: string; name?: string; value?: string }[] | undefined,
  options: Record<string, { type: "string" | "boolean"; multiple?: boolean }>,
  prefix: string,
): void {
  const seen = new Map<string, string>();
  for (const t of tokens ?? []) {
    if (t.kind !== "option" || t.name === undefined || t.value === undefined) continue;
    const o = options[t.name];
    if (o === undefined || o.type !== "string" || o.multiple) continue;
    const first = seen.get(t.name);
    if (first === undefined) seen.set(t.name, t.value);
    else if (first !== t.value) {
      throw new RepeatedFlagError(
        `${prefix}--${t.name} is given twice ('${first}' and '${t.value}'): give it once`,
      );
    }
  }
}

/**
 * A string flag, or `dflt`.
 *
 * @example
 * ```ts
 * import { stringFlag } from "./args.ts";
 * console.log(stringFlag({ values: {}, positionals: [] }, "out", "model.tsm")); // "model.tsm"
 * ```
 */
export function stringFlag(f: Flags, name: string, dflt?: string): string | undefined {
  const v = f.values[name];
  if (v === undefined) return dflt;
  if (typeof v !== "string") throw new TypeError(`--${name} needs a value`);
  return v;
}

/**
 * A required string flag.
 *
 * @example
 * ```ts
 * import { requiredFlag } from "./args.ts";
 * try {
 *   requiredFlag({ values: {}, positionals: [] }, "state-dir", "export");
 * } catch (e) {
 *   console.log((e as Error).message); // tagstream export: --state-dir is required
 * }
 * ```
 */
export function requiredFlag(f: Flags, name: string, command: string): string {
  const v = stringFlag(f, name);
  if (v === undefined || v === "") {
    throw new TypeError(`tagstream ${command}: --${name} is required`);
  }
  return v;
}

/**
 * An integer flag within `[min, max]`, or `dflt`.
 *
 * @example
 * ```ts
 * import { intFlag } from "./args.ts";
 * console.log(intFlag({ values: { port: "8080" }, positionals: [] }, "port", 0, 0, 65535)); // 8080
 * try {
 *   intFlag({ values: { port: "x" }, positionals: [] }, "port", 0, 0, 65535);
 * } catch (e) {
 *   console.log((e as Error).message); // --port must be an integer in [0, 65535], got 'x'
 * }
 * ```
 */
export function intFlag(
  f: Flags,
  name: string,
  dflt: number | undefined,
  min = -Infinity,
  max = Infinity,
): number | undefined {
  return boundedFlag(f, name, dflt, min, max, true);
}

/**
 * A finite number flag within `[min, max]`, or `dflt`.
 *
 * @example
 * ```ts
 * import { numberFlag } from "./args.ts";
 * console.log(numberFlag({ values: { t: "2.5" }, positionals: [] }, "t", 1, 0)); // 2.5
 * ```
 */
export function numberFlag(
  f: Flags,
  name: string,
  dflt: number | undefined,
  min = -Infinity,
  max = Infinity,
): number | undefined {
  return boundedFlag(f, name, dflt, min, max, false);
}

/**
 * An integer flag within `[min, max]` that may also be written with an exponent (`1e6`,
 * `2.5e3`: the sizes and counts of the benchmarks), never as `0x10`, `1.5` or with blanks; or
 * `dflt`.
 *
 * @example
 * ```ts
 * import { countFlag } from "./args.ts";
 * console.log(countFlag({ values: { rows: "1e5" }, positionals: [] }, "rows", 10, 1)); // 100000
 * try {
 *   countFlag({ values: { rows: "0x10" }, positionals: [] }, "rows", 10, 1, 1e6);
 * } catch (e) {
 *   console.log((e as Error).message); // --rows must be an integer in [1, 1000000], got '0x10'
 * }
 * ```
 */
export function countFlag(
  ...[f, name, dflt, min = -Infinity, max = Infinity]: Parameters<typeof intFlag>
): number | undefined {
  return boundedFlag(f, name, dflt, min, max, true, DECIMAL_NUMBER);
}

/**
 * A comma-separated list flag (`--sizes 1e3,1e4`), each entry (blanks around it trimmed) read
 * by `read` as if it were the flag's only value (so a bad entry is named with the flag and its
 * limit), or `dflt`. An empty value or entry (`''`, `1e3,,1e4`) is a RangeError naming the flag.
 *
 * @example
 * ```ts
 * import { countFlag, type Flags, listFlag } from "./args.ts";
 * const f = { values: { sizes: "1e3, 1e4", bad: "1e3,,1e4" }, positionals: [] };
 * const read = (g: Flags, name: string) => countFlag(g, name, undefined, 1)!;
 * console.log(listFlag(f, "sizes", [10], read)); // [ 1000, 10000 ]
 * try {
 *   listFlag(f, "bad", [10], read);
 * } catch (e) {
 *   console.log((e as Error).message); // --bad has an empty entry: '1e3,,1e4'
 * }
 * ```
 */
export function listFlag<T>(
  f: Flags,
  name: string,
  dflt: T[],
  read: (entry: Flags, name: string) => T,
): T[] {
  const v = stringFlag(f, name);
  if (v === undefined) return dflt;
  if (v.trim() === "") throw new RangeError(`--${name} is empty: give a comma-separated list`);
  return v.split(",").map((entry) => {
    const value = entry.trim();
    if (value === "") throw new RangeError(`--${name} has an empty entry: '${v}'`);
    return read({ values: { [name]: value }, positionals: [] }, name);
  });
}

/**
 * A token that is a negative number (`-1`, `-0.5`, `-.5`, `-1e-3`): a flag's value, not a flag.
 *
 * @example
 * ```ts
 * import { NEGATIVE_NUMBER } from "./args.ts";
 * console.log(NEGATIVE_NUMBER.test("-1"), NEGATIVE_NUMBER.test("--seed")); // true false
 * ```
 */
export const NEGATIVE_NUMBER: RegExp = /^-(\d|\.\d)/;
/** Plain decimal integers (no `0x10`, `1e3`, `1.0`, blanks). */
/**
 * A plain decimal integer, optionally signed (no exponent, no fraction, no spaces).
 *
 * @example
 * ```ts
 * import { DECIMAL_INT } from "./args.ts";
 * console.log(DECIMAL_INT.test("-12"), DECIMAL_INT.test("1e3")); // true false
 * ```
 */
export const DECIMAL_INT: RegExp = /^[+-]?\d+$/;
/**
 * Plain decimal numbers, the grammar of the number flags (no `0x10`, `Infinity`, blanks).
 *
 * @example
 * ```ts
 * import { DECIMAL_NUMBER } from "./args.ts";
 * console.log(DECIMAL_NUMBER.test("1.5e3"), DECIMAL_NUMBER.test("0x10")); // true false
 * ```
 */
export const DECIMAL_NUMBER: RegExp = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** What a bounded flag must be: "an integer in [0, 10]", "a number >= 0", "an integer". */
function flagKind(integer: boolean, min: number, max: number): string {
  const kind = integer ? "an integer" : "a number";
  if (min > -Infinity && max < Infinity) return `${kind} in [${min}, ${max}]`;
  if (min > -Infinity) return `${kind} >= ${min}`;
  if (max < Infinity) return `${kind} <= ${max}`;
  return kind;
}

/**
 * A number flag within `[min, max]` (an integer when `integer`) written in `grammar` (by default
 * plain decimal integers or numbers), or `dflt`.
 */
function boundedFlag(
  f: Flags,
  name: string,
  dflt: number | undefined,
  min: number,
  max: number,
  integer: boolean,
  grammar = integer ? DECIMAL_INT : DECIMAL_NUMBER,
): number | undefined {
  const v = stringFlag(f, name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (
    !grammar.test(v) ||
    !(integer ? Number.isSafeInteger(n) : Number.isFinite(n)) || n < min || n > max
  ) {
    throw new RangeError(`--${name} must be ${flagKind(integer, min, max)}, got '${v}'`);
  }
  return n;
}
