/**
 * `GET /metrics` in Prometheus' text exposition format (0.0.4): chosen by `?format=prometheus`
 * or by an `Accept` header asking for text (as Prometheus sends), parsed here line by line (a
 * TYPE before every sample, valid names, labels and values, no sample twice) and checked
 * against the JSON metrics of the same service.
 */
import { createApp, prometheusText } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text format; throws naming the line on anything malformed. */
function parsePrometheus(text: string): Sample[] {
  assert(text.endsWith("\n"), "the exposition ends with a newline");
  const types = new Map<string, string>(), samples: Sample[] = [], seen = new Set<string>();
  const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  text.slice(0, -1).split("\n").forEach((line, i) => {
    const where = `line ${i + 1} '${line}'`;
    let m = new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`).exec(line);
    if (m) {
      if (m[1] === "TYPE") {
        assert(/^(counter|gauge|histogram|summary|untyped)$/.test(m[3]), `${where}: type`);
        assert(!types.has(m[2]), `${where}: TYPE given twice`);
        types.set(m[2], m[3]);
      }
      return;
    }
    assert(!line.startsWith("#"), `${where}: unknown comment`);
    m = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`).exec(line);
    assert(m !== null, `${where}: not a sample`);
    const [, name, rawLabels, rawValue] = m!;
    assert(types.has(name), `${where}: no TYPE before the sample`);
    const labels: Record<string, string> = {};
    if (rawLabels) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/y;
      let p = 0;
      while (p < rawLabels.length) {
        re.lastIndex = p;
        const l = re.exec(rawLabels);
        assert(l !== null, `${where}: bad label at ${p}`);
        labels[l![1]] = l![2].replace(/\\(.)/g, (_, c) => c === "n" ? "\n" : c);
        p = re.lastIndex;
      }
    }
    const value = rawValue === "+Inf" ? Infinity : rawValue === "-Inf" ? -Infinity : +rawValue;
    assert(rawValue === "NaN" || !Number.isNaN(value), `${where}: value`);
    const key = `${name}${JSON.stringify(labels)}`;
    assert(!seen.has(key), `${where}: sample given twice`);
    seen.add(key);
    samples.push({ name, labels, value });
  });
  return samples;
}

Deno.test("GET /metrics in Prometheus' text format: negotiation, and it parses and matches the JSON", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    try {
      const app = createApp({ service: s, token: "tok" });
      const auth = { authorization: "Bearer tok" };
      await s.ingestBody(plantedEvents(30).join("\n") + "\n{bad\n", "http");
      s.learner.flush();
      const json = await (await app.request("/metrics", { headers: auth })).json();
      const asText = async (path: string, headers: Record<string, string> = {}) => {
        const res = await app.request(path, { headers: { ...auth, ...headers } });
        return { type: res.headers.get("content-type"), body: await res.text() };
      };
      const PROM = "text/plain; version=0.0.4; charset=utf-8";
      const byQuery = await asText("/metrics?format=prometheus");
      assertEquals(byQuery.type, PROM);
      // what Prometheus sends
      const scraper = await asText("/metrics", {
        accept: "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3",
      });
      assertEquals(scraper.type, PROM);
      assertEquals((await asText("/metrics", { accept: "text/plain" })).type, PROM);
      assertEquals((await asText("/metrics", { accept: "*/*" })).type, "application/json");
      assertEquals(
        (await asText("/metrics?format=json", { accept: "text/plain" })).type,
        "application/json",
      );
      assertEquals((await app.request("/metrics?format=prometheus")).status, 401);

      const samples = parsePrometheus(byQuery.body);
      const get = (name: string) => samples.find((x) => x.name === name)?.value;
      assertEquals(get("tagstream_events_applied"), json.events.applied);
      assertEquals(get("tagstream_events_applied"), 30);
      assertEquals(get("tagstream_events_rejected"), 1);
      assertEquals(get("tagstream_model_version"), json.modelVersion);
      assertEquals(get("tagstream_num_labels"), json.numLabels);
      assertEquals(get("tagstream_prequential_p_at_1"), json.prequential["P@1"]);
      assertEquals(
        get("tagstream_prequential_cumulative_p_at_5"),
        json.prequential.cumulative["P@5"],
      );
      const info = samples.find((x) => x.name === "tagstream_info");
      assertEquals(info?.labels.model, json.model);
      assertEquals(info?.value, 1);
      assert(samples.length > 15, `${samples.length} samples`);
    } finally {
      await s.stop();
    }
  });
});

Deno.test("prometheusText: names in snake case, booleans, escapes, nulls and arrays left out", () => {
  const text = prometheusText({
    uptimeSeconds: 1.5,
    ok: true,
    nothing: null,
    list: [1, 2],
    "P@1": NaN,
    nested: { deepValue: -Infinity },
    note: 'a "quoted"\\ line\nnext',
  });
  const samples = parsePrometheus(text);
  // values as text: JSON (assertEquals) writes NaN and -Infinity alike as null
  assertEquals(samples.map((x) => [x.name, String(x.value)]), [
    ["tagstream_uptime_seconds", "1.5"],
    ["tagstream_ok", "1"],
    ["tagstream_p_at_1", "NaN"],
    ["tagstream_nested_deep_value", "-Infinity"],
    ["tagstream_info", "1"],
  ]);
  assertEquals(samples[4].labels.note, 'a "quoted"\\ line\nnext');
});
