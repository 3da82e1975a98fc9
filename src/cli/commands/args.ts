/**
 * Shared command-line plumbing of `tagstream`: the command contract, strict flag parsing with
 * `node:util` `parseArgs`, typed flag readers with errors naming the flag, and the model and
 * learner flags every learning command accepts.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { isGzipFile } from "../../data/file_lines.ts";
import type { LearnerOptions } from "../../service/learner.ts";
import { loadFactory, MODEL_NAMES } from "../../models/registry.ts";

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
const DECIMAL_INT = /^[+-]?\d+$/;
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

/**
 * `--option key=value` pairs (repeatable) as model options, the values kept as the strings
 * given: the model's factory parses each by its declared kind (`rank=16` → 16, `bias=false` →
 * false) and rejects an unknown key or a bad value, naming it (see src/models/settings.ts). A
 * key given twice with different values is a TypeError naming it (one would be ignored).
 *
 * @example
 * ```ts
 * import { modelOptionFlags } from "./args.ts";
 * const f = { values: { option: ["rank=16", "optimizer=sgd", "bias=false"] }, positionals: [] };
 * console.log(modelOptionFlags(f)); // { rank: "16", optimizer: "sgd", bias: "false" }
 * ```
 */
export function modelOptionFlags(f: Flags): Record<string, string> {
  const out: Record<string, string> = {};
  const list = f.values.option;
  if (list === undefined) return out;
  for (const pair of list as string[]) {
    const i = pair.indexOf("=");
    if (i <= 0) throw new TypeError(`--option must be key=value, got '${pair}'`);
    const key = pair.slice(0, i), value = pair.slice(i + 1);
    // a key given twice with two values: one of them would be ignored without a word
    if (Object.hasOwn(out, key) && out[key] !== value) {
      throw new TypeError(
        `--option ${key} is given twice ('${out[key]}' and '${value}'): give it once`,
      );
    }
    out[key] = value;
  }
  return out;
}

/**
 * The help text of a command, followed, when `--model NAME` is given, by the options that model
 * declares (one line each: kind, range, default, meaning).
 *
 * @example
 * ```ts
 * import { usageWithModelOptions } from "./args.ts";
 * const text = await usageWithModelOptions("usage: train", { values: { model: "knn" }, positionals: [] });
 * console.log(text.split("\n")[2]); // Options of --model knn (--option KEY=VALUE):
 * ```
 */
export async function usageWithModelOptions(usage: string, f: Flags): Promise<string> {
  const name = stringFlag(f, "model");
  if (name === undefined) return usage;
  const settings = (await loadFactory(name)).settings;
  if (settings === undefined) return usage;
  const lines = settings.help().split("\n").map((l) => `  ${l}`);
  return `${usage}\n\nOptions of --model ${name} (--option KEY=VALUE):\n${lines.join("\n")}`;
}

/** Flags of the model and the learner, shared by `train` and `serve`. */
export const LEARNER_FLAGS: FlagSpec = {
  model: "string",
  seed: "string",
  option: "multiple",
  "batch-size": "string",
  window: "string",
  "feature-keys": "string",
  "hash-dim": "string",
  "hash-seed": "string",
  "hash-signed": "boolean",
  "max-features": "string",
  "max-labels": "string",
  "max-line-bytes": "string",
  text: "boolean",
  "text-only": "boolean",
  ngrams: "string",
  "min-token-length": "string",
  "no-lowercase": "boolean",
  "strict-fields": "boolean",
};

/**
 * The model `train` and `serve` learn without `--model`.
 *
 * @example
 * ```ts
 * import { DEFAULT_MODEL } from "./args.ts";
 * console.log(DEFAULT_MODEL); // leml
 * ```
 */
export const DEFAULT_MODEL = "leml";

/**
 * The model names for a `--model NAME` help line: every name of `MODEL_NAMES`
 * (src/models/registry.ts), in its order, `dflt` marked as the default.
 *
 * @example
 * ```ts
 * import { modelNamesUsage } from "./args.ts";
 * console.log(modelNamesUsage("leml")); // leml (default), sleec, coembed, br, ova, knn, popularity
 * ```
 */
export function modelNamesUsage(dflt: string): string {
  if (!(MODEL_NAMES as readonly string[]).includes(dflt)) {
    throw new TypeError(`default model '${dflt}' is not one of ${MODEL_NAMES.join(", ")}`);
  }
  return MODEL_NAMES.map((n) => n === dflt ? `${n} (default)` : n).join(", ");
}

/** Help text of {@linkcode LEARNER_FLAGS}. */
export const LEARNER_USAGE = `Model and learner:
  --model NAME            ${modelNamesUsage(DEFAULT_MODEL)}
  --seed S                model seed, an integer in [0, 2^32 - 1] (default 0)
  --option KEY=VALUE      model option, repeatable (e.g. --model leml --option rank=32, or
                          --model br --option learningRate=0.05); an unknown key, a bad
                          value or a key the other options leave unused is an error naming
                          what is allowed; --model NAME --help lists the model's options
  --batch-size B          events per learned minibatch (default 32)
  --window N              prequential window, events (default 1000)
  --feature-keys MODE     event feature keys: index (default), name (a growing vocabulary) or
                          hash (names hashed into --hash-dim columns: fixed memory; the model
                          file carries the hashing parameters, so the SDK takes names)
  --hash-dim N            columns of --feature-keys hash (default 262144)
  --hash-seed S           hash seed (default 0)
  --hash-signed           signed hashing (colliding features tend to cancel)
  --max-line-bytes N      longest event line (default 65536)
  --text                  read the events' raw "text" (beside "features"): Unicode words
                          (NFKC, lower-cased) and word n-grams become named features (the
                          model file carries the tokenizer, so the SDK takes {text}); implies
                          --feature-keys hash unless --feature-keys name is given
  --text-only             --text, and ignore "features" given beside a text
  --ngrams N              longest word n-gram of --text (default 2; 1: words only)
  --min-token-length N    shortest word of --text, in characters (default 1)
  --no-lowercase          keep the case of --text words
  --strict-fields         reject events with fields other than id, features, labels,
                          negatives (and text with --text); default: ignore them`;

/**
 * `train`'s default `--max-features` and `--max-labels` (the event parser's: 2^20 and 2^16;
 * `serve` has its own, smaller, feature default).
 *
 * @example
 * ```ts
 * import { TRAIN_LIMITS } from "./args.ts";
 * console.log(TRAIN_LIMITS.maxFeatures, TRAIN_LIMITS.maxLabels); // 1048576 65536
 * ```
 */
export const TRAIN_LIMITS: { readonly maxFeatures: number; readonly maxLabels: number } = Object
  .freeze({ maxFeatures: 1 << 20, maxLabels: 1 << 16 });

/** Help text of `train`'s size limits (`serve` documents its own with its growth limits). */
export const TRAIN_LIMITS_USAGE =
  `Size limits (an XC/LIBSVM file or --option numFeatures/numLabels over one is refused
before anything is allocated; an event over one is rejected):
  --max-features N        largest feature index + 1 / feature vocabulary (default ${TRAIN_LIMITS.maxFeatures})
  --max-labels N          largest label vocabulary (default ${TRAIN_LIMITS.maxLabels})`;

/**
 * Refuses `--option numFeatures=N` / `--option numLabels=N` above the `--max-features` /
 * `--max-labels` limit (a RangeError naming the option, the limit and the flag that raises it),
 * before a model of that size is allocated. Values that are not plain integers are left to the
 * model's own checks.
 *
 * @example
 * ```ts
 * import { checkSizeOptions } from "./args.ts";
 * checkSizeOptions({ numFeatures: "100" }, { maxFeatures: 1000, maxLabels: 10 }); // fine
 * try {
 *   checkSizeOptions({ numFeatures: "999999999" }, { maxFeatures: 1000, maxLabels: 10 });
 * } catch (e) {
 *   console.log((e as Error).message); // --option numFeatures=999999999 is above --max-features 1000 (raise the limit with --max-features N)
 * }
 * ```
 */
export function checkSizeOptions(
  modelOptions: Readonly<Record<string, unknown>>,
  limits: { readonly maxFeatures: number; readonly maxLabels: number },
): void {
  const sizes = [
    ["numFeatures", "max-features", limits.maxFeatures],
    ["numLabels", "max-labels", limits.maxLabels],
  ] as const;
  for (const [key, flag, max] of sizes) {
    const v = modelOptions[key];
    const n = typeof v === "number"
      ? v
      : typeof v === "string" && DECIMAL_INT.test(v)
      ? Number(v)
      : NaN;
    if (n > max) {
      throw new RangeError(
        `--option ${key}=${v} is above --${flag} ${max} (raise the limit with --${flag} N)`,
      );
    }
  }
}

/** The directory part of `path` (`.` for a bare name). */
function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  const i = trimmed.lastIndexOf("/");
  return i < 0 ? "." : i === 0 ? "/" : trimmed.slice(0, i);
}

/**
 * `Deno.stat(path)`, or undefined when nothing is there (other errors are thrown as they are).
 *
 * @example
 * ```ts
 * import { statOrUndefined } from "./args.ts";
 * console.log(await statOrUndefined("/no/such/path")); // undefined
 * ```
 */
export async function statOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/**
 * What an existing file at an output path must already be for {@linkcode checkOutFile} to
 * replace it: a Tagstream model file (`"model"`) or an SVG image (`"svg"`).
 *
 * @example
 * ```ts
 * import type { OutKind } from "./args.ts";
 * const kind: OutKind = "model";
 * console.log(kind); // "model"
 * ```
 */
export type OutKind = "model" | "svg";

/** `"magic": "TAGSTREAM"`, the first entry of every model file (two msgpack fixstrs). */
const MODEL_MAGIC = Uint8Array.of(
  0xa5,
  ...new TextEncoder().encode("magic"),
  0xa9,
  ...new TextEncoder().encode("TAGSTREAM"),
);

/** Whether `head` (the first bytes of a file) is the start of a file of `kind`. */
function looksLike(head: Uint8Array, kind: OutKind): boolean {
  if (kind === "svg") {
    const t = new TextDecoder().decode(head).replace(/^\uFEFF/, "").trimStart();
    return t.startsWith("<svg") || t.startsWith("<?xml");
  }
  // after the map tag: 1, 3 or 5 bytes (fixmap, map16, map32)
  return [1, 3, 5].some((at) => MODEL_MAGIC.every((b, i) => head[at + i] === b));
}

/**
 * An OS error's message without its `(os error N)` and the call after it, for messages that name
 * the file themselves.
 *
 * @example
 * ```ts
 * import { osReason } from "./args.ts";
 * const e = new Error("Is a directory (os error 21): read '/tmp'");
 * console.log(osReason(e)); // "Is a directory"
 * ```
 */
export function osReason(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s*\(os error \d+\).*$/s, "");
}

/** The first `n` bytes of the file `path`. */
async function readHead(path: string, n: number): Promise<Uint8Array> {
  const f = await Deno.open(path, { read: true });
  try {
    const buf = new Uint8Array(n);
    let got = 0;
    while (got < n) {
      const r = await f.read(buf.subarray(got));
      if (r === null) break;
      got += r;
    }
    return buf.subarray(0, got);
  } finally {
    f.close();
  }
}

/** Whether `a` and `b` (both existing) are the same file (a hard or symbolic link included). */
async function sameFile(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([statOrUndefined(a), statOrUndefined(b)]);
  if (sa === undefined || sb === undefined) return false;
  if (sa.ino !== null && sb.ino !== null && sa.dev === sb.dev) return sa.ino === sb.ino;
  return await Deno.realPath(a) === await Deno.realPath(b);
}

/**
 * Checks, before any work, that `path` (the value of `--FLAG`) can be written as a file, so that
 * no work is lost to a write that fails at the end: not empty, not `-` (the summary goes to
 * stdout), not a directory or a device, in a directory that exists and where a file can be
 * created (tried, then removed). With `inputs`, it must not be one of the files the run reads
 * (`what` names each: `--out` the same as `--data` would destroy the data); with `kind`, an existing file is only
 * replaced when it already is a file of that kind (a model file, an SVG image) or empty: a data
 * file given as `--out` by mistake is kept. With `kind: "svg"` the path must end in `.svg` (no
 * SVG text in a `.png`). Throws a TypeError naming the flag and the path.
 *
 * @example
 * ```ts
 * import { checkOutFile } from "./args.ts";
 * const dir = await Deno.makeTempDir();
 * await checkOutFile(`${dir}/model.tsm`); // fine
 * await checkOutFile(dir).catch((e) => console.log(e.message)); // --out /tmp/... is a directory: give a file path
 * await checkOutFile(`${dir}/nodir/m.tsm`).catch((e) => console.log(e.message)); // --out /tmp/.../nodir/m.tsm: directory ... does not exist
 * await Deno.writeTextFile(`${dir}/train.txt`, "1 1 1\n0 0:1\n");
 * const data = { what: "--data train.txt", path: `${dir}/train.txt` };
 * await checkOutFile(`${dir}/train.txt`, "out", { inputs: [data] })
 *   .catch((e) => console.log(e.message)); // --out /tmp/.../train.txt is the same file as --data train.txt: ...
 * await checkOutFile(`${dir}/train.txt`, "out", { kind: "model" })
 *   .catch((e) => console.log(e.message)); // --out /tmp/.../train.txt exists and is not a Tagstream model file: ...
 * await checkOutFile(`${dir}/curve.png`, "plot", { kind: "svg" })
 *   .catch((e) => console.log(e.message)); // --plot /tmp/.../curve.png: the plot is written as SVG: give a file name ending in .svg (e.g. /tmp/.../curve.svg)
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkOutFile(
  path: string,
  flag = "out",
  options: { inputs?: readonly { what: string; path: string }[]; kind?: OutKind } = {},
): Promise<void> {
  if (path === "") throw new TypeError(`--${flag} is empty: give the file to write`);
  if (path === "-") {
    throw new TypeError(
      `--${flag} -: the file cannot be written to stdout (the summary goes there): give a file path`,
    );
  }
  // a path under a file (`out/m.tsm`, `out` a file) is reported with its directory below
  const info = await statOrUndefined(path).catch((e) => {
    if (e instanceof Deno.errors.NotADirectory) return undefined;
    throw new TypeError(`--${flag} ${path}: cannot be written (${osReason(e)})`);
  });
  if (info?.isDirectory) {
    throw new TypeError(`--${flag} ${path} is a directory: give a file path`);
  }
  if (info !== undefined && !info.isFile) {
    throw new TypeError(
      `--${flag} ${path} is not a regular file (a device, pipe or socket): give a file path`,
    );
  }
  const parent = parentOf(path);
  const dir = await statOrUndefined(parent).catch((e) => {
    throw new TypeError(`--${flag} ${path}: directory ${parent} cannot be used (${osReason(e)})`);
  });
  if (dir === undefined) {
    throw new TypeError(`--${flag} ${path}: directory ${parent} does not exist`);
  }
  if (!dir.isDirectory) throw new TypeError(`--${flag} ${path}: ${parent} is not a directory`);
  if (info !== undefined) {
    for (const input of options.inputs ?? []) {
      if (input.path === "-" || /^(https?|file):\/\//.test(input.path)) continue;
      if (await sameFile(path, input.path)) {
        throw new TypeError(
          `--${flag} ${path} is the same file as ${input.what}: writing it would destroy the ` +
            `input; give another path`,
        );
      }
    }
    if (options.kind !== undefined && info.size > 0) {
      let head: Uint8Array;
      try {
        head = await readHead(path, 64);
      } catch (e) {
        throw new TypeError(
          `--${flag} ${path}: cannot read the file it would replace (${osReason(e)})`,
        );
      }
      if (!looksLike(head, options.kind)) {
        const what = options.kind === "model" ? "a Tagstream model file" : "an SVG image";
        throw new TypeError(
          `--${flag} ${path} exists and is not ${what}: not replacing it (remove it first, or ` +
            `give another path)`,
        );
      }
    }
  }
  if (options.kind === "svg" && !/\.svg$/i.test(path)) {
    // (an image viewer given x.png would find SVG text in it)
    throw new TypeError(
      `--${flag} ${path}: the plot is written as SVG: give a file name ending in .svg (e.g. ` +
        `${path.replace(/(\.[^./]*)?$/, ".svg")})`,
    );
  }
  // a file can be created there: tried now rather than after the work
  const probe = `${parent}/.tagstream-probe-${crypto.randomUUID()}`;
  try {
    (await Deno.open(probe, { write: true, createNew: true })).close();
  } catch (e) {
    throw new TypeError(`--${flag} ${path}: cannot create a file in ${parent} (${osReason(e)})`);
  }
  await Deno.remove(probe).catch(() => {});
}

/**
 * Checks, before any work, that `path` (the value of `--FLAG`) is a file to read: not empty,
 * not a directory, and existing unless `mayBeMissing` (a followed file may appear later). `-`
 * (stdin) and URLs are not checked. Throws a TypeError naming the flag and the path; resolves
 * with whether the file exists.
 *
 * @example
 * ```ts
 * import { checkInputFile } from "./args.ts";
 * const dir = await Deno.makeTempDir();
 * await checkInputFile(dir, "data").catch((e) => console.log(e.message)); // --data /tmp/... is a directory, not a file
 * console.log(await checkInputFile(`${dir}/later.ndjson`, "follow", true)); // false
 * await Deno.remove(dir);
 * ```
 */
export async function checkInputFile(
  path: string,
  flag: string,
  mayBeMissing = false,
): Promise<boolean> {
  if (path === "") throw new TypeError(`--${flag} is empty: give a file`);
  if (path === "-" || /^(https?|file):\/\//.test(path)) return true;
  let info: Deno.FileInfo | undefined;
  try {
    info = await statOrUndefined(path);
  } catch (e) {
    throw new TypeError(`--${flag} ${path}: ${osReason(e)}`);
  }
  if (info === undefined) {
    if (mayBeMissing) return false;
    throw new TypeError(`--${flag} ${path}: no such file`);
  }
  if (info.isDirectory) throw new TypeError(`--${flag} ${path} is a directory, not a file`);
  return true;
}

/**
 * Checks, before any work, the file of `--follow`: as {@linkcode checkInputFile} (it may not exist
 * yet), and not gzip-compressed (a gzip file is read once, whole; followed, the service would
 * report it and learn nothing from it for ever). Resolves with whether the file exists.
 *
 * @example
 * ```ts
 * import { checkFollowFile } from "./args.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeFile(`${dir}/e.ndjson.gz`, Uint8Array.of(0x1f, 0x8b, 8, 0));
 * await checkFollowFile(`${dir}/e.ndjson.gz`).catch((e) => console.log(e.message.slice(-44))); // a followed file must be plain (uncompressed)
 * console.log(await checkFollowFile(`${dir}/later.ndjson`)); // false
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkFollowFile(path: string): Promise<boolean> {
  const exists = await checkInputFile(path, "follow", true);
  if (exists && path !== "-" && !/^(https?|file):\/\//.test(path) && await isGzipFile(path)) {
    throw new TypeError(
      `--follow ${path} is gzip-compressed: it can be read once (train --data ${path}), not ` +
        "followed; a followed file must be plain (uncompressed)",
    );
  }
  return exists;
}

/**
 * Refuses, before any work, an NDJSON event file (`--data` or `--follow` of `train`, `--follow`
 * of `serve`) that is stdin (`-`), a URL or, when it exists, not a regular file (a pipe such as
 * `<(zcat …)`, a device): the learning service reads events by position and keeps an offset into
 * the file to resume from (and a pipe would block it when it stops). A TypeError naming the flag.
 *
 * @example
 * ```ts
 * import { checkEventFile } from "./args.ts";
 * await checkEventFile("-", "follow").catch((e) => console.log(e.message)); // --follow -: NDJSON events are read from a regular file ...
 * await checkEventFile("/dev/null", "data").catch((e) => console.log(e.message)); // --data /dev/null is not a regular file ...
 * await checkEventFile("/no/such/events.ndjson", "follow"); // fine: a followed file may appear later
 * ```
 */
export async function checkEventFile(path: string, flag: string): Promise<void> {
  const why = "NDJSON events are read from a regular file (the state keeps an offset into it)";
  const fix = "save the events to a file and give its path";
  if (path === "-" || /^(https?|file):\/\//.test(path)) {
    throw new TypeError(`--${flag} ${path}: ${why}; ${fix}`);
  }
  const info = await statOrUndefined(path).catch(() => undefined);
  if (info !== undefined && !info.isFile && !info.isDirectory) {
    throw new TypeError(`--${flag} ${path} is not a regular file (a pipe?): ${why}; ${fix}`);
  }
}

/**
 * Checks, before any work, that `--state-dir` is a directory or does not exist yet (it is then
 * created), and not `-` (no stream is a state directory). Throws a TypeError naming the flag and
 * the path.
 *
 * @example
 * ```ts
 * import { checkStateDir } from "./args.ts";
 * const file = await Deno.makeTempFile();
 * await checkStateDir(file).catch((e) => console.log(e.message)); // --state-dir /tmp/... is not a directory
 * await Deno.remove(file);
 * ```
 */
export async function checkStateDir(path: string): Promise<void> {
  if (path === "") throw new TypeError("--state-dir is empty: give a directory");
  if (path === "-") {
    // no stream: the command would create (or read) a directory named '-' here
    throw new TypeError(
      "--state-dir - is not stdin: give the state directory's path (./- for a directory " +
        "named '-')",
    );
  }
  let info: Deno.FileInfo | undefined;
  try {
    info = await statOrUndefined(path);
  } catch (e) {
    throw new TypeError(`--state-dir ${path}: ${osReason(e)}`);
  }
  if (info !== undefined && !info.isDirectory) {
    throw new TypeError(`--state-dir ${path} is not a directory`);
  }
}

/**
 * The learner options given by {@linkcode LEARNER_FLAGS}.
 *
 * @example
 * ```ts
 * import { learnerOptionFlags } from "./args.ts";
 * const o = learnerOptionFlags({ values: { "batch-size": "64", option: ["rank=8"] }, positionals: [] });
 * console.log(o.batchSize, o.modelOptions); // 64 { seed: 0, rank: "8" }
 * ```
 */
export function learnerOptionFlags(f: Flags): LearnerOptions {
  const textOnly = f.values["text-only"] === true;
  const readText = textOnly || f.values.text === true;
  const textFlags = ["ngrams", "min-token-length", "no-lowercase"].filter((k) =>
    f.values[k] !== undefined
  );
  if (!readText && textFlags.length > 0) throw new TypeError(`--${textFlags[0]} needs --text`);
  const keys = stringFlag(f, "feature-keys", readText ? "hash" : "index");
  if (readText && keys === "index") {
    throw new TypeError("--text needs --feature-keys name or hash (words are names)");
  }
  if (keys !== "index" && keys !== "name" && keys !== "hash") {
    throw new TypeError(`--feature-keys must be index, name or hash, got '${keys}'`);
  }
  const hashFlags = ["hash-dim", "hash-seed", "hash-signed"].filter((k) =>
    f.values[k] !== undefined
  );
  if (keys !== "hash" && hashFlags.length > 0) {
    throw new TypeError(`--${hashFlags[0]} needs --feature-keys hash`);
  }
  const hashing = keys === "hash"
    ? {
      dim: intFlag(f, "hash-dim", 1 << 18, 1, 2 ** 31 - 1)!,
      seed: intFlag(f, "hash-seed", 0, 0, 2 ** 32 - 1)!,
      ...(f.values["hash-signed"] === true ? { signed: true } : {}),
    }
    : undefined;
  return {
    batchSize: intFlag(f, "batch-size", 32, 1, 1 << 16),
    windowSize: intFlag(f, "window", 1000, 1, 1 << 24),
    limits: {
      featureKeys: keys === "hash" ? "name" : keys,
      ...(hashing ? { hashing } : {}),
      maxFeatures: intFlag(f, "max-features", undefined, 1, 2 ** 31 - 1),
      maxLabels: intFlag(f, "max-labels", undefined, 1, 2 ** 31 - 1),
      maxLineBytes: intFlag(f, "max-line-bytes", undefined, 16, 1 << 30),
      ...(readText
        ? {
          text: {
            ngrams: intFlag(f, "ngrams", 2, 1, 4)!,
            ...(f.values["no-lowercase"] === true ? { lowercase: false } : {}),
            ...(f.values["min-token-length"] !== undefined
              ? { minLength: intFlag(f, "min-token-length", 1, 1, 64)! }
              : {}),
            ...(textOnly ? { ignoreFeatures: true } : {}),
          },
        }
        : {}),
      ...(f.values["strict-fields"] === true ? { strictFields: true } : {}),
    },
    modelOptions: seededModelOptions(f),
  };
}

/**
 * `--seed` (default 0) and the `--option` pairs ({@linkcode modelOptionFlags}) as model options:
 * `--option seed=S` beside a `--seed` of another value is a TypeError (one of the two would be
 * ignored). Shared by `train`, `serve` and `deno task demo`.
 *
 * @example
 * ```ts
 * import { seededModelOptions } from "./args.ts";
 * const f = { values: { seed: "7", option: ["rank=8"] }, positionals: [] };
 * console.log(seededModelOptions(f)); // { seed: 7, rank: "8" }
 * try {
 *   seededModelOptions({ values: { seed: "7", option: ["seed=8"] }, positionals: [] });
 * } catch (e) {
 *   console.log((e as Error).message); // --seed 7 and --option seed=8 disagree: give the seed once
 * }
 * ```
 */
export function seededModelOptions(f: Flags): Record<string, unknown> {
  // every model takes a seed in [0, 2³² − 1] (src/models/settings.ts SEED_SPEC): named as the flag
  const seed = intFlag(f, "seed", 0, 0, 2 ** 32 - 1);
  const options = modelOptionFlags(f);
  if (f.values.seed !== undefined && Object.hasOwn(options, "seed")) {
    if (options.seed !== f.values.seed) {
      throw new TypeError(
        `--seed ${f.values.seed} and --option seed=${options.seed} disagree: give the seed once`,
      );
    }
  }
  return { seed, ...options };
}
