/**
 * Training/serving skew of text featurisation, as a property: for random and adversarial texts
 * (combining marks, NFC and NFD, Turkish dotted I, German ß, emoji and surrogate pairs, lone
 * surrogates, CJK, zero-width joiners, full-width digits, RTL marks, very long tokens, only
 * punctuation, the empty string) with named features beside them (some equal to the text's
 * words, some named like the input's own fields), the trainer's row (the NDJSON parser's training
 * row, and the service's `/predict` row through TF-IDF and L2 normalisation) and the SDK's
 * featurizer give the same columns and values bit for bit, for hashing (signed or not) and
 * vocabulary feature spaces and several tokenizer settings; and a row one side refuses, the
 * other refuses too (colliding hashed values adding up past float32 used to be Infinity in the
 * trainer's row; unknown names' values used to add up in the SDK, refusing large ones and
 * accepting values past float32 that cancel).
 */
import { NdjsonParser } from "../../src/data/ndjson.ts";
import { Vocabulary } from "../../src/data/vocabulary.ts";
import { TfIdf } from "../../src/data/tfidf.ts";
import { preprocessRows, type RowPreprocess } from "../../src/data/preprocess.ts";
import type { SparseVector } from "../../src/data/types.ts";
import { featurizer } from "../../sdk/features.ts";
import type { TextSettings } from "../../sdk/tokenizer.ts";
import type { DecodedModel } from "../../sdk/kinds/types.ts";
import { assert, mulberry32 } from "./helpers.ts";

const FRAGMENTS = [
  "Café",
  "CAFE\u0301",
  "e\u0301",
  "\u0301\u0301",
  "İstanbul",
  "ISTANBUL",
  "ıi",
  "Straße",
  "STRASSE",
  "ẞ",
  "👨‍👩‍👧",
  "❤️",
  "👍🏽",
  "🇫🇷",
  "😀",
  "\ud83d",
  "\ude00",
  "東京",
  "タワー",
  "서울",
  "a\u200db",
  "a\u200cb",
  "１２３",
  "①",
  "²",
  "ﬁ",
  "עברית",
  "العربية",
  "\u202e",
  "x".repeat(300),
  "...",
  "!?",
  "",
  " ",
  "\t\n",
  "new",
  "york",
  "New York",
  "ǅ",
  "Ω",
  "K",
  "ß",
  "㎏",
  "\u0000",
  "\ufeff",
];
const RESERVED = ["text", "features", "indices", "values", "0", "17", "__proto__", "constructor"];

function generator(seed: number) {
  const rand = mulberry32(seed);
  const pick = <T>(a: readonly T[]) => a[Math.floor(rand() * a.length)];
  const text = (): string => {
    let s = "";
    for (let i = Math.floor(rand() * 12); i > 0; i--) {
      const r = rand();
      if (r < 0.6) s += pick(FRAGMENTS);
      else if (r < 0.8) s += String.fromCodePoint(Math.floor(rand() * 0x30000));
      else s += pick([" ", ",", "-", "'", "_"]);
      if (rand() < 0.5) s += " ";
    }
    return s;
  };
  const features = (t: string): Record<string, number> | undefined => {
    if (rand() < 0.4) return undefined;
    const words = t.toLowerCase().split(/[\s,]+/).filter((w) => w);
    const f: Record<string, number> = {};
    for (let i = Math.floor(rand() * 5); i > 0; i--) {
      f[rand() < 0.5 && words.length ? pick(words) : pick(RESERVED)] = pick([
        1,
        -1,
        0.5,
        3e38,
        -3e38,
        1e-45,
        0,
        2.5,
        1e30,
      ]);
    }
    return f;
  };
  return { text, features };
}

/** Fixed cases: no words, a long token, every fragment, 17 large values in 16 columns. */
const CRAFTED: { text: string; features?: Record<string, number> }[] = [
  { text: "" },
  { text: "!?… —  ,;" },
  { text: "ab".repeat(50000) + " " + "ab".repeat(50000) },
  { text: FRAGMENTS.join(" "), features: { café: -1, "new york": 2 } },
  { text: FRAGMENTS.join(""), features: { text: 1, features: 2, indices: 3, values: 4 } },
  { text: "big", features: Object.fromEntries(RESERVED.map((k, i) => [k + i, 3e38])) },
  { text: "big", features: Object.fromEntries(FRAGMENTS.slice(0, 17).map((k) => [k, 3e38])) },
];

/** Queries only (names never trained on): large values, and values past float32 that cancel. */
const UNSEEN: { text: string; features?: Record<string, number> }[] = [
  { text: "", features: { "unseen 1": 3e38, "unseen 2": 3e38, "unseen 3": 3e38 } },
  { text: "new", features: { "unseen 1": 1e39, "unseen 2": -1e39 } },
];

const show = (x: unknown) => JSON.stringify(x);

/** The trainer's row as the SDK gives it: columns, and values as float32. */
function same(what: string, trainer: SparseVector, sdk: [Int32Array, Float64Array]): void {
  const [ti, tv] = [[...trainer.indices].join(), [...trainer.values].join()];
  const [si, sv] = [[...sdk[0]].join(), [...sdk[1]].map(Math.fround).join()];
  assert(ti === si && tv === sv, `${what}:\n trainer ${ti} | ${tv}\n sdk     ${si} | ${sv}`);
}

/** The outcome of `f`: its value, or the error it threw. */
function attempt<T>(f: () => T): { ok: T } | { error: unknown } {
  try {
    return { ok: f() };
  } catch (error) {
    return { error };
  }
}

const SETTINGS: TextSettings[] = [
  {},
  { ngrams: 2 },
  { ngrams: 3, minLength: 2 },
  { normalize: "none", lowercase: false },
  { ignoreFeatures: true, ngrams: 2 },
];
const PREPROCESS: RowPreprocess[] = [
  {},
  { l2Normalize: true },
  { tfidf: true },
  { tfidf: true, l2Normalize: true },
];

for (const space of ["hashing", "signed hashing", "vocabulary"] as const) {
  Deno.test(`text featurisation (${space}): the trainer's rows = the SDK's, bit for bit`, () => {
    let compared = 0, refused = 0, seed = 1;
    for (const settings of SETTINGS) {
      for (const pre of PREPROCESS) {
        const gen = generator(seed++), dim = 16;
        const vocab = new Vocabulary();
        const hashing = { dim, seed: 5, signed: space === "signed hashing" };
        const options = space === "vocabulary"
          ? { featureKeys: "name" as const, features: vocab, text: settings }
          : { hashing, text: settings };
        const events = [
          ...CRAFTED,
          ...Array.from({ length: 60 }, () => {
            const text = gen.text();
            return { text, features: gen.features(text) };
          }),
        ];
        // training: the rows the trainer learns from (growing the vocabulary)
        const train = new NdjsonParser(options);
        const rows = events.map((e) =>
          attempt(() => train.parse(JSON.stringify({ ...e, labels: [] })).x)
        );
        const D = space === "vocabulary" ? vocab.size : dim;
        const df = new TfIdf();
        for (const r of rows) if ("ok" in r) df.observe(r.ok);
        const idf = df.idfVector(D);
        const model = (preprocess: RowPreprocess): DecodedModel => ({
          kind: "linear-sparse",
          formatVersion: 3,
          numFeatures: D,
          numLabels: 1,
          params: {},
          tensors: preprocess.tfidf ? { idf: { shape: [D], data: idf } } : {},
          featureSpace: space === "vocabulary"
            ? { type: "vocabulary", names: [...vocab.names], text: settings }
            : { type: "hashing", ...hashing, text: settings },
          preprocess: { tfidf: preprocess.tfidf, l2Normalize: preprocess.l2Normalize },
        });
        const sdk = featurizer(model(pre)), sdkRaw = featurizer(model({}));
        // serving: the service's /predict row (nothing grows), then the model's preprocessing
        const serve = new NdjsonParser(
          space === "vocabulary"
            ? { ...options, features: new Vocabulary(vocab.names), growFeatures: false }
            : options,
        );
        const queries = [
          ...events,
          ...UNSEEN,
          ...Array.from({ length: 60 }, () => {
            const text = gen.text();
            return { text, features: gen.features(text) };
          }),
        ];
        queries.forEach((q, i) => {
          const what = `${space} ${show(settings)} ${show(pre)} query ${i} ${show(q)}`;
          if (i < events.length) {
            const r = rows[i], s = attempt(() => sdkRaw(q));
            if ("ok" in r && "ok" in s) same(`training row of ${what}`, r.ok, s.ok);
            // what the SDK refuses, the trainer does not learn from
            assert(!("error" in s) || "error" in r, `the trainer learns ${what}: ${show(r)}`);
          }
          const t = attempt(() => {
            const x = serve.textForPredict(q.text, q.features, D);
            const n = x.indices.length, indptr = Int32Array.of(0, n);
            return preprocessRows({ numRows: 1, numCols: D, indptr, ...x }, { ...pre, idf });
          });
          const s = attempt(() => sdk(q));
          if ("ok" in t && "ok" in s) {
            same(what, t.ok, s.ok);
            compared++;
          } else {
            assert("error" in t && "error" in s, `only one side refuses ${what}: ${show(t)}`);
            refused++;
          }
        });
      }
    }
    assert(compared > 2000 && refused > 0, `${compared} rows compared, ${refused} refused by both`);
  });
}
