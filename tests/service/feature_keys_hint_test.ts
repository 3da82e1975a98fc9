// An event that names its features, sent to a stream that reads feature indices (the default of
// `tagstream serve`), is refused with a reason that says the stream's key mode and the modes
// that read names: a client or an operator reading /events' answer learns which flag to give.
import { EventParser } from "../../src/service/events.ts";
import { assert, assertEquals } from "./helpers.ts";

function reason(p: EventParser, line: string): string {
  const r = p.parseLine(line);
  if (r.ok) throw new Error(`expected a reject for ${line}`);
  return r.reason;
}

Deno.test("index mode: a named feature's reason names --feature-keys name or hash", () => {
  const p = new EventParser([], [], { featureKeys: "index" });
  const why = reason(p, '{"text": "a JSON parser", "features": {"json": 1}, "labels": ["devel"]}');
  assert(why.startsWith('features: key "json" is not a feature index'), why);
  assert(why.includes("reads feature indices (--feature-keys index)"), why);
  assert(why.includes("need --feature-keys name or hash"), why);
  assertEquals(p.labels.names, [], "nothing kept from the refused event");
});

Deno.test("other reasons and other modes get no key-mode hint", () => {
  const index = new EventParser([], [], { featureKeys: "index", maxFeatures: 1 });
  const tooMany = reason(index, '{"features": {"1": 1, "2": 1}, "labels": []}');
  assert(!tooMany.includes("--feature-keys"), tooMany);
  const names = new EventParser([], [], { featureKeys: "name" });
  const bad = reason(names, '{"features": {"json": "x"}, "labels": []}');
  assert(!bad.includes("--feature-keys"), bad);
});
