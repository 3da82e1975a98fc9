/**
 * The text tokenizer: how a raw `text` becomes named features, shared by the trainer (the
 * NDJSON readers and the learning service import this module) and the SDK, so a model trained
 * on text answers the same text identically everywhere. Its settings travel in the model file
 * (`featureSpace.text`, format version 3).
 *
 * Definition, in order:
 *
 * 1. `normalize` (default `"NFKC"`): the text is brought to Unicode NFKC (`String.prototype
 *    .normalize`: composed accents, full-width forms and ligatures folded), or left as is
 *    (`"none"`).
 * 2. `lowercase` (default true): `String.prototype.toLowerCase` (locale-independent).
 * 3. Words: the matches, left to right, of
 *    `\p{Ideographic} | \p{Extended_Pictographic} | [\p{L}\p{N}\p{M} except \p{Ideographic}]+`:
 *    each ideograph (CJK Han) and each pictographic symbol (emoji) is a word of its own; other
 *    runs of letters, digits and combining marks are words; everything else (spaces,
 *    punctuation, symbols, controls) separates words and is dropped.
 * 4. `minLength` (default 1): words shorter than this many code points are dropped.
 * 5. `ngrams` (default 1, at most 4): besides each word, every run of 2 … `ngrams` consecutive
 *    kept words is a feature, its words joined by one space (a space never occurs in a word).
 *
 * A text's features are its words and n-grams with their counts. Beside `features` (named
 * values), the counts are added to the features' values by name, in float64, features first (in
 * their key order) then the text's features in order of first occurrence; with `ignoreFeatures`
 * the named features are dropped. The names then map to columns through the model's vocabulary
 * or hashing feature space like any named feature.
 *
 * @module
 */
import { isArray, isInteger, isNumber, range, U8 } from "./vector.ts";

/**
 * Tokenizer settings (all optional; see the module doc for the definition).
 *
 * @example
 * ```ts
 * import type { TextSettings } from "./tokenizer.ts";
 * const s: TextSettings = { ngrams: 2, minLength: 2 };
 * console.log(s.ngrams); // 2
 * ```
 */
export interface TextSettings {
  /** Unicode normalisation first: `"NFKC"` (default) or `"none"`. */
  readonly normalize?: "NFKC" | "none";
  /** Lower-case the text (default true). */
  readonly lowercase?: boolean;
  /** Longest word n-gram, 1 … 4 (default 1: words only; 2 adds adjacent word pairs). */
  readonly ngrams?: number;
  /** Shortest word kept, in code points, 1 … 64 (default 1). */
  readonly minLength?: number;
  /** Named features given beside a text are ignored (the model learned from text alone). */
  readonly ignoreFeatures?: boolean;
}

const WORD = /\p{Ideographic}|\p{Extended_Pictographic}|[[\p{L}\p{N}\p{M}]--\p{Ideographic}]+/gv;

/**
 * Whether `v` is a map (a msgpack map or a JSON object): an object that is not null, an array
 * or bytes.
 *
 * @example
 * ```ts
 * import { isMap } from "./tokenizer.ts";
 * console.log(isMap({ ngrams: 2 }), isMap([1]), isMap(new Uint8Array(1)), isMap(null)); // true false false false
 * ```
 */
export const isMap = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === "object" && !isArray(v) && !(v instanceof U8);

/**
 * Why `s` is not valid tokenizer settings (a message naming the field), or `undefined`.
 *
 * @example
 * ```ts
 * import { textSettingsError } from "./tokenizer.ts";
 * console.log(textSettingsError({ ngrams: 2 }), textSettingsError({ ngrams: 9 })); // undefined ngrams must be an integer in [1, 4]
 * ```
 */
export const textSettingsError = (s: unknown): string | undefined => {
  if (!isMap(s)) return "must be a map";
  const bool = [true, false];
  // each field: its name, and its values or (an integer field) its largest value
  for (
    const [k, ok] of [
      ["normalize", ["NFKC", "none"]],
      ["lowercase", bool],
      ["ignoreFeatures", bool],
      ["ngrams", 4],
      ["minLength", 64],
    ] as const
  ) {
    // an integer field's largest value (NaN, falsy, for a list of values)
    const v = s[k], hi = +ok;
    const valid = hi
      ? isInteger(v) && (v as number) >= 1 && (v as number) <= hi
      : (ok as unknown[]).includes(v);
    if (v !== undefined && !valid) {
      return hi ? range(k, 1, hi) : `${k} must be ${(ok as unknown[]).join(" or ")}`;
    }
  }
  return undefined;
};

/**
 * The words of `text` (steps 1–4 of the module doc), in order.
 *
 * @example
 * ```ts
 * import { tokenize } from "./tokenizer.ts";
 * console.log(tokenize("Ça coûte 3,50 € — ＡＢＣ!", {})); // [ "ça", "coûte", "3", "50", "abc" ]
 * console.log(tokenize("東京タワー 🙂ok", {})); // [ "東", "京", "タワー", "🙂", "ok" ]
 * ```
 */
export const tokenize = (text: string, s: TextSettings): string[] => {
  if (s.normalize !== "none") text = text.normalize("NFKC");
  if (s.lowercase !== false) text = text.toLowerCase();
  const min = s.minLength ?? 1;
  // a code point takes one or two UTF-16 units
  return (text.match(WORD) ?? []).filter((w) =>
    !(min > 1) || w.length >= 2 * min || [...w].length >= min
  );
};

/**
 * The named features of a text (words and n-grams with their counts) added to `features` (when
 * given and not `ignoreFeatures`; non-numbers skipped) by name: a fresh map, `features` first in
 * key order, then the text's features in order of first occurrence.
 *
 * @example
 * ```ts
 * import { textFeatures } from "./tokenizer.ts";
 * const m = textFeatures("New York, new york!", { ngrams: 2 }, { york: 0.5 });
 * console.log([...m]); // [ [ "york", 2.5 ], [ "new", 2 ], [ "new york", 2 ], [ "york new", 1 ] ]
 * ```
 */
export const textFeatures = (
  text: string,
  s: TextSettings,
  features?: Readonly<Record<string, unknown>>,
): Map<string, number> => {
  const m = new Map<string, number>(), words = tokenize(text, s), n = s.ngrams ?? 1;
  const add = (k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  // (for-in over undefined visits nothing)
  if (!s.ignoreFeatures) {
    for (const k in features) {
      const v = features[k];
      if (isNumber(v)) add(k, v);
    }
  }
  words.forEach((g, i) => {
    add(g, 1);
    for (let j = i + 1; j < i + n && j < words.length; j++) add(g += " " + words[j], 1);
  });
  return m;
};
