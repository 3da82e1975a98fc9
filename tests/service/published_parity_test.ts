/**
 * What the service answers and what its published file answers at the edge agree, for every
 * model kind the service learns: the service's `POST /predict` (the trainer's own scoring) and the
 * SDK's `predictTopK` on the bytes of `publish()` give the same labels with the same scores within
 * float rounding, except that labels whose scores tie within that rounding may swap places.
 *
 * (The `knn` baseline is not exportable: its file would be the training set.) The stream is large
 * enough (1,600 events) that SLEEC's `knn-embedding` file carries
 * its index (from 1,024 stored points on), whose writer turns each cluster to its principal axes
 * and stores the points list by list: the SDK answers it exactly with `exact: true`, and the test
 * compares that. (Its default probes are calibrated for recall@5 0.999; `tests/sdk` checks them.)
 */
import { loadFactory } from "../../src/models/registry.ts";
import { createApp } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import { loadModel } from "../../sdk/mod.ts";
import { decodeModelFile } from "../../sdk/model_file.ts";
import { mulberry32 } from "../mulberry32.ts";
import { assert, assertEquals, eventLine, withTempDir } from "./helpers.ts";

const TOPICS = 24, WORDS = 12, EVENTS = 1600, QUERIES = 60, K = 5, TOL = 1e-4;

/** A topic's words, the other topics' noise, and 1-3 labels of the topic and its neighbour. */
function row(rand: () => number): { features: Record<string, number>; labels: string[] } {
  const t = Math.floor(rand() * TOPICS);
  const features: Record<string, number> = {};
  for (let j = 0; j < 4; j++) features[`w${t}_${Math.floor(rand() * WORDS)}`] = 1 + rand();
  features[`w${Math.floor(rand() * TOPICS)}_${Math.floor(rand() * WORDS)}`] = rand();
  const labels = new Set([`t${t}`]);
  if (rand() < 0.5) labels.add(`t${(t + 1) % TOPICS}`);
  if (rand() < 0.2) labels.add(`u${Math.floor(rand() * 3)}`);
  return { features, labels: [...labels] };
}

/**
 * Throws unless `got` is `want` up to rounding and ties: scores agree position by position, and a
 * label may differ only where its score ties another within `TOL`, or at the k-th score.
 */
function assertSameTopK(
  want: { labels: string[]; scores: number[] },
  got: { labels: string[]; scores: number[] },
  where: string,
): void {
  const show = `${where}\n  service ${JSON.stringify(want)}\n  sdk     ${JSON.stringify(got)}`;
  assertEquals(got.labels.length, want.labels.length, show);
  const scale = Math.max(1, ...want.scores.map(Math.abs));
  for (let i = 0; i < want.scores.length; i++) {
    assert(Math.abs(want.scores[i] - got.scores[i]) <= TOL * scale, `score ${i}: ${show}`);
  }
  const kth = want.scores[want.scores.length - 1];
  for (let i = 0; i < want.labels.length; i++) {
    if (got.labels[i] === want.labels[i]) continue;
    const s = want.scores[i];
    const tied = want.scores.some((o, j) => j !== i && Math.abs(o - s) <= TOL * scale) ||
      Math.abs(s - kth) <= TOL * scale;
    assert(tied, `label ${i} differs without a tie: ${show}`);
    const j = got.labels.indexOf(want.labels[i]);
    assert(
      j < 0 ? Math.abs(s - kth) <= TOL * scale : Math.abs(got.scores[j] - s) <= TOL * scale,
      show,
    );
  }
}

for (const kind of ["br", "ova", "leml", "coembed", "sleec", "popularity"]) {
  Deno.test(`published file: the SDK answers like the service's /predict (${kind})`, async () => {
    await withTempDir(async (dir) => {
      const s = await LearningService.open({
        factory: await loadFactory(kind),
        stateDir: dir,
        batchSize: 32,
        publishEvery: 0,
        log: () => {},
        limits: { featureKeys: "name" },
      });
      try {
        const app = createApp({ service: s });
        const rand = mulberry32(11);
        const lines = Array.from({ length: EVENTS }, (_, i) => {
          const r = row(rand);
          return eventLine(`e${i}`, r.features, r.labels);
        });
        for (let i = 0; i < lines.length; i += 400) {
          const r = await app.request("/events", {
            method: "POST",
            body: lines.slice(i, i + 400).join("\n"),
          });
          assertEquals(r.status, 200, await r.text());
        }
        s.learner.flush();
        const bytes = (await s.publish()).bytes;
        const sdk = loadModel(bytes);
        if (kind === "sleec") {
          // the file carries the list index, so its points were turned and reordered
          assert("knnOrder" in decodeModelFile(bytes).tensors, "sleec: no knn index written");
        }
        const queries = Array.from({ length: QUERIES }, () => row(rand).features);
        // one query the model has no feature of: every kind falls back to its biases or prior
        queries.push({ never_seen: 1 });
        const r = await app.request("/predict", {
          method: "POST",
          body: JSON.stringify({ rows: queries.map((features) => ({ features })), k: K }),
        });
        assertEquals(r.status, 200);
        const { results } = await r.json() as {
          results: { labels: string[]; scores: number[] }[];
        };
        let identical = 0;
        for (let q = 0; q < queries.length; q++) {
          const top = sdk.predictTopK(queries[q], K, { exact: true });
          const got = {
            labels: Array.from(top.labels, (l) => sdk.labelName(l)),
            scores: Array.from(top.scores),
          };
          assertSameTopK(results[q], got, `${kind} query ${q} ${JSON.stringify(queries[q])}`);
          if (got.labels.join() === results[q].labels.join()) identical++;
        }
        // ties are the exception, not the rule: otherwise the check above would say little
        assert(identical >= queries.length * 0.8, `${kind}: only ${identical} identical`);
      } finally {
        await s.stop();
      }
    });
  });
}
