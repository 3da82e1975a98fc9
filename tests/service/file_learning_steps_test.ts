// A service learning a file looks up between minibatches, not between reads: a read is up to
// 1 MiB (~10^4 events, minutes of a slow learner), and a stop or the checkpoint-every count
// waited for all of it (a LEML rank-64 learner at ~1 ms per event took ~25 s to stop on Ctrl-C
// and wrote its first checkpoint after ~45,000 events with --checkpoint-every 2000). These count
// events, not time: the file fits in one read, so the code before learnt it all before either.
import type { EstimatorFactory } from "../../src/models/estimator.ts";
import { LearningService } from "../../src/service/service.ts";
import { slowLeml } from "./fixtures/slow_learner.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

const BATCH = 8;
const EVENTS = 400;

async function withFile(
  events: number,
  fn: (dir: string, file: string) => Promise<void>,
): Promise<void> {
  await withTempDir(async (dir) => {
    const file = `${dir}/e.ndjson`;
    await Deno.writeTextFile(file, plantedEvents(events).join("\n") + "\n");
    await fn(dir, file);
  });
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
  const service = ref.service = await LearningService.open(
    serviceOptions(`${dir}/state`, { factory, batchSize: BATCH, file, followFile: false }),
  );
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

Deno.test("file source: --checkpoint-every N takes its first checkpoint within a minibatch of N events", async () => {
  await withFile(EVENTS, async (dir, file) => {
    const ref: { service?: LearningService } = {};
    const taken: number[] = [];
    const factory = slowLeml({ onState: () => taken.push(ref.service!.learner.applied) });
    const every = 5 * BATCH;
    const service = ref.service = await LearningService.open(serviceOptions(`${dir}/state`, {
      factory,
      batchSize: BATCH,
      file,
      followFile: false,
      checkpointEvery: every,
      checkpointSeconds: 0,
    }));
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
