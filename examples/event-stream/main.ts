/**
 * Event-stream example: learns a tagger continuously from NDJSON events with named features and
 * named labels, test-then-train, then exports the model file and answers a query with the SDK.
 *
 * ```sh
 * # synthetic events generated in-process (no file, no server)
 * npx deno run -A examples/event-stream/main.ts --events 6000
 * # your own events: a file (gzip ok), an http(s) URL, or "-" for stdin
 * npx deno run -A examples/event-stream/main.ts --source events.ndjson --out model.tsm
 * ```
 *
 * An event is one JSON line `{"id": "e1", "features": {"word:cat": 1}, "labels": ["pets"]}`;
 * unseen feature and label names grow the model mid-stream.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { readExamples } from "../../src/data/readers.ts";
import { Minibatcher } from "../../src/data/batcher.ts";
import { syntheticExamples } from "../../src/data/synthetic.ts";
import { loadFactory } from "../../src/models/registry.ts";
import { PrequentialP1 } from "../../src/metrics/prequential.ts";
import { loadModel } from "../../sdk/mod.ts";
import { intFlag } from "../../src/cli/commands/args.ts";
import { checkOutFile } from "../../src/cli/commands/path_checks.ts";
import { runScript } from "../../src/cli/run_script.ts";

/**
 * Synthetic NDJSON events: the synthetic generator's rows with features named `w<j>` and labels
 * named `tag<l>`, one JSON object per line.
 *
 * @example
 * ```ts
 * import { syntheticEvents } from "./main.ts";
 * const first = (await Array.fromAsync(syntheticEvents(2, 1)))[0];
 * const e = JSON.parse(first);
 * console.log(e.id, Array.isArray(e.labels)); // ev-0 true
 * ```
 */
export async function* syntheticEvents(count: number, seed: number): AsyncGenerator<string> {
  let i = 0;
  for (const ex of syntheticExamples({ rows: count, seed, numFeatures: 3000, numLabels: 120 })) {
    const features: Record<string, number> = {};
    for (let p = 0; p < ex.x.indices.length; p++) {
      features[`w${ex.x.indices[p]}`] = Math.round(ex.x.values[p] * 1e4) / 1e4;
    }
    const labels = Array.from(ex.labels, (l) => `tag${l}`);
    yield JSON.stringify({ id: `ev-${i++}`, features, labels }) + "\n";
  }
}

/**
 * What {@linkcode runEventStream} returns.
 *
 * @example
 * ```ts
 * import type { EventStreamResult } from "./main.ts";
 * function ok(r: EventStreamResult): boolean { return r.sdkAgrees; }
 * console.log(typeof ok); // "function"
 * ```
 */
export interface EventStreamResult {
  events: number;
  skipped: number;
  numFeatures: number;
  numLabels: number;
  /** Test-then-train P@1 over the whole stream, percent. */
  prequentialP1: number;
  /** Test-then-train P@1 over the last 500 events, percent. */
  recentP1: number;
  modelBytes: number;
  /** The SDK's top-5 for the last event equals the trainer's (labels and scores within 1e-5). */
  sdkAgrees: boolean;
  /** The SDK's answer for the last event, by label name. */
  lastQuery: { label: string; score: number }[];
}

/**
 * Streams NDJSON events through a streaming model (default LEML) test-then-train in minibatches,
 * then writes the model file (label names and the feature vocabulary included) and checks that
 * the SDK, fed the last event's named features, answers like the trainer.
 *
 * @example
 * ```ts
 * import { runEventStream, syntheticEvents } from "./main.ts";
 * const r = await runEventStream({ source: syntheticEvents(600, 2), batchSize: 32 });
 * console.log(r.events, r.sdkAgrees); // 600 true
 * ```
 */
export async function runEventStream(options: {
  source: AsyncIterable<string> | string;
  model?: string;
  batchSize?: number;
  seed?: number;
  out?: string;
}): Promise<EventStreamResult> {
  // before any work: a model learned from a whole stream must not be lost at the end, nor
  // written over the events it was learned from or another file that is not a model
  if (options.out !== undefined) {
    const src = options.source;
    const inputs = typeof src === "string" ? [{ what: `--source ${src}`, path: src }] : [];
    await checkOutFile(options.out, "out", { inputs, kind: "model" });
  }
  const factory = await loadFactory(options.model ?? "leml");
  // the model is always written as a model file (and checked with the SDK) at the end
  if (factory.kind === "knn") {
    throw new TypeError(
      "--model knn cannot be written as a model file, which this example exports at the end of " +
        "the stream: pick another model (sleec is the exportable kNN one)",
    );
  }
  const reader = await readExamples(options.source, {
    format: "ndjson",
    featureKeys: "name",
    labelKeys: "name",
    onError: "skip",
  });
  const model = factory.create({ seed: options.seed ?? 0 });
  const preq = new PrequentialP1(500);
  let events = 0;
  let lastX: { indices: Int32Array; values: Float32Array } | undefined;
  const batches = reader.stream.pipeThrough(
    new TransformStream({
      transform(e, controller) {
        // test, then train: score the event before the model has seen it
        const top = model.predictTopK(e.x, 1);
        preq.add(top.labels.length > 0 ? top.labels[0] : -1, e.labels);
        lastX = e.x;
        events++;
        controller.enqueue(e);
      },
    }),
  ).pipeThrough(new Minibatcher({ batchSize: options.batchSize ?? 64, sizes: reader }));
  for await (const batch of batches) model.learnMany(batch);
  // a source of which no line is an event (a model file, a page of HTML, events whose labels
  // are not a list) used to end with exit status 0 and an empty model written to --out
  const { skipped, errors } = reader.report;
  if (events === 0 && skipped > 0) {
    const src = options.source === "-"
      ? "standard input"
      : typeof options.source === "string"
      ? options.source
      : "the source";
    throw new SyntaxError(
      `${src} gave no events: ${skipped} line${skipped === 1 ? "" : "s"} skipped as not ` +
        `events${errors[0] ? `; the first: ${errors[0].message}` : ""}`,
    );
  }

  const labelNames = reader.labelVocabulary?.names.slice(0, model.numLabels) ?? [];
  const featureNames = reader.featureVocabulary?.names.slice(0, model.numFeatures) ?? [];
  const bytes = model.toModelFile({ labelNames, featureNames });
  if (options.out) await Deno.writeFile(options.out, bytes);

  const sdk = loadModel(bytes);
  let sdkAgrees = true;
  let lastQuery: { label: string; score: number }[] = [];
  if (lastX) {
    const named: Record<string, number> = {};
    for (let p = 0; p < lastX.indices.length; p++) {
      named[featureNames[lastX.indices[p]]] = lastX.values[p];
    }
    const fromSdk = sdk.predictTopK(named, 5);
    const fromTrainer = model.predictTopK(lastX, 5);
    sdkAgrees = fromSdk.labels.length === fromTrainer.labels.length &&
      fromSdk.labels.every((l, i) =>
        l === fromTrainer.labels[i] && Math.abs(fromSdk.scores[i] - fromTrainer.scores[i]) <= 1e-5
      );
    lastQuery = Array.from(fromSdk.labels, (l, i) => ({
      label: sdk.labelName(l) ?? String(l),
      score: fromSdk.scores[i],
    }));
  }
  return {
    events,
    skipped: reader.report.skipped,
    numFeatures: model.numFeatures,
    numLabels: model.numLabels,
    prequentialP1: preq.p1,
    recentP1: preq.windowP1,
    modelBytes: bytes.length,
    sdkAgrees,
    lastQuery,
  };
}

/** What `--help` prints. */
const USAGE = `usage: deno run -A examples/event-stream/main.ts [--events N | --source FILE|URL|-]
  [--model leml] [--batch-size 64] [--seed 0] [--out model.tsm]

Learns a tagger test-then-train from NDJSON events {"id", "features": {"name": value},
"labels": ["name"]}: --events N synthetic ones (default 6000), or --source a file (gzip ok), an
http(s) URL or - for stdin (bad lines are skipped and counted). Writes the model file to --out,
checks that the SDK answers the last event like the trainer, and prints a JSON summary.
See examples/event-stream/README.md.`;

if (import.meta.main) {
  await runScript("event-stream", async () => {
    const { values } = parseArgs({
      args: Deno.args,
      options: {
        help: { type: "boolean", short: "h" },
        source: { type: "string" },
        events: { type: "string" },
        model: { type: "string", default: "leml" },
        "batch-size": { type: "string" },
        seed: { type: "string" },
        out: { type: "string" },
      },
    });
    if (values.help) {
      console.log(USAGE);
      return;
    }
    // every flag checked, naming it, before any event is read
    const flags = { values, positionals: [] };
    if (values.source !== undefined && values.events !== undefined) {
      throw new TypeError("--events counts synthetic events: it cannot go with --source");
    }
    const seed = intFlag(flags, "seed", 0)!;
    const events = intFlag(flags, "events", 6000, 0)!;
    const result = await runEventStream({
      source: values.source ?? syntheticEvents(events, seed),
      model: values.model,
      batchSize: intFlag(flags, "batch-size", 64, 1, 1 << 16),
      seed,
      out: values.out,
    });
    console.log(JSON.stringify(result));
  });
}
