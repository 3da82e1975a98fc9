/**
 * The text tokenizer (sdk/tokenizer.ts) and text end to end: events with `text` learned by the
 * service, `POST /predict {"text": ...}` and `loadModel(file).predictTopK({text}, k)` give the
 * same labels and scores, bit for bit, on Unicode, punctuation, empty and 1 MB texts, for a
 * hashing and a vocabulary feature space; the file carries the tokenizer (format version 3).
 */
import { textFeatures, textSettingsError, tokenize } from "../../sdk/tokenizer.ts";
import { loadModel } from "../../sdk/mod.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { modelFileOf } from "../../src/cli/commands/export.ts";
import { factory as ova } from "../../src/models/ova/mod.ts";
import { createApp } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import type { EventLimits } from "../../src/service/events.ts";
import { assert } from "./helpers.ts";

const eq = (a: unknown, b: unknown, msg: string) =>
  assert(
    JSON.stringify(a) === JSON.stringify(b),
    `${msg}: ${JSON.stringify(a)} !== ${JSON.stringify(b)}`,
  );

Deno.test("tokenize: NFKC, lower-casing, Unicode words, ideographs and emoji, punctuation", () => {
  // composed and decomposed accents give the same words; full-width letters fold (NFKC)
  eq(tokenize("Café CAFE\u0301 ＡＢＣ ﬁne", {}), ["café", "café", "abc", "fine"], "nfkc");
  eq(tokenize("Café", { normalize: "none", lowercase: false }), ["Café"], "as is");
  eq(tokenize("e\u0301", { normalize: "none" }), ["e\u0301"], "a combining mark stays in its word");
  // each ideograph is a word; kana and hangul runs are words
  eq(
    tokenize("東京タワーへ行く 서울시", {}),
    ["東", "京", "タワーへ", "行", "く", "서울시"],
    "cjk",
  );
  eq(tokenize("ok👍🏽go 🇫🇷", {}), ["ok", "👍", "go"], "emoji");
  eq(tokenize("C++, (x86_64) e.g. don't — 3.14!?", {}), [
    "c",
    "x86",
    "64",
    "e",
    "g",
    "don",
    "t",
    "3",
    "14",
  ], "punctuation separates");
  eq(tokenize("", {}), [], "empty");
  eq(tokenize(" \n\t.,;!? ", {}), [], "no words");
  eq(tokenize("a bb ccc ÿÿ 𝔸𝔸", { minLength: 2 }), ["bb", "ccc", "ÿÿ", "aa"], "minLength");
  eq(tokenize("İ", {}), ["i̇"], "locale-independent lower case");
});

Deno.test("textFeatures: counts, n-grams over kept words, features merged by name first", () => {
  eq(
    [...textFeatures("a b a b", { ngrams: 2 })],
    [["a", 2], ["a b", 2], ["b", 2], ["b a", 1]],
    "2",
  );
  eq([...textFeatures("x y z", { ngrams: 3 })].map(([k]) => k), [
    "x",
    "x y",
    "x y z",
    "y",
    "y z",
    "z",
  ], "3-grams");
  eq(
    [...textFeatures("to be or", { ngrams: 2, minLength: 3 })],
    [],
    "short words are dropped first",
  );
  const f = { b: 0.5, zz: 2, bad: "x" } as unknown as Record<string, number>;
  eq([...textFeatures("a b", {}, f)], [["b", 1.5], ["zz", 2], ["a", 1]], "features first");
  eq([...textFeatures("a b", { ignoreFeatures: true }, f)], [["a", 1], ["b", 1]], "ignored");
  eq([...textFeatures("", {}, { q: 1 })], [["q", 1]], "empty text");
});

Deno.test("textSettingsError names the bad field", () => {
  eq(textSettingsError({}), undefined, "empty");
  eq(
    textSettingsError({ ngrams: 4, minLength: 64, lowercase: false, normalize: "none" }),
    undefined,
    "max",
  );
  for (
    const [s, want] of [
      [{ ngrams: 0 }, "ngrams"],
      [{ ngrams: 1.5 }, "ngrams"],
      [{ minLength: 65 }, "minLength"],
      [{ lowercase: 1 }, "lowercase"],
      [{ normalize: "NFC" }, "normalize"],
      [{ ignoreFeatures: "yes" }, "ignoreFeatures"],
      [null, "map"],
    ] as const
  ) {
    const e = textSettingsError(s);
    assert(e !== undefined && e.includes(want), `${JSON.stringify(s)}: ${e}`);
  }
});

const WORDS = ["parser", "json", "fast", "editor", "text", "vim", "game", "3d", "café", "東京"];
const LABELS = ["lang", "edit", "game", "web"];

/** Events whose words predict labels (word i → label i % 4), with extra fields. */
function textEvents(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = WORDS[i % WORDS.length], b = WORDS[(i * 7 + 3) % WORDS.length];
    out.push(JSON.stringify({
      id: `e${i}`,
      text: `${a.toUpperCase()}, ${b}! ${a} — ${i % 3 ? "🙂" : ""}`,
      ...(i % 4 === 0 ? { features: { [`tag:${i % 5}`]: 1 } } : {}),
      labels: [LABELS[(i % WORDS.length) % 4]],
      timestamp: 1700000000 + i, // an unknown field: ignored
    }));
  }
  return out;
}

const QUERIES: { text: string; features?: Record<string, number> }[] = [
  { text: "JSON parser, fast" },
  { text: "Cafe\u0301 — CAFÉ ＪＳＯＮ" }, // decomposed accent, full-width letters
  { text: "東京 東京タワー 🙂🙂 vim" },
  { text: "¡¿...!!! ((( )))" }, // punctuation only: no words
  { text: "" },
  { text: "editor editor", features: { "tag:1": 2, "tag:4": 0.25, unseen: 3 } },
  { text: ("game 3d vim — ".repeat(70000) + "x").slice(0, 1_000_000) }, // 1 MB
];

for (
  const [name, limits] of [
    ["hashing", { hashing: { dim: 1 << 12, seed: 3, signed: true }, text: { ngrams: 2 } }],
    ["vocabulary", { featureKeys: "name", text: { ngrams: 2, minLength: 1 } }],
  ] as [string, EventLimits][]
) {
  Deno.test(`text end to end (${name}): service /predict and the SDK agree bit for bit`, async () => {
    const dir = await Deno.makeTempDir();
    const s = await LearningService.open({
      factory: ova,
      stateDir: dir,
      batchSize: 8,
      modelOptions: { seed: 1 },
      publishEvery: 0,
      log: () => {},
      limits,
    });
    try {
      const app = createApp({ service: s, maxPredictBytes: 2 << 20 });
      const r = await app.request("/events", { method: "POST", body: textEvents(200).join("\n") });
      const ingest = await r.json();
      eq([r.status, ingest.accepted, ingest.rejectedCount], [200, 200, 0], "ingest");
      s.learner.flush();
      eq(Object.fromEntries(s.learner.parser.ignoredFields), { timestamp: 200 }, "ignored fields");
      const bytes = modelFileOf(s.learner);
      const content = decodeModelFile(bytes);
      eq(content.formatVersion, 3, "format version");
      eq((content.featureSpace as { text?: unknown }).text, limits.text, "tokenizer in the file");
      const sdk = loadModel(bytes);
      let nonEmpty = 0;
      for (const q of QUERIES) {
        const res = await app.request("/predict", {
          method: "POST",
          body: JSON.stringify({ ...q, k: 4 }),
        });
        const body = await res.json();
        assert(res.status === 200, `${res.status} ${JSON.stringify(body)}`);
        // ova's own top-k ranks the labels the row touches and its bias candidates (refreshed
        // as the stream goes): it may list fewer than k, the best of the SDK's exact ranking
        const n = body.labels.length, top = sdk.predictTopK(q, n);
        const where = `${name} ${q.text.slice(0, 30)}`;
        // (an empty row touches nothing: ova answers from its bias candidates, none yet here)
        const words = tokenize(q.text, {}).length > 0;
        assert(n >= 1 || !words, `${where}: no labels`);
        eq(body.labels, [...top.labels].map((l) => sdk.labelName(l)), `${where}: labels`);
        eq(body.scores, [...top.scores], `${where}: scores`);
        if (words) nonEmpty++;
      }
      assert(nonEmpty === 5, "queries with words");
      // the learned words rank their labels: "vim" (word 5) → label 5 % 4 = "edit"
      eq(sdk.labelName(sdk.predictTopK({ text: "vim vim" }, 1).labels[0]), "edit", "learned");
      // rows of text queries, and errors
      const rows = await app.request("/predict", {
        method: "POST",
        body: JSON.stringify({ rows: [{ text: "json" }, { features: { "tag:1": 1 } }], k: 2 }),
      });
      eq(rows.status, 200, "rows");
      for (
        const [body, want] of [
          [{ text: 5 }, "'text' must be a string"],
          [{ text: "a", indices: [1] }, "not 'indices'"],
        ] as const
      ) {
        const e = await app.request("/predict", { method: "POST", body: JSON.stringify(body) });
        const j = await e.json();
        assert(e.status === 400 && j.error.includes(want), `${JSON.stringify(body)}: ${j.error}`);
      }
    } finally {
      await s.stop();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("a model not trained on text refuses {text} in the SDK and in /predict", async () => {
  const dir = await Deno.makeTempDir();
  const s = await LearningService.open({
    factory: ova,
    stateDir: dir,
    batchSize: 1,
    publishEvery: 0,
    log: () => {},
    limits: { featureKeys: "name" },
  });
  try {
    const app = createApp({ service: s });
    await app.request("/events", {
      method: "POST",
      body: '{"features": {"a": 1}, "text": "ignored here", "labels": ["x"]}',
    });
    s.learner.flush();
    eq(s.learner.applied, 1, "the event is learned, its text ignored");
    const bytes = modelFileOf(s.learner);
    eq(decodeModelFile(bytes).formatVersion, 1, "no text: the lowest version");
    let msg = "";
    try {
      loadModel(bytes).predictTopK({ text: "a" }, 1);
    } catch (e) {
      msg = (e as Error).message;
    }
    assert(msg.includes("not trained on text"), msg);
    const r = await app.request("/predict", { method: "POST", body: '{"text": "a"}' });
    const j = await r.json();
    assert(r.status === 400 && j.error.includes("not trained on text"), j.error);
    // a feature named "text" with a number is still a feature
    eq(loadModel(bytes).predictTopK({ text: 1 } as never, 1).labels.length, 1, "named text");
  } finally {
    await s.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
