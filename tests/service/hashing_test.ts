/**
 * Hashed feature names in the learning service (`--feature-keys hash`): events are hashed as
 * the data layer's FeatureHasher hashes them, no vocabulary grows, the published model file
 * carries the hashing parameters (so the SDK answers named queries like `/predict`), and a
 * restart keeps the hashing.
 */
import { FeatureHasher } from "../../src/data/hashing.ts";
import { factory as leml } from "../../src/models/leml/mod.ts";
import { EventParser } from "../../src/service/events.ts";
import { createApp } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import { learnerOptionFlags } from "../../src/cli/commands/learner_flags.ts";
import { loadModel } from "../../sdk/mod.ts";
import { assert, assertEquals, assertThrowsMsg, eventLine, withTempDir } from "./helpers.ts";

const HASHING = { dim: 64, seed: 9, signed: true };

/** Named events: label `t<c>` is signalled by words `w<c>_0..2`, plus one shared word. */
function namedEvents(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % 4;
    out.push(eventLine(`n${i}`, { [`w${c}_0`]: 1, [`w${c}_1`]: 1, [`w${c}_2`]: 0.5, common: 1 }, [
      `t${c}`,
    ]));
  }
  return out;
}

Deno.test("EventParser with hashing: names hash as FeatureHasher does, no vocabulary grows", async () => {
  const p = new EventParser([], [], { hashing: HASHING });
  assertEquals(p.featureKeys, "name");
  const r = p.parseLine('{"features": {"red": 1, "blue": 2, "17": 0.5}, "labels": ["x"]}');
  assert(r.ok, r.ok ? "" : r.reason);
  const want = new FeatureHasher(HASHING).hashNamed(["red", "blue", "17"], [1, 2, 0.5]);
  assertEquals([Array.from(r.event.x.indices), Array.from(r.event.x.values)], [
    Array.from(want.indices),
    Array.from(want.values),
  ]);
  assertEquals(p.features.size, 0);
  assertEquals(p.featureSpace(10), { type: "hashing", dim: 64, seed: 9, signed: true });
  // prediction rows are hashed too; the compact index form needs index keys
  const x = p.featuresForPredict({ red: 1, blue: 2, "17": 0.5 }, 64);
  assertEquals(Array.from(x.indices), Array.from(want.indices));
  await assertThrowsMsg(() => p.rowForPredict([1], undefined, 64), TypeError, "index feature keys");
  await assertThrowsMsg(
    () => new EventParser([], [], { featureKeys: "index", hashing: HASHING }),
    TypeError,
    'featureKeys must be "name"',
  );
});

Deno.test("service with hashed names: the published model answers named queries like /predict, and survives a restart", async () => {
  await withTempDir(async (dir) => {
    const open = () =>
      LearningService.open({
        factory: leml,
        stateDir: dir,
        batchSize: 8,
        limits: { hashing: HASHING },
        modelOptions: { rank: 8, seed: 2, lr: 0.05 },
        publishEvery: 0,
        log: () => {},
      });
    const queries: Record<string, number>[] = [
      { w0_0: 1, w0_1: 1, common: 1 },
      { w1_2: 1, w1_0: 1 },
      { w2_0: 1, w2_1: 1, w2_2: 1, common: 1 },
      { w3_1: 2, unseen_word: 1 },
    ];
    let s = await open();
    const fromApi: unknown[] = [];
    try {
      const app = createApp({ service: s });
      const events = namedEvents(400);
      for (let i = 0; i < events.length; i += 100) {
        const r = await app.request("/events", {
          method: "POST",
          body: events.slice(i, i + 100).join("\n"),
        });
        assertEquals(r.status, 200);
      }
      s.learner.flush();
      const m = await s.publish();
      const sdk = loadModel(m.bytes);
      assertEquals(sdk.featureSpace, { type: "hashing", dim: 64, seed: 9, signed: true });
      for (const q of queries) {
        const r = await app.request("/predict", {
          method: "POST",
          body: JSON.stringify({ features: q, k: 2 }),
        });
        assertEquals(r.status, 200);
        const api = await r.json() as { labels: string[]; scores: number[] };
        fromApi.push(api.labels);
        const local = sdk.predictTopK(q, 2);
        assertEquals(
          Array.from(local.labels, (l) => sdk.labelName(l)),
          api.labels,
          JSON.stringify(q),
        );
        local.scores.forEach((v, i) => assert(Math.abs(v - api.scores[i]) < 1e-5));
      }
      // the words of class c predict t<c>
      assertEquals(fromApi.slice(0, 3).map((l) => (l as string[])[0]), ["t0", "t1", "t2"]);
      assertEquals(s.learner.parser.features.size, 0);
    } finally {
      await s.stop();
    }
    // a restart resumes with the same hashing (the checkpoint keeps the limits)
    s = await open();
    try {
      assertEquals(s.learner.parser.featureSpace(1), {
        type: "hashing",
        dim: 64,
        seed: 9,
        signed: true,
      });
      const app = createApp({ service: s });
      const again: unknown[] = [];
      for (const q of queries) {
        const r = await app.request("/predict", {
          method: "POST",
          body: JSON.stringify({ features: q, k: 2 }),
        });
        again.push(((await r.json()) as { labels: string[] }).labels);
      }
      assertEquals(again, fromApi);
    } finally {
      await s.stop();
    }
  });
});

Deno.test("--feature-keys hash: hashing limits from the flags; hashing flags alone are refused", async () => {
  const f = (values: Record<string, string | boolean>) => ({ values, positionals: [] });
  const o = learnerOptionFlags(
    f({ "feature-keys": "hash", "hash-dim": "128", "hash-seed": "3", "hash-signed": true }),
  );
  assertEquals(o.limits?.featureKeys, "name");
  assertEquals(o.limits?.hashing, { dim: 128, seed: 3, signed: true });
  assertEquals(learnerOptionFlags(f({ "feature-keys": "hash" })).limits?.hashing, {
    dim: 1 << 18,
    seed: 0,
  });
  assertEquals(learnerOptionFlags(f({})).limits?.hashing, undefined);
  await assertThrowsMsg(
    () => learnerOptionFlags(f({ "hash-dim": "64" })),
    TypeError,
    "--feature-keys hash",
  );
  await assertThrowsMsg(
    () => learnerOptionFlags(f({ "feature-keys": "hash", "hash-dim": "0" })),
    RangeError,
    "hash-dim",
  );
  await assertThrowsMsg(
    () => learnerOptionFlags(f({ "feature-keys": "bag" })),
    TypeError,
    "index, name or hash",
  );
});
