// A service learning a gzip file (`--data FILE.gz`) looks up between minibatches, as it does for a
// plain file, not between decompressed chunks: a chunk is up to 256 KiB, and a stop or the
// checkpoint-every count waited for all of its lines (seconds of a slow learner), the position
// saved only at a chunk's end. These count events, not time: the file is one chunk, so the code
// before learnt it all before either. A stop inside the chunk saves a position inside it, and a
// resume from there learns each line once.
import type { EstimatorFactory } from "../../src/models/estimator.ts";
import { LearningService } from "../../src/service/service.ts";
import { toHex } from "../../src/data/fingerprint.ts";
import { slowLeml } from "./fixtures/slow_learner.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

const BATCH = 8;
const EVENTS = 400;
const TEXT = plantedEvents(EVENTS).join("\n") + "\n";

async function gzip(text: string): Promise<Uint8Array> {
  const s = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

async function withGzipFile(fn: (dir: string, file: string) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const file = `${dir}/e.ndjson.gz`;
    await Deno.writeFile(file, await gzip(TEXT));
    await fn(dir, file);
  });
}

/** Opens a service learning `file` once in minibatches of BATCH with `factory`. */
function open(
  dir: string,
  file: string,
  factory: EstimatorFactory,
  extra: Parameters<typeof serviceOptions>[1] = {},
): Promise<LearningService> {
  return LearningService.open(
    serviceOptions(`${dir}/state`, {
      factory,
      batchSize: BATCH,
      file,
      followFile: false,
      ...extra,
    }),
  );
}

Deno.test("gzip file: a stop inside a decompressed chunk ends the learning within a minibatch, and a resume learns each line once", async () => {
  await withGzipFile(async (dir, file) => {
    const ref: { service?: LearningService } = {};
    let stopAt: number | undefined;
    let stopped: Promise<void> | undefined;
    const factory = slowLeml({
      onLearn: () => {
        // (a stop asked synchronously, inside learning: no turn of the event loop is needed)
        if (stopped === undefined && ref.service!.learner.applied >= 5 * BATCH) {
          stopAt = ref.service!.learner.applied;
          stopped = ref.service!.stop();
        }
      },
    });
    const service = ref.service = await open(dir, file, factory);
    try {
      await service.start();
      await service.fileDone();
      assert(stopped !== undefined, "the stop was asked");
      await stopped;
    } finally {
      await service.stop();
    }
    const a = service.learner;
    assert(
      a.applied - stopAt! <= BATCH,
      `${
        a.applied - stopAt!
      } events applied after the stop was asked at ${stopAt} (at most ${BATCH})`,
    );
    // the position saved is inside the file's one chunk, with the bytes before it
    const at = a.position.file!;
    const bytes = new TextEncoder().encode(TEXT);
    assert(at.offset < bytes.length && at.line < EVENTS, `saved at line ${at.line}`);
    assertEquals(at.tail, toHex(bytes.subarray(at.offset - 64, at.offset)));
    const first = a.applied + a.pendingCount;
    assertEquals(at.line, first, "the position is after the events learnt or queued");

    const logged: string[] = [];
    const b = await open(dir, file, slowLeml({}), { log: (m) => logged.push(m) });
    try {
      await b.start();
      await b.fileDone();
    } finally {
      await b.stop();
    }
    const l = b.learner;
    assertEquals(
      [l.applied, l.rejected, l.duplicates, l.position.file?.line],
      [EVENTS, 0, 0, EVENTS],
      "every line learnt once",
    );
    assertEquals(logged.filter((m) => /replaced|rewritten|shorter/.test(m)), []);
  });
});

Deno.test("gzip file: --checkpoint-every N takes its first checkpoint within a minibatch of N events", async () => {
  await withGzipFile(async (dir, file) => {
    const ref: { service?: LearningService } = {};
    const taken: number[] = [];
    const factory = slowLeml({ onState: () => taken.push(ref.service!.learner.applied) });
    const every = 5 * BATCH;
    const service = ref.service = await open(dir, file, factory, {
      checkpointEvery: every,
      checkpointSeconds: 0,
    });
    try {
      await service.start();
      await service.fileDone();
    } finally {
      await service.stop();
    }
    const first = taken.find((n) => n > 0);
    assert(first !== undefined, "a checkpoint was taken");
    assert(
      first >= every && first <= every + BATCH,
      `the first checkpoint holds ${first} events (checkpoint-every ${every}, minibatches of ${BATCH})`,
    );
    assertEquals(service.learner.applied, EVENTS);
  });
});
