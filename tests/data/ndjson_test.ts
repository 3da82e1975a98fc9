// NdjsonParser directly: limits and the non-growing prediction mapping.
import { NdjsonParser } from "../../src/data/ndjson.ts";
import { Vocabulary } from "../../src/data/vocabulary.ts";
import { FeatureHasher } from "../../src/data/hashing.ts";
import { assert, assertEquals, assertThrowsMsg } from "./helpers.ts";

Deno.test("NdjsonParser limits: features per event, id and name length, full vocabularies", async () => {
  const p = new NdjsonParser({ maxFeaturesPerEvent: 2, maxNameLength: 5 });
  await assertThrowsMsg(
    () => p.parse('{"features": {"0": 1, "1": 1, "2": 1}, "labels": []}'),
    RangeError,
    "features: more than 2 features in one event",
  );
  await assertThrowsMsg(
    () => p.parse('{"id": "toolong", "features": {}, "labels": []}'),
    RangeError,
    "field 'id' is longer than 5 characters",
  );
  await assertThrowsMsg(
    () => p.parse('{"features": {}, "labels": ["abcdef"]}'),
    RangeError,
    "labels[0]: name length must be 1..5",
  );
  const labels = new Vocabulary(["a"], 2);
  const q = new NdjsonParser({ labels });
  await assertThrowsMsg(
    () => q.parse('{"features": {}, "labels": ["b", "c"]}'),
    RangeError,
    "the label vocabulary is full (2 names)",
  );
  assert(labels.size === 1, "nothing added by the rejected line");
  const features = new Vocabulary([], 1);
  const r = new NdjsonParser({ featureKeys: "name", features });
  await assertThrowsMsg(
    () => r.parse('{"features": {"x": 1, "y": 1}, "labels": []}'),
    RangeError,
    "the feature vocabulary is full (1 names)",
  );
  assert(features.size === 0, "feature vocabulary unchanged");
});

Deno.test("featuresForPredict: never grows, drops unknown or out-of-range features, hashes alike", async () => {
  const byIndex = new NdjsonParser();
  const x = byIndex.featuresForPredict({ "7": 1, "2": 0.5, "9": 3 }, 8);
  assertEquals(x.indices, [2, 7]);
  assertEquals(x.values, [0.5, 1]);
  await assertThrowsMsg(
    () => byIndex.featuresForPredict({ a: 1 }, 8),
    TypeError,
    'key "a" is not a feature index',
  );
  await assertThrowsMsg(
    () => byIndex.featuresForPredict({ "1": "x" }, 8),
    TypeError,
    'features["1"]',
  );
  await assertThrowsMsg(() => byIndex.featuresForPredict([1], 8), TypeError, "must be an object");
  const named = new NdjsonParser({ featureKeys: "name", features: new Vocabulary(["a", "b"]) });
  assertEquals(named.featuresForPredict({ zz: 1, a: 2 }, 2).indices, [0]);
  assert(named.features.size === 2, "no growth");
  const hashing = { dim: 32, seed: 5, signed: true };
  const hashed = new NdjsonParser({ hashing });
  const learned = hashed.parse('{"features": {"w1": 1, "w2": 2}, "labels": []}');
  const predicted = hashed.featuresForPredict({ w2: 2, w1: 1 }, 32);
  assertEquals(predicted.indices, learned.x.indices);
  assertEquals(predicted.values, learned.x.values);
  assertEquals(predicted, new FeatureHasher(hashing).hashNamed(["w1", "w2"], [1, 2]));
});

/** Result of `parse` as plain data, or the error as `class: message`. */
/** Seeded integers in [0, n) (a linear congruential generator): the fuzz tests' mutations. */
function seededInts(seed: number): (n: number) => number {
  return (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
}

function outcome(f: () => unknown): unknown {
  try {
    return f();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
}

Deno.test("parseAscii: the same example as parse, or undefined without side effects", () => {
  const enc = new TextEncoder();
  const options = { maxNameLength: 12, maxFeaturesPerEvent: 6 };
  const fast = new NdjsonParser({ ...options, labels: new Vocabulary([], 40) });
  const slow = new NdjsonParser({ ...options, labels: new Vocabulary([], 40) });
  const canonical = [
    '{"id":"a:1","features":{"0":1,"5":0.5,"17":2},"labels":["x","y"]}',
    '{"features":{},"labels":[]}',
    ' { "features" : { "3" : -1.25e-3 , "9" : 1E+2 } , "labels" : [ "z" , 7 ] } ',
    '{"labels":["x"],"features":{"2":0.30000000000000004,"4":123456789012345678}}',
    '{"id":null,"features":{"1":-0,"2":0.0,"6":1e-50},"labels":["q"],"negatives":null}',
    '{"features":{"2147483646":3.4e38},"labels":[0,12],"negatives":["w"],"id":""}',
  ];
  for (const line of canonical) {
    const b = enc.encode(line);
    const before = fast.labels.names.slice();
    const got = fast.parseAscii(b, 0, b.length);
    assert(got !== undefined, `fast path taken for ${line} (labels before: ${before})`);
    assertEquals(got, slow.parse(line), line);
    assertEquals(fast.labels.names, slow.labels.names, line);
    assertEquals(fast.maxFeatureIndex, slow.maxFeatureIndex, line);
  }
  const others = [
    '{"features":{"5":1,"2":1},"labels":[]}', // keys out of order
    '{"features":{"2":1,"2":5},"labels":[]}', // duplicate key: last wins in JSON.parse
    '{"features":{"2":1},"features":{},"labels":[]}',
    '{"features":{"02":1},"labels":[]}',
    '{"features":{"-1":1},"labels":[]}',
    '{"features":{"2147483648":1},"labels":[]}',
    '{"features":{"1":1e39},"labels":[]}',
    '{"features":{"1":NaN},"labels":[]}',
    '{"features":{"1":"1"},"labels":[]}',
    '{"features":{"1":01},"labels":[]}',
    '{"features":{"1":1.},"labels":[]}',
    '{"features":{"1":.5},"labels":[]}',
    '{"features":{"1":1,},"labels":[]}',
    '{"features":{"1":1,"2":1,"3":1,"4":1,"5":1,"6":1,"7":1},"labels":[]}',
    '{"features":{"1":1},"labels":["a\\u0062"]}',
    '{"features":{"1":1},"labels":["caf\u00e9"]}',
    '{"features":{"1":1},"labels":["toolongname13"]}',
    '{"features":{"1":1},"labels":[""]}',
    '{"features":{"1":1},"labels":[1.5]}',
    '{"features":{"1":1},"labels":[1e2]}',
    '{"features":{"1":1},"labels":[-0]}',
    '{"features":{"1":1},"labels":["x"],"negatives":["x"]}',
    '{"features":{"1":1},"labels":["x"],"negatives":[7]}',
    '{"features":{"1":1},"labels":[7],"negatives":["7"]}',
    '{"id":5,"features":{},"labels":[]}',
    '{"id":"x\\"y","features":{},"labels":[]}',
    '{"features":{},"labels":[],"extra":1}',
    '{"features":{}}',
    '{"labels":[]}',
    '{"features":{},"labels":[]} x',
    '{"features":{},"labels":[]}}',
    '{"features":{},"labels":[]',
    "[]",
    "",
    '\ufeff{"features":{},"labels":[]}',
    '{"features":{},"labels":["n1","n2","n3","n4","n5","n6","n7","n8","n9","n10","n11","n12","n13","n14","n15","n16","n17","n18","n19","n20","n21","n22","n23","n24","n25","n26","n27","n28","n29","n30","n31","n32","n33","n34","n35","n36"]}',
  ];
  // seeded mutations of a valid line: byte flips, cuts and insertions
  const rnd = seededInts(7);
  const base =
    '{"id":"m","features":{"1":1,"20":0.25,"300":-2.5e1},"labels":["x",3],"negatives":["y"]}';
  const alphabet = '{}[]":,-.eE0123456789 xyn\\';
  for (let t = 0; t < 400; t++) {
    const chars = base.split("");
    for (let m = 1 + rnd(3); m > 0; m--) {
      const i = rnd(chars.length), c = alphabet[rnd(alphabet.length)];
      const op = rnd(3);
      if (op === 0) chars[i] = c;
      else if (op === 1) chars.splice(i, 1);
      else chars.splice(i, 0, c);
    }
    others.push(chars.join(""));
  }
  let fastTaken = 0;
  for (const line of others) {
    const b = enc.encode(line);
    const names = fast.labels.names.slice(), maxIndex = fast.maxFeatureIndex;
    const got = fast.parseAscii(b, 0, b.length);
    const expected = outcome(() => slow.parse(line));
    if (got === undefined) {
      assertEquals(fast.labels.names, names, `no side effect: ${line}`);
      assertEquals(fast.maxFeatureIndex, maxIndex, `no side effect: ${line}`);
      assertEquals(outcome(() => fast.parse(line)), expected, line);
    } else {
      fastTaken++;
      assertEquals(got, expected, line);
    }
    assertEquals(fast.labels.names, slow.labels.names, line);
  }
  assert(fastTaken >= 10, `some mutated lines are still valid and fast (${fastTaken})`);
  // other modes never take the fast path
  const named = new NdjsonParser({ featureKeys: "name" });
  const b = enc.encode('{"features":{"1":1},"labels":[]}');
  assert(named.parseAscii(b, 0, b.length) === undefined, "name keys: slow path");
});

Deno.test("parseAscii with hashed names: the same example as parse, or undefined without side effects", () => {
  const enc = new TextEncoder();
  for (const hashing of [{ dim: 1 << 20, seed: 3 }, { dim: 16, seed: 9, signed: true }]) {
    const options = { featureKeys: "name" as const, hashing, maxFeaturesPerEvent: 8 };
    const fast = new NdjsonParser({ ...options, labels: new Vocabulary([], 40) });
    const slow = new NdjsonParser({ ...options, labels: new Vocabulary([], 40) });
    const lines = [
      '{"id":"a","features":{"the":1,"cat":0.5,"sat":-2},"labels":["x"]}',
      '{"features":{"zebra":1,"apple":2,"9":1,"10":0.25},"labels":["y",3]}', // any key order
      '{"features":{"":1," ":2},"labels":[]}',
      '{"features":{},"labels":["z"]}',
      '{"features":{"w":1,"w":2},"labels":[]}', // duplicate: JSON keeps the last
      '{"features":{"w":1,"W":0},"labels":[]}',
      '{"features":{"caf\u00e9":1,"\u4e2d\u6587":2,"\ud83d\ude00":-1},"labels":[]}', // UTF-8 names
      '{"id":"\u00e9","features":{"a":1},"labels":[]}', // non-ASCII id: slow path
      '{"features":{"a\\u0062":1,"ab":1},"labels":[]}', // escape: slow path
      '{"features":{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1},"labels":[]}',
      '{"features":{"a":NaN},"labels":[]}',
      '{"features":{"a":1e39},"labels":[]}',
      '{"features":{"a":"1"},"labels":[]}',
      '{"features":{"a":1},"labels":["x"],"negatives":["x"]}',
    ];
    // seeded words, values and mutations: with dim 16 many lines put two names in one column
    const rnd = seededInts(11);
    for (let t = 0; t < 300; t++) {
      const f: string[] = [];
      for (let j = rnd(7); j >= 0; j--) {
        const word = `${["w", "\u00e9", "\u4e2d", "\ud83d\ude00", "\u00df"][rnd(5)]}${rnd(40)}`;
        f.push(`"${word}":${[1, 0.5, -3, 0, 2.5e-3][rnd(5)]}`);
      }
      const line = `{"id":"r${t}","features":{${f.join(",")}},"labels":["l${rnd(5)}"]}`;
      const chars = line.split("");
      if (rnd(3) === 0) chars.splice(rnd(chars.length), 1, '{}[]":,-.e0 xw\\'[rnd(15)]);
      lines.push(chars.join(""));
    }
    let fastTaken = 0, fastUtf8 = 0;
    for (const line of lines) {
      const b = enc.encode(line);
      const names = fast.labels.names.slice();
      const got = fast.parseAscii(b, 0, b.length);
      const expected = outcome(() => slow.parse(line));
      if (got === undefined) {
        assertEquals(fast.labels.names, names, `no side effect: ${line}`);
        assertEquals(outcome(() => fast.parse(line)), expected, line);
      } else {
        fastTaken++;
        if ([...line].some((c) => c.charCodeAt(0) > 127)) fastUtf8++;
        assertEquals(got, expected, line);
      }
      assertEquals(fast.labels.names, slow.labels.names, line);
    }
    assert(fastTaken >= 100, `hashed lines take the fast path (${fastTaken} of ${lines.length})`);
    assert(fastUtf8 >= 50, `lines with non-ASCII names take it too (${fastUtf8})`);
  }
});

Deno.test("parseAscii with hashed names: any well-formed UTF-8 name, never a malformed one", () => {
  const options = { featureKeys: "name" as const, hashing: { dim: 1 << 16, seed: 1 } };
  const fast = new NdjsonParser(options), slow = new NdjsonParser(options);
  const line = (name: number[]) =>
    Uint8Array.from([
      ...new TextEncoder().encode('{"features":{"'),
      ...name,
      ...new TextEncoder().encode('":1,"x":2},"labels":[]}'),
    ]);
  const wellFormed = [
    [0x7f], // DEL needs no escape in JSON
    [0xc2, 0x80],
    [0xdf, 0xbf],
    [0xe0, 0xa0, 0x80],
    [0xed, 0x9f, 0xbf], // U+D7FF, the last before the surrogates
    [0xee, 0x80, 0x80], // U+E000, the first after them
    [0xef, 0xbf, 0xbf],
    [0xf0, 0x90, 0x80, 0x80],
    [0xf4, 0x8f, 0xbf, 0xbf], // U+10FFFF
  ];
  for (const name of wellFormed) {
    const b = line(name);
    const got = fast.parseAscii(b, 0, b.length);
    assert(got !== undefined, `fast path for ${name.map((c) => c.toString(16))}`);
    assertEquals(got, slow.parse(new TextDecoder("utf-8", { fatal: true }).decode(b)));
  }
  const malformed = [
    [0x80], // a continuation byte alone
    [0xc0, 0x80], // overlong
    [0xc1, 0xbf],
    [0xe0, 0x9f, 0xbf], // overlong
    [0xed, 0xa0, 0x80], // a surrogate
    [0xf0, 0x8f, 0xbf, 0xbf], // overlong
    [0xf4, 0x90, 0x80, 0x80], // over U+10FFFF
    [0xf5, 0x80, 0x80, 0x80],
    [0xe4, 0xb8], // cut before the closing quote
    [0xc3, 0x28], // a lead byte without its continuation
  ];
  for (const name of malformed) {
    const b = line(name);
    assertEquals(fast.parseAscii(b, 0, b.length), undefined, `${name.map((c) => c.toString(16))}`);
    // (and the service's fatal decoder rejects the line: "line is not valid UTF-8")
    let threw = false;
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(b);
    } catch {
      threw = true;
    }
    assert(threw, `the decoder accepts ${name.map((c) => c.toString(16))}`);
  }
});

Deno.test("unknown fields are ignored and counted by default, refused with strictFields", async () => {
  const line = '{"id": "a", "ts": 17, "user": {"x": 1}, "features": {"0": 1}, "labels": ["t"]}';
  const p = new NdjsonParser();
  const e = p.parse(line);
  assertEquals([...e.x.indices], [0]);
  assertEquals([...p.ignoredFields], [["ts", 1], ["user", 1]]);
  // the fast path leaves such lines to parse (which ignores the fields)
  const b = new TextEncoder().encode(line);
  assert(p.parseAscii(b, 0, b.length) === undefined, "fast path");
  await assertThrowsMsg(
    () => new NdjsonParser({ strictFields: true }).parse(line),
    TypeError,
    'unknown field "ts" (allowed: id, features, labels, negatives)',
  );
  // without a tokenizer, text is an unknown field too
  const t = '{"features": {"0": 1}, "text": "hello", "labels": []}';
  await assertThrowsMsg(
    () => new NdjsonParser({ strictFields: true }).parse(t),
    TypeError,
    "reading text needs a tokenizer (--text)",
  );
  assertEquals([...new NdjsonParser().parse(t).x.indices], [0]);
  // past 64 names, the rest are counted under "…"
  const many = new NdjsonParser();
  const extra = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`f${i}`, i]));
  many.parse(JSON.stringify({ features: {}, labels: [], ...extra }));
  assertEquals([many.ignoredFields.size, many.ignoredFields.get("…")], [65, 6]);
});

Deno.test("text events: tokenized into named features beside features, hashed or indexed", async () => {
  const p = new NdjsonParser({ featureKeys: "name", text: { ngrams: 2 } });
  const e = p.parse(
    '{"text": "Fast JSON, fast!", "features": {"lang:c": 2, "json": 0.5}, "labels": ["x"]}',
  );
  // features first, then words and bigrams in order of first occurrence
  assertEquals(p.features.names, ["lang:c", "json", "fast", "fast json", "json fast"]);
  assertEquals([...e.x.values], [2, 1.5, 2, 1, 1]);
  // text alone; features alone; neither is an error
  assertEquals([...p.parse('{"text": "json", "labels": []}').x.indices], [1]);
  assertEquals([...p.parse('{"features": {"json": 3}, "labels": []}').x.values], [3]);
  await assertThrowsMsg(
    () => p.parse('{"labels": []}'),
    TypeError,
    "field 'features' or 'text' is required",
  );
  await assertThrowsMsg(
    () => p.parse('{"text": 5, "labels": []}'),
    TypeError,
    "field 'text' must be a string",
  );
  await assertThrowsMsg(
    () => p.parse('{"text": "a", "features": {"b": "x"}, "labels": []}'),
    TypeError,
    'features["b"]: value must be a number',
  );
  // ignoreFeatures: features beside a text are dropped (not even checked)
  const only = new NdjsonParser({ featureKeys: "name", text: { ignoreFeatures: true } });
  const o = only.parse('{"text": "a b", "features": {"c": "x"}, "labels": []}');
  assertEquals([only.features.names, [...o.x.values]], [["a", "b"], [1, 1]]);
  // hashing: the same columns as hashing the names
  const h = new NdjsonParser({ hashing: { dim: 64, seed: 5, signed: true }, text: {} });
  const x = h.parse('{"text": "b a b", "labels": []}').x;
  const want = new FeatureHasher({ dim: 64, seed: 5, signed: true }).hashNamed(["b", "a"], [2, 1]);
  assertEquals([[...x.indices], [...x.values]], [[...want.indices], [...want.values]]);
  assertEquals([...h.textForPredict("b a b", undefined, 64).indices], [...want.indices]);
  // index keys cannot take text; bad settings are refused
  await assertThrowsMsg(
    () => new NdjsonParser({ text: {} }),
    TypeError,
    "text needs named feature keys",
  );
  await assertThrowsMsg(
    () => new NdjsonParser({ featureKeys: "name", text: { ngrams: 7 } }),
    TypeError,
    "ngrams",
  );
  // vocabulary: words longer than the name limit never enter it
  const v = new NdjsonParser({ featureKeys: "name", text: {}, maxNameLength: 4 });
  v.parse('{"text": "tiny enormous", "labels": []}');
  assertEquals(v.features.names, ["tiny"]);
});
