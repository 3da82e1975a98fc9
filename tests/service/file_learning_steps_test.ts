// A service learning a file looks up between minibatches, not between reads: a read is up to
// 1 MiB (~10^4 events, minutes of a slow learner), and a stop or the checkpoint-every count
// waited for all of it (a LEML rank-64 learner at ~1 ms per event took ~25 s to stop on Ctrl-C
// and wrote its first checkpoint after ~45,000 events with --checkpoint-every 2000). These count
// events, not time: the file fits in one read, so the code before learnt it all before either.
// A gzip file (`--data FILE.gz`) is learnt the same way, not a decompressed chunk (up to 256 KiB)
// at a time, whose position was saved only at the chunk's end: a stop inside the chunk saves a
// position inside it, and a resume from there learns each line once.
import type { EstimatorFactory } from "../../src/models/estimator.ts";
import { LearningService } from "../../src/service/service.ts";
import { toHex } from "../../src/data/fingerprint.ts";
import { slowLeml } from "./fixtures/slow_learner.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";
import { gzip } from "../helpers.ts";

const BATCH = 8;
const EVENTS = 400;

/** The text of a file of `events` planted events. */
const eventsText = (events: number) => plantedEvents(events).join("\n") + "\n";

/** Runs `fn` on a file of `events` planted events, gzip-compressed with `gz` (one chunk). */
async function withFile(
  events: number,
  fn: (dir: string, file: string) => Promise<void>,
  gz = false,
): Promise<void> {
  await withTempDir(async (dir) => {
    const file = `${dir}/e.ndjson${gz ? ".gz" : ""}`;
    const text = eventsText(events);
    await (gz ? Deno.writeFile(file, await gzip(text)) : Deno.writeTextFile(file, text));
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

/**
 * Opens a service learning `file` in minibatches of BATCH with `factory` (`ref.service` set before
 * it starts, for the learner's hooks), runs it to the file's end, and waits for the stop the hooks
 * asked for (`stopped()`, asserted asked).
 */
async function learnUntilStopped(
  dir: string,
  file: string,
  factory: EstimatorFactory,
  ref: { service?: LearningService },
  stopped: () => Promise<void> | undefined,
): Promise<LearningService> {
  const service = ref.service = await open(dir, file, factory);
  try {
    await service.start();
    await service.fileDone();
    const stop = stopped();
    assert(stop !== undefined, "the stop was asked");
    await stop;
  } finally {
    await service.stop(); // (at once when the stop above ran)
  }
  return service;
}

Deno.test("file source: a stop asked while a minibatch is learnt ends the file's learning after it", async () => {
  await withFile(EVENTS, async (dir, file) => {
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
    const service = await learnUntilStopped(dir, file, factory, ref, () => stopped);
    const after = service.learner.applied - stopAt!;
    assert(
      after <= BATCH,
      `${after} events applied after the stop was asked at ${stopAt} (at most a minibatch, ${BATCH})`,
    );
    assert(service.learner.applied < EVENTS, "the file is not learnt to its end");
  });
});

Deno.test("file source: a stop asked from a timer (as a signal is) is seen within two minibatches of a slow learner", async () => {
  await withFile(200, async (dir, file) => {
    const ref: { service?: LearningService } = {};
    let askedAt: number | undefined, stopAt: number | undefined;
    let stopped: Promise<void> | undefined;
    // 5 ms per event: a minibatch (40 ms) outlasts the file loop's slice between two turns, so
    // every minibatch ends with a turn of the event loop
    const factory = slowLeml({
      spinMs: 5,
      onLearn: () => {
        if (askedAt !== undefined) return;
        askedAt = ref.service!.learner.applied;
        setTimeout(() => {
          stopAt = ref.service!.learner.applied;
          stopped = ref.service!.stop();
        }, 0);
      },
    });
    const service = await learnUntilStopped(dir, file, factory, ref, () => stopped);
    assert(
      stopAt! - askedAt! <= 2 * BATCH,
      `the timer set at ${askedAt} events ran at ${stopAt} (at most two minibatches later)`,
    );
    assert(
      service.learner.applied - stopAt! <= BATCH,
      `${service.learner.applied - stopAt!} events applied after the stop (at most ${BATCH})`,
    );
  });
});

Deno.test("gzip file: a stop inside a decompressed chunk ends the learning within a minibatch, and a resume learns each line once", async () => {
  await withFile(EVENTS, async (dir, file) => {
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
    const service = await learnUntilStopped(dir, file, factory, ref, () => stopped);
    const a = service.learner;
    assert(
      a.applied - stopAt! <= BATCH,
      `${
        a.applied - stopAt!
      } events applied after the stop was asked at ${stopAt} (at most ${BATCH})`,
    );
    // the position saved is inside the file's one chunk, with the bytes before it
    const at = a.position.file!;
    const bytes = new TextEncoder().encode(eventsText(EVENTS));
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
  }, true);
});

for (const [kind, gz] of [["file source", false], ["gzip file", true]] as const) {
  Deno.test(`${kind}: --checkpoint-every N takes its first checkpoint within a minibatch of N events`, async () => {
    await withFile(EVENTS, async (dir, file) => {
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
    }, gz);
  });
}
