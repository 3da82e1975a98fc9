// An event over `--max-features` that is also over `--max-feature-growth` named only the first:
// an operator starting a 10⁶-feature stream raised `--max-features`, restarted, and found every
// early event refused again, now by `--max-feature-growth` ("would widen the feature space from 0
// to 991606 columns"). The refusal names both flags when both are exceeded (either path: the
// growth guard's own check, or the parser's width), and one flag when only one is.
import { EventParser } from "../../src/service/events.ts";
import { growthLimitOf } from "../../src/service/growth_refusal_log.ts";
import { assert, assertEquals } from "./helpers.ts";

const reason = (p: EventParser, index: number): string => {
  const r = p.parseLine(JSON.stringify({ features: { [String(index)]: 1 }, labels: ["a"] }));
  assert(!r.ok, `index ${index} refused`);
  return r.reason;
};

for (
  const [what, parser] of [
    ["the growth guard's check", () => new EventParser()],
    ["the parser's own width", () => new EventParser([], [], { maxFeatures: 1000 })],
  ] as const
) {
  Deno.test(`growth refusal over --max-features and --max-feature-growth names both (${what})`, () => {
    const p = parser();
    p.setGrowthLimits({ maxFeatures: 1000, maxFeatureGrowth: 100 }, 0);
    const both = reason(p, 991605);
    assertEquals(
      both,
      "feature index 991605 is out of range [0, 1000): above --max-features 1000, and it would " +
        "widen the feature space from 0 to 991606 columns: more than --max-feature-growth 100 " +
        "in one event (raise both)",
    );
    assertEquals(growthLimitOf(both), "--max-features");
    // over the growth only (from the widest event so far: 91 columns)
    assert(p.parseLine('{"features": {"90": 1}, "labels": ["a"]}').ok);
    const growth = reason(p, 500);
    assertEquals(
      growth,
      "feature index 500 would widen the feature space from 91 to 501 columns: more than " +
        "--max-feature-growth 100 in one event",
    );
    assertEquals(growthLimitOf(growth), "--max-feature-growth");
    // over --max-features only (within the growth from the widest event, 991 columns): one flag
    for (let i = 180; i < 1000; i += 90) {
      assert(p.parseLine(`{"features": {"${i}": 1}, "labels": ["a"]}`).ok, `index ${i}`);
    }
    assertEquals(
      reason(p, 1005),
      "feature index 1005 is out of range [0, 1000): above --max-features 1000",
    );
  });
}
