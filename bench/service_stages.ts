/**
 * Where the time of `POST /events` goes, in process (no HTTP): a dataset's training rows as
 * NDJSON lines go through the service's stages one at a time, each timed on its own over
 * several passes: parsing (the byte-level fast path, and `JSON.parse` + validation for
 * comparison), test-then-train scoring (`predictTopK`, top 5), learning (`learnMany` on
 * minibatches) and the whole `LearningService.ingestBody` with its write-ahead log (the lines
 * without their ids, so that every pass is applied: `ingestBodyEventsApplied`). Prints one
 * JSON line with microseconds per event, as wall time and as CPU time of the process (on a
 * shared machine wall time also counts the time other processes held the core; CPU time has a
 * 10 ms resolution and counts every thread; scoring and learning run interleaved, so their CPU
 * time is the loop's split in proportion to their wall times), and the load average.
 *
 * ```
 * npx deno run --allow-all bench/service_stages.ts [--dataset bibtex] [--data-dir DIR]
 *   [--passes 5] [--batch-size 32] [--option rank=32 ...]
 * ```
 *
 * Bad flags ({@linkcode SERVICE_STAGES}) are one line on stderr and exit code 2.
 *
 * @module
 */
import type { Example } from "../src/data/types.ts";
import { examplesToBatch } from "../src/data/batcher.ts";
import { factory } from "../src/models/leml/mod.ts";
import { EventParser } from "../src/service/events.ts";
import { LearningService } from "../src/service/service.ts";
import { countFlag, stringFlag } from "../src/cli/commands/args.ts";
import { modelOptionFlags } from "../src/cli/commands/learner_flags.ts";
import { cpuSecondsOf, loadAverage, xcEvents } from "./service/harness.ts";
import { type BenchScript, checkXcDatasets, runBench } from "./args.ts";

/** CPU seconds (user + system) of this process, or NaN. */
const cpuSeconds = (): number => cpuSecondsOf(Deno.pid);

/** The options of bench/service_stages.ts. */
export interface StagesOptions {
  dataDir: string;
  dataset: string;
  passes: number;
  batchSize: number;
  /** LEML's options (`--option`), with seed 0 unless given. */
  modelOptions: Record<string, unknown>;
}

/**
 * The command line of bench/service_stages.ts, every flag checked before the data is read:
 * counts in plain decimal within their limits, the `--option`s taken by LEML and the dataset's
 * training file there.
 *
 * @example
 * ```ts
 * import { benchOptions } from "./args.ts";
 * import { SERVICE_STAGES } from "./service_stages.ts";
 * await benchOptions(SERVICE_STAGES, ["--passes", "0"]).catch((e) => console.log(e.message)); // --passes must be an integer in [1, 1000], got '0'
 * await benchOptions(SERVICE_STAGES, ["--option", "rnak=8"]).catch((e) => console.log(e.message)); // --option: leml: unknown option "rnak" (known: seed, …)
 * ```
 */
export const SERVICE_STAGES: BenchScript<StagesOptions> = {
  task: "bench/service_stages.ts",
  usage: `deno run -A bench/service_stages.ts [--dataset bibtex] [--data-dir DIR]
  [--passes 5 (1-1000)] [--batch-size 32 (1-65536)] [--option rank=32 ...]
Microseconds per event of each stage of POST /events, in process; one JSON line on stdout.`,
  flags: {
    dataset: "string",
    "data-dir": "string",
    passes: "string",
    "batch-size": "string",
    option: "multiple",
  },
  async options(f) {
    const dataset = stringFlag(f, "dataset", "bibtex")!;
    const passes = countFlag(f, "passes", 5, 1, 1000)!;
    const batchSize = countFlag(f, "batch-size", 32, 1, 1 << 16)!;
    const modelOptions = { seed: 0, ...modelOptionFlags(f) };
    try {
      factory.settings?.parse(modelOptions);
    } catch (e) {
      const E = e instanceof RangeError ? RangeError : TypeError;
      throw new E(`--option: ${(e as Error).message}`);
    }
    // the data directory last: every other flag is checked without it
    const dataDir = await checkXcDatasets(f, [dataset], false);
    return { dataDir, dataset, passes, batchSize, modelOptions };
  },
};

if (import.meta.main) await runBench(SERVICE_STAGES, main);

async function main(o: StagesOptions): Promise<void> {
  const { dataset, passes, batchSize, modelOptions } = o;
  const ev = await xcEvents(`${o.dataDir}/${dataset}.train.txt`);
  const enc = new TextEncoder();
  const lines = ev.lines.map((l) => enc.encode(l));
  const n = lines.length;
  const load0 = loadAverage(), cpu0 = cpuSeconds();
  const us = (ms: number, count: number) => Math.round((1000 * ms / count) * 100) / 100;

  const stage = async (f: () => unknown) => {
    const c = cpuSeconds(), t = performance.now();
    await f();
    return { wallMs: performance.now() - t, cpuMs: 1000 * (cpuSeconds() - c) };
  };
  const per = (x: { wallMs: number; cpuMs: number }) => ({
    wall: us(x.wallMs, passes * n),
    cpu: us(x.cpuMs, passes * n),
  });

  // parsing: the fast path, and JSON.parse + validation (what every line cost before)
  let parser = new EventParser();
  let examples: Example[] = lines.map((b) => parser.parseAscii(b, 0, b.length)!); // warm-up
  const parseFast = await stage(() => {
    for (let p = 0; p < passes; p++) {
      parser = new EventParser();
      examples = lines.map((b) => parser.parseAscii(b, 0, b.length)!);
    }
  });
  if (examples.some((e) => e === undefined)) throw new Error("a line missed the fast path");
  const dec = new TextDecoder("utf-8", { fatal: true });
  const parseJson = await stage(() => {
    for (let p = 0; p < passes; p++) {
      const slow = new EventParser();
      for (const b of lines) {
        const r = slow.parseLine(dec.decode(b));
        if (!r.ok) throw new Error(r.reason);
      }
    }
  });

  // scoring and learning on the same model, stage by stage (test-then-train order)
  const model = factory.create(modelOptions);
  let score = 0, learn = 0;
  const both = await stage(() => {
    for (let p = 0; p < passes; p++) {
      for (let s = 0; s < n; s += batchSize) {
        const batch = examples.slice(s, s + batchSize);
        const t = performance.now();
        if (model.numLabels > 0) {
          for (const e of batch) {
            let m = e.x.indices.length;
            while (m > 0 && e.x.indices[m - 1] >= model.numFeatures) m--;
            // the columns the model knows yet (as the service's row builder drops the others)
            const x = { indices: e.x.indices.subarray(0, m), values: e.x.values.subarray(0, m) };
            model.predictTopK(x, 5);
          }
        }
        const t1 = performance.now();
        model.learnMany(examplesToBatch(batch, model.numFeatures, parser.labels.size));
        learn += performance.now() - t1;
        score += t1 - t;
      }
    }
  });
  const split = (ms: number) => ({ wallMs: ms, cpuMs: both.cpuMs * ms / (score + learn) });

  // the whole ingestion path of the service (parse, score, learn, write-ahead log, checkpoints)
  const dir = await Deno.makeTempDir({ prefix: "tagstream-stages-" });
  let whole = { wallMs: 0, cpuMs: 0 };
  let applied = 0;
  try {
    const svc = await LearningService.open({
      factory,
      stateDir: dir,
      batchSize,
      modelOptions,
      publishEvery: 0,
      log: () => {},
    });
    // without their ids (as the load check sends them): with them every pass after the first
    // was duplicates, acknowledged and not applied, and the figure mostly timed the id check
    const noIds = ev.lines.map((l) => l.replace(/^\{"id":"(?:[^"\\]|\\.)*",/, "{"));
    const bodies: Uint8Array[] = [];
    for (let s = 0; s < n; s += 250) {
      bodies.push(enc.encode(noIds.slice(s, s + 250).join("\n") + "\n"));
    }
    whole = await stage(async () => {
      for (let p = 0; p < passes; p++) for (const b of bodies) await svc.ingestBody(b, "http");
    });
    applied = svc.applied;
    await svc.stop();
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  console.log(JSON.stringify({
    bench: "service-stages",
    dataset,
    events: n,
    passes,
    batchSize,
    modelOptions,
    microsecondsPerEvent: {
      parseFastPath: per(parseFast),
      parseJsonAndValidate: per(parseJson),
      scoreTop5: per(split(score)),
      learnMany: per(split(learn)),
      ingestBodyWithWal: per(whole),
    },
    // events the whole path applied: passes × events when every pass is learned
    ingestBodyEventsApplied: applied,
    cpuSeconds: Math.round((cpuSeconds() - cpu0) * 100) / 100,
    loadAverage: [load0, loadAverage()],
  }));
}
