import { EventParser } from "../../src/service/events.ts";
import { assert, assertEquals } from "./helpers.ts";

function reason(p: EventParser, line: string): string {
  const r = p.parseLine(line);
  if (r.ok) throw new Error(`expected a reject for ${line}`);
  return r.reason;
}

Deno.test("EventParser maps index features, named labels and negatives", () => {
  const p = new EventParser([], ["b"]);
  const r = p.parseLine(
    '{"id": 7, "features": {"9": 2, "1": 0.5, "4": 0}, "labels": ["a", "b", "a"], "negatives": ["c"]}',
  );
  if (!r.ok) throw new Error(r.reason);
  assertEquals(r.event.id, "7");
  assertEquals(r.event.x.indices, [1, 9], "zero values are dropped, indices sorted");
  assertEquals(r.event.x.values, [0.5, 2]);
  assertEquals(r.event.labels, [0, 1], "b keeps index 0, a is new, duplicates merged");
  assertEquals(r.event.negatives, [2]);
  assertEquals(p.labels.names, ["b", "a", "c"]);
});

Deno.test("EventParser rejects bad lines with reasons and leaves vocabularies unchanged", () => {
  const p = new EventParser([], [], { maxLineBytes: 200, maxFeatures: 100, strictFields: true });
  const cases: [string, string][] = [
    ["{not json", "malformed JSON"],
    ["[1]", "JSON object"],
    ['{"features": {}, "labels": ["new1"], "extra": 1}', "unknown field"],
    ['{"features": {"-3": 1}, "labels": ["new1"]}', '"-3"'],
    ['{"features": {"01": 1}, "labels": ["new1"]}', "not a feature index"],
    ['{"features": {"100": 1}, "labels": ["new1"]}', "out of range [0, 100)"],
    ['{"features": {"1": 1e999}, "labels": ["new1"]}', "not a finite"],
    ['{"features": {"1": "2"}, "labels": ["new1"]}', "must be a number"],
    ['{"features": {"1": 1}}', "'labels' is required"],
    ['{"features": {"1": 1}, "labels": [-1]}', "labels[0]"],
    ['{"features": {"1": 1}, "labels": ["new1"], "negatives": ["new1"]}', "both"],
    [JSON.stringify({ features: {}, labels: ["x".repeat(300)] }), "longer than 200 bytes"],
  ];
  for (const [line, text] of cases) {
    const r = reason(p, line);
    assert(r.includes(text), `${line}: reason '${r}' should mention '${text}'`);
  }
  assertEquals(p.labels.size, 0, "no rejected line added a label");
});

Deno.test("EventParser ignores unknown fields by default and counts them; strictFields refuses", () => {
  const p = new EventParser();
  const line = '{"features": {"1": 1}, "labels": ["a"], "ts": 1700000000, "user": "u1"}';
  assert(p.parseLine(line).ok, "accepted");
  assert(p.parseLine(line).ok, "accepted again");
  assertEquals(Object.fromEntries(p.ignoredFields), { ts: 2, user: 2 });
  const strict = new EventParser([], [], { strictFields: true });
  assert(reason(strict, line).includes('unknown field "ts"'), "strict");
  assertEquals(strict.labels.size, 0, "nothing grew");
});

Deno.test("EventParser reads text with a tokenizer; the feature space carries it", () => {
  const p = new EventParser([], [], { featureKeys: "name", text: { ngrams: 2 } });
  const r = p.parseLine('{"text": "Hello, World! hello", "labels": ["greet"]}');
  assert(r.ok, r.ok ? "" : r.reason);
  assertEquals(p.features.names, ["hello", "hello world", "world", "world hello"]);
  assertEquals([...r.event.x.values], [2, 1, 1, 1]);
  assertEquals(p.featureSpace(4), {
    type: "vocabulary",
    names: ["hello", "hello world", "world", "world hello"],
    text: { ngrams: 2 },
  });
  assertEquals([...p.textForPredict("world, WORLD; unseen", undefined, 4).indices], [2]);
  assert(reason(p, '{"text": ["x"], "labels": []}').includes("'text' must be a string"), "type");
  let msg = "";
  try {
    new EventParser().textForPredict("a", undefined, 1);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("not trained on text"), msg);
});

Deno.test("EventParser refuses to grow past the label limit, keeps known labels working", () => {
  const p = new EventParser([], [], { maxLabels: 2 });
  assert(p.parseLine('{"features": {}, "labels": ["a", "b"]}').ok);
  assert(reason(p, '{"features": {}, "labels": ["c"]}').includes("full"));
  assert(p.parseLine('{"features": {}, "labels": ["b"]}').ok);
  assertEquals(p.labels.names, ["a", "b"]);
});

Deno.test("EventParser name mode grows the feature vocabulary", () => {
  const p = new EventParser([], [], { featureKeys: "name" });
  const r = p.parseLine('{"features": {"red": 1, "big": 2}, "labels": ["toy"]}');
  if (!r.ok) throw new Error(r.reason);
  assertEquals(p.features.names, ["red", "big"]);
  assertEquals(r.event.x.indices, [0, 1]);
});

Deno.test("featuresForPredict drops unknown features and names the bad key", () => {
  const p = new EventParser([], [], { featureKeys: "name" });
  p.parseLine('{"features": {"red": 1, "big": 2}, "labels": ["toy"]}');
  const x = p.featuresForPredict({ big: 3, unseen: 1, red: 0.5 }, 2);
  assertEquals(x.indices, [0, 1]);
  assertEquals(x.values, [0.5, 3]);
  const q = new EventParser();
  assertEquals(q.featuresForPredict({ "5": 1, "2": 2, "900": 1 }, 10).indices, [2, 5]);
  let msg = "";
  try {
    q.featuresForPredict({ "-1": 1 }, 10);
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes('"-1"'), msg);
  try {
    q.featuresForPredict({ "1": "NaN" }, 10);
    msg = "";
  } catch (e) {
    msg = (e as Error).message;
  }
  assert(msg.includes("finite"), msg);
});

Deno.test("predictBodyAscii: the same row and k as JSON.parse + featuresForPredict/rowForPredict, or undefined", () => {
  const p = new EventParser();
  const enc = new TextEncoder();
  const fastOnes = [
    '{"features": {"1": 1, "7": 2.5, "9": 0}, "k": 3}',
    '{"k":10,"features":{"0":-1e-3,"4":1E2,"6":3}}',
    ' { "features" : { } } ',
    '{"indices": [1, 3, 9], "values": [1, 0, 2.5], "k": 2}',
    '{"k":4,"values":[-1e-3,1E2],"indices":[0,6]}',
    '{"indices": [2, 5]}',
    '{"indices": []}',
  ];
  const bodies = [
    ...fastOnes,
    '{"features": {"2": 1, "1048577": 1}}', // beyond the parser's index bound: the slow path
    '{"features": {"7": 1, "2": 1}}',
    '{"features": {"1": 1}, "k": 0}',
    '{"features": {"1": 1}, "k": 05}',
    '{"features": {"1": 1}, "k": 2.5}',
    '{"features": {"1": 1}, "k": 5, "k": 6}',
    '{"features": {"1": 1}, "rows": []}',
    '{"features": {"a": 1}}',
    '{"features": {"1": 1}, "indices": [1]}',
    '{"features": {"1": "x"}}',
    '{"features": {"1": 1e999}}',
    '{"features": {"1": 1}} x',
    '{"indices": [3, 1]}',
    '{"indices": [1, 1]}',
    '{"indices": [1.5]}',
    '{"indices": [-1]}',
    '{"indices": [2147483648]}',
    '{"indices": [1, 2], "values": [1]}',
    '{"indices": [1], "values": [1e39]}',
    '{"indices": [1], "values": ["1"]}',
    '{"values": [1]}',
    '{"indices": [1], "indices": [2]}',
    "{}",
  ];
  let seed = 3;
  const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const bases = [
    '{"features": {"1": 1, "3": 0.5, "8": 2}, "k": 2}',
    '{"indices": [1, 3, 8, 12], "values": [1, 0.5, 2, 7], "k": 2}',
  ];
  for (const base of bases) {
    for (let t = 0; t < 300; t++) {
      const c = base.split("");
      const i = rnd(c.length);
      c.splice(i, rnd(2), '{}[]":,-.e0123456789 kx'[rnd(23)]);
      bodies.push(c.join(""));
    }
  }
  let fast = 0, compact = 0;
  for (const body of bodies) {
    const got = p.predictBodyAscii(enc.encode(body), 10);
    if (fastOnes.includes(body)) assert(got !== undefined, `fast: ${body}`);
    if (got === undefined) continue;
    fast++;
    const j = JSON.parse(body);
    assertEquals(got.k, j.k, body);
    if (j.features !== undefined) {
      assertEquals(Object.keys(j).sort().join(), j.k === undefined ? "features" : "features,k");
      assertEquals(got.x, p.featuresForPredict(j.features, 10), body);
    } else {
      compact++;
      const keys = Object.keys(j).filter((key) => key !== "k").sort().join();
      assert(keys === "indices" || keys === "indices,values", body);
      const want = p.rowForPredict(j.indices, j.values, 10);
      assertEquals([Array.from(got.x.indices), Array.from(got.x.values)], [
        Array.from(want.indices),
        Array.from(want.values),
      ], body);
    }
  }
  assert(
    fast > 40 && compact > 20,
    `mutations that stay valid take the fast path (${fast}, ${compact})`,
  );
});
