// The key-mode hint of an index-mode stream ("this stream reads feature indices …") goes with
// the refusal of a feature key that is not an index, told by the error's class
// (NotAFeatureIndexError), not by its text: a label, a field or another key that merely says
// "is not a feature index" gets a reason without it; the refusal keeps its message and hint.
import { EventParser } from "../../src/service/events.ts";
import { assert, assertEquals } from "./helpers.ts";

const HINT = "; this stream reads feature indices (--feature-keys index): events that name " +
  "their features need --feature-keys name or hash";

function reason(p: EventParser, line: string): string {
  const r = p.parseLine(line);
  if (r.ok) throw new Error(`expected a reject for ${line}`);
  return r.reason;
}

Deno.test("index mode: other reasons that say 'is not a feature index' get no key-mode hint", () => {
  const words = "is not a feature index";
  const p = new EventParser([], [], { featureKeys: "index" });
  // a key of that name whose value is not a number: the value is refused, not the key
  const value = reason(p, JSON.stringify({ features: { [words]: "x" }, labels: [] }));
  assertEquals(value, `features["${words}"]: value must be a number, got string`);
  // a label both in labels and in negatives
  const label = reason(
    p,
    JSON.stringify({ features: { "1": 1 }, labels: [words], negatives: [words] }),
  );
  assert(label.includes(`label "${words}"`) && !label.includes("--feature-keys"), label);
  // an unknown field, with strict fields
  const strict = new EventParser([], [], { featureKeys: "index", strictFields: true });
  const field = reason(strict, JSON.stringify({ [words]: 1, features: {}, labels: [] }));
  assert(field.startsWith(`unknown field "${words}"`) && !field.includes("--feature-keys"), field);
  assertEquals(p.labels.names, [], "nothing kept from the refused events");
});

Deno.test("index mode: a key that is not an index keeps its message and gets the hint", () => {
  const p = new EventParser([], [], { featureKeys: "index" });
  for (const key of ["direct", "-1", "1.5", "007", "is not a feature index"]) {
    const why = reason(p, JSON.stringify({ features: { "0": 1, [key]: 1 }, labels: ["a"] }));
    assertEquals(
      why,
      `features: key ${JSON.stringify(key)} is not a feature index (a non-negative integer)` +
        HINT,
    );
  }
  assertEquals(p.labels.names, [], "nothing kept from the refused events");
});
