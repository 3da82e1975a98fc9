// The synthetic generator's `rowSeed`: fresh rows of the same planted structure (held-out rows),
// and no change at all to the rows of existing options.
import {
  resolveSyntheticOptions,
  syntheticExamples,
  SyntheticGenerator,
} from "../../src/data/synthetic.ts";
import type { Example } from "../../src/data/types.ts";
import { assert, assertEquals, assertThrowsMsg } from "./helpers.ts";

/** FNV-1a over labels, indices and values (to 1e-6) of every row. */
function fingerprint(rows: Iterable<Example>): string {
  let h = 2166136261 >>> 0;
  const mix = (v: number) => {
    h = Math.imul(h ^ (v >>> 0), 16777619) >>> 0;
  };
  for (const e of rows) {
    for (const l of e.labels) mix(l);
    mix(0xffff);
    for (const j of e.x.indices) mix(j);
    for (const v of e.x.values) mix(Math.round(v * 1e6));
  }
  return h.toString(16);
}

const SHAPE = { numLabels: 1000, numFeatures: 5000, avgNnz: 50, avgLabels: 5 };

Deno.test("synthetic rowSeed: without it the rows are those the generator gave before the option existed", () => {
  // fingerprints computed with the generator as it was before `rowSeed` was added
  assertEquals(fingerprint(syntheticExamples({ rows: 300, seed: 0 })), "ee25881e");
  assertEquals(fingerprint(syntheticExamples({ rows: 300, seed: 7, ...SHAPE })), "13444b9e");
  // and rowSeed = seed is the default
  assertEquals(
    fingerprint(syntheticExamples({ rows: 300, seed: 7, rowSeed: 7, ...SHAPE })),
    "13444b9e",
  );
  assertEquals(resolveSyntheticOptions({ seed: 3 }).rowSeed, 3);
  assertEquals(resolveSyntheticOptions({}).rowSeed, 0);
});

Deno.test("synthetic rowSeed: another rowSeed gives other rows of the same structure", () => {
  const train = new SyntheticGenerator({ seed: 7, ...SHAPE });
  const held = new SyntheticGenerator({ seed: 7, rowSeed: 7.5, ...SHAPE });
  assertEquals([...held.prototypes], [...train.prototypes]);
  assertEquals([...held.topicOf], [...train.topicOf]);
  assertEquals([...held.labelProbabilities], [...train.labelProbabilities]);
  const a = Array.from({ length: 500 }, () => train.next());
  const b = Array.from({ length: 500 }, () => held.next());
  const key = (e: Example) => `${e.labels}|${e.x.indices}`;
  const seen = new Set(a.map(key));
  const repeated = b.filter((e) => seen.has(key(e))).length;
  assert(repeated <= 5, `held-out rows are fresh draws, ${repeated} of 500 repeat a training row`);
  // the held-out rows follow the planted structure: most feature draws come from the row's
  // labels' prototypes (noise 0.3 by default)
  const F = held.options.featuresPerLabel;
  let fromPrototypes = 0, total = 0;
  for (const e of b) {
    const proto = new Set<number>();
    for (const l of e.labels) {
      for (let k = 0; k < F; k++) proto.add(held.prototypes[l * F + k]);
    }
    for (const j of e.x.indices) {
      total++;
      if (proto.has(j)) fromPrototypes++;
    }
  }
  assert(fromPrototypes / total > 0.5, `share of prototype features ${fromPrototypes / total}`);
  // a different seed gives a different structure
  const other = new SyntheticGenerator({ seed: 8, rowSeed: 7.5, ...SHAPE });
  assert(other.prototypes.some((v, i) => v !== held.prototypes[i]), "seed drives the structure");
});

Deno.test("synthetic rowSeed: must be finite", async () => {
  await assertThrowsMsg(
    () => resolveSyntheticOptions({ rowSeed: NaN }),
    RangeError,
    "rowSeed must be a finite number",
  );
});
