// In index mode the event parser refuses a feature key that is not an index with an error that
// carries the key (NotAFeatureIndexError, a RangeError), so that a caller tells that refusal by
// its class, not by its text; the class and message the readers and clients saw are unchanged.
// Other errors (a key of another mode, a bad value) are not of this class.
import { NdjsonParser } from "../../src/data/ndjson.ts";
import { NotAFeatureIndexError } from "../../src/data/ndjson_features.ts";
import { assert, assertEquals } from "./helpers.ts";

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

const message = (key: string) =>
  `features: key ${JSON.stringify(key)} is not a feature index (a non-negative integer)`;

Deno.test("event lines: a key that is not an index is a NotAFeatureIndexError with the key", () => {
  const p = new NdjsonParser();
  for (const key of ["direct", "-1", "1.5", "2147483648"]) {
    const e = thrown(() => p.parse(JSON.stringify({ features: { [key]: 1 }, labels: ["a"] })));
    assert(e instanceof NotAFeatureIndexError, String(e));
    assert(e instanceof RangeError, "still a RangeError");
    assertEquals(e.key, key);
    assertEquals(e.message, message(key));
    assertEquals(e.name, "RangeError");
  }
  // the same key's bad value, a name of a name-mode parser: other errors
  const value = thrown(() => p.parse('{"features": {"direct": "x"}, "labels": []}'));
  assert(value instanceof TypeError && !(value instanceof NotAFeatureIndexError), String(value));
  const names = new NdjsonParser({ featureKeys: "name" });
  const empty = thrown(() => names.parse('{"features": {"": 1}, "labels": []}'));
  assert(empty instanceof RangeError && !(empty instanceof NotAFeatureIndexError), String(empty));
  assertEquals(p.labels.names, [], "nothing kept from the refused lines");
});
