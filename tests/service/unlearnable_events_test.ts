// An event the model cannot learn (a raw feature value past what streaming LEML's squared loss
// can learn, src/models/raw_value_limit.ts) is rejected when it arrives, naming the line and the feature,
// and never accepted; a batch the model refuses anyway never blocks the learner: its events are
// learned one by one and only the refused one is set aside, as a rejection.
import { factory as leml } from "../../src/models/leml/mod.ts";
import { factory as br } from "../../src/models/br/mod.ts";
import type { Batch } from "../../src/data/types.ts";
import type { Estimator, EstimatorFactory } from "../../src/models/estimator.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import { assert } from "../helpers.ts";

const line = (f: number, v: number | string, label: string, id?: string) =>
  JSON.stringify({ ...(id ? { id } : {}), features: { [f]: v }, labels: [label] });

/** Every float of the model's state is finite. */
function finiteState(e: Estimator): boolean {
  for (const t of Object.values(e.toState().tensors)) {
    for (const v of Array.from(t as ArrayLike<number>)) if (!Number.isFinite(v)) return false;
  }
  return true;
}

Deno.test("ingestLine rejects a value the model cannot learn, naming the feature, and goes on", () => {
  const l = StreamLearner.create(leml, { batchSize: 2, modelOptions: { seed: 1, rank: 4 } });
  assert(l.ingestLine(line(0, 1, "a"), "demo", 1).ok, "line 1");
  const bad = l.ingestLine(line(3, 1e30, "b"), "demo", 2);
  assert(!bad.ok, "a raw 1e30 under the squared loss is refused");
  assert(
    /feature 3 has value 1e\+30, above the limit 1e\+15/.test(bad.ok ? "" : bad.reason),
    JSON.stringify(bad),
  );
  assert(l.applied === 1 && l.rejected === 1, `applied ${l.applied}, rejected ${l.rejected}`);
  assert(
    l.lastRejects[0].line === 2 && l.lastRejects[0].source === "demo",
    JSON.stringify(l.lastRejects),
  );
  for (let i = 0; i < 6; i++) {
    assert(l.ingestLine(line(i % 2, 1, i % 2 ? "b" : "a"), "demo", 3 + i).ok, `line ${3 + i}`);
  }
  assert(
    (l.applied as number) === 7 && l.learned === 6 && l.pendingCount === 1,
    `${l.applied} ${l.learned} ${l.pendingCount}`,
  );
  assert(finiteState(l.estimator), "the model stayed finite");
  // the same value with l2Normalize is learnable: nothing is refused
  const n = StreamLearner.create(leml, { modelOptions: { seed: 1, rank: 4, l2Normalize: true } });
  assert(n.ingestLine(line(3, 1e30, "b"), "demo", 1).ok, "l2-normalised rows are learned");
});

Deno.test("ingest refuses an unlearnable event with a RangeError before anything changes", () => {
  const l = StreamLearner.create(br, { modelOptions: { optimizer: "sgd" } });
  const x = { indices: Int32Array.of(2), values: Float32Array.of(-1e20) };
  let message = "";
  try {
    l.ingest({ id: "e9", x, labels: Int32Array.of(0) });
  } catch (e) {
    assert(e instanceof RangeError, String(e));
    message = (e as Error).message;
  }
  assert(/^Cannot learn event e9: feature 2 has value -1e\+20/.test(message), message);
  assert(l.applied === 0 && l.pendingCount === 0, `applied ${l.applied}`);
  // its id was not taken: the same id with a learnable row is applied
  assert(
    l.ingest({
      id: "e9",
      x: { indices: Int32Array.of(2), values: Float32Array.of(1) },
      labels: Int32Array.of(0),
    }),
    "e9",
  );
});

Deno.test("POST /events rejects the unlearnable line and accepts (and learns) the others", async () => {
  const dir = await Deno.makeTempDir();
  const service = await LearningService.open({
    factory: leml,
    modelOptions: { seed: 1, rank: 4 },
    stateDir: dir,
    log: () => {},
  });
  try {
    const app = createApp({ service, token: "t" });
    const body = [line(0, 1, "a", "x1"), line(1, 1e30, "b", "x2"), line(1, 1, "b", "x3")].join(
      "\n",
    );
    const res = await app.request("/events", {
      method: "POST",
      headers: { authorization: "Bearer t" },
      body,
    });
    const answer = await res.json();
    assert(answer.accepted === 2 && answer.rejectedCount === 1, JSON.stringify(answer));
    assert(
      answer.rejected[0].line === 2 && /feature 1 has value 1e\+30/.test(answer.rejected[0].reason),
      JSON.stringify(answer),
    );
    service.learner.flush();
    assert(
      service.learner.learned === 2 && service.learner.pendingCount === 0,
      `learned ${service.learner.learned}`,
    );
    assert(finiteState(service.learner.estimator), "the model stayed finite");
  } finally {
    await service.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/** BR whose learnMany refuses (before changing anything) any batch holding feature 13. */
function refusingFactory(): EstimatorFactory {
  return {
    kind: br.kind,
    settings: br.settings,
    restore: (s, o) => br.restore(s, o),
    create(options) {
      const real = br.create(options);
      const e: Estimator = {
        kind: real.kind,
        get numFeatures() {
          return real.numFeatures;
        },
        get numLabels() {
          return real.numLabels;
        },
        learnMany(batch: Batch) {
          if (Array.from(batch.x.indices).includes(13)) throw new RangeError("feature 13 refused");
          real.learnMany(batch);
        },
        learnOne: (x, y) => real.learnOne(x, y),
        predictTopK: (x, k) => real.predictTopK(x, k),
        predictScores: (x, out) => real.predictScores(x, out),
        toModelFile: (o) => real.toModelFile(o),
        toState: () => real.toState(),
      };
      return e;
    },
  };
}

Deno.test("a batch the model refuses sets aside only the refused event and never blocks", () => {
  const l = StreamLearner.create(refusingFactory(), { batchSize: 4 });
  const ids = ["a1", "a2", "bad", "a4", "a5", "a6", "a7", "a8"];
  for (const [i, id] of ids.entries()) {
    assert(
      l.ingestLine(line(id === "bad" ? 13 : i, 1, i % 2 ? "p" : "q", id), "demo", i + 1).ok,
      id,
    );
  }
  assert(
    l.pendingCount === 0 && l.learned === 8,
    `pending ${l.pendingCount}, learned ${l.learned}`,
  );
  assert(l.rejected === 1, `rejected ${l.rejected}`);
  const r = l.lastRejects[0];
  assert(
    r.source === "learner" && r.line === "bad" && /feature 13 refused/.test(r.reason),
    JSON.stringify(r),
  );
  // the prequential window counted the seven learned events, once each
  assert(l.window.totalScored === 7, `window ${l.window.totalScored}`);
  assert(l.estimator.numFeatures >= 8, `features ${l.estimator.numFeatures}`);
});
