/**
 * The model and learner flags every learning command accepts (`--model`, `--seed`, `--option
 * KEY=VALUE`, the minibatch, text and size-limit flags) and what they become: the
 * {@linkcode LearnerOptions} of a run, the help texts, the size limits of `train`.
 *
 * @module
 */
import type { LearnerOptions } from "../../service/learner.ts";
import { loadFactory, MODEL_NAMES } from "../../models/registry.ts";
import { DECIMAL_INT, type Flags, type FlagSpec, intFlag, stringFlag } from "./args.ts";

/**
 * `--option key=value` pairs (repeatable) as model options, the values kept as the strings
 * given: the model's factory parses each by its declared kind (`rank=16` → 16, `bias=false` →
 * false) and rejects an unknown key or a bad value, naming it (see src/models/settings.ts). A
 * key given twice with different values is a TypeError naming it (one would be ignored).
 *
 * @example
 * ```ts
 * import { modelOptionFlags } from "./learner_flags.ts";
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
 * import { usageWithModelOptions } from "./learner_flags.ts";
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
 * import { DEFAULT_MODEL } from "./learner_flags.ts";
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
 * import { modelNamesUsage } from "./learner_flags.ts";
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
  --seed S                model seed, an integer in [0, 2^32 - 1] (default 0; knn and
                          popularity draw no random numbers)
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
 * import { TRAIN_LIMITS } from "./learner_flags.ts";
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
 * import { checkSizeOptions } from "./learner_flags.ts";
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

/**
 * The learner options given by {@linkcode LEARNER_FLAGS}.
 *
 * @example
 * ```ts
 * import { learnerOptionFlags } from "./learner_flags.ts";
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
 * import { seededModelOptions } from "./learner_flags.ts";
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
