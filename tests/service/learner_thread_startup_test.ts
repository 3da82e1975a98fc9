/**
 * The learner thread's startup window, between `init` and `ready` (and the first snapshot): a
 * thread that dies, ends itself, sends a message that cannot be read, cannot take or send its
 * first snapshot, or sends one the serving thread cannot restore makes `LearnerThread.open`
 * reject with a message saying so, and ends the worker, instead of waiting for ever (or, for a
 * bad message, throwing an uncaught error on the serving thread). After `ready`: an answer that
 * cannot be sent refuses its call, and a thread that ends itself fails the service.
 */
import { factory as leml } from "../../src/models/leml/mod.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { assert, assertEquals, plantedEvents, settled, waitUntil, withTempDir } from "./helpers.ts";

const FAULTY = new URL("./fixtures/startup_fault_learner.ts", import.meta.url);

/** The workers made while `fn` runs, and whether each was terminated (Worker restored after). */
async function watchingWorkers<T>(
  fn: (made: { worker: Worker; terminated: boolean }[]) => Promise<T>,
): Promise<T> {
  const Real = globalThis.Worker;
  const made: { worker: Worker; terminated: boolean }[] = [];
  globalThis.Worker = class extends Real {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      made.push({ worker: this, terminated: false });
    }
    override terminate(): void {
      const m = made.find((m) => m.worker === this);
      if (m !== undefined) m.terminated = true;
      super.terminate();
    }
  };
  try {
    return await fn(made);
  } finally {
    globalThis.Worker = Real;
  }
}

/** Opens the faulty thread with `fault`; its rejection (fails when it opens). */
async function openError(dir: string, fault: string): Promise<Error> {
  let t: LearnerThread | undefined;
  try {
    t = await settled(
      LearnerThread.open({ workerUrl: FAULTY, init: { dir, fault }, factory: leml }),
      `open() with ${fault}`,
    );
  } catch (e) {
    if ((e as Error).message.startsWith("timed out")) throw e;
    return e as Error;
  }
  await t.stop();
  throw new Error(`${fault}: open() did not reject`);
}

Deno.test("learner thread startup: every failure before ready rejects open() saying why and ends the worker", async () => {
  const cases: [string, RegExp][] = [
    ["snapshot-throws", /^the learner's first snapshot could not be sent: injected failure/],
    [
      "snapshot-uncloneable",
      /^the learner's first snapshot could not be sent: .*could not be cloned/,
    ],
    [
      "bad-first-snapshot",
      /^learner thread failed: its first snapshot could not be restored: Not a Tagstream checkpoint/,
    ],
    ["null-message", /^learner thread failed: a message from it could not be read \(null\)$/],
    ["dies", /^learner thread failed: .*injected failure while opening/],
    ["closes", /^learner thread failed: it closed itself while opening$/],
    ["exits", /^learner thread failed: it closed itself while opening$/],
  ];
  for (const [fault, re] of cases) {
    await withTempDir(async (dir) => {
      await watchingWorkers(async (made) => {
        const e = await openError(dir, fault);
        assert(re.test(e.message), `${fault}: ${e.message}`);
        assertEquals(made.length, 1, fault);
        assert(made[0].terminated, `${fault}: the worker was left running`);
      });
    });
  }
});

Deno.test("learner thread startup: an init a message cannot carry is a TypeError before any worker starts", async () => {
  await withTempDir(async (dir) => {
    await watchingWorkers(async (made) => {
      let error: unknown;
      await LearnerThread.open({
        workerUrl: FAULTY,
        init: { dir, fault: "none", log: () => {} },
        factory: leml,
      }).then((t) => t.stop(), (e) => error = e);
      assert(error instanceof TypeError, String(error));
      assert(
        /^LearnerThread\.open: option init must be a value a message can carry \(structured-clonable\): /
          .test(error.message),
        error.message,
      );
      assertEquals(made.length, 0);
    });
  });
});

Deno.test("learner thread: an answer that cannot be sent refuses its call instead of leaving it waiting", async () => {
  await withTempDir(async (dir) => {
    const t = await LearnerThread.open({
      workerUrl: FAULTY,
      init: { dir, fault: "metrics-uncloneable" },
      factory: leml,
    });
    try {
      let error = "";
      await settled(t.metrics(), "metrics()").then(
        () => error = "answered",
        (e) => error = (e as Error).message,
      );
      assert(
        /^the answer to 'metrics' could not be sent: .*could not be cloned/.test(error),
        error,
      );
      // the thread is still there
      const r = await t.ingestBody(plantedEvents(4).join("\n"), "http");
      assertEquals(r.accepted, 4);
    } finally {
      await t.stop();
    }
  });
});

Deno.test("learner thread: a thread that ends itself after ready fails the service and refuses the calls", async () => {
  await withTempDir(async (dir) => {
    await watchingWorkers(async (made) => {
      const failures: string[] = [];
      const t = await LearnerThread.open({
        workerUrl: FAULTY,
        init: { dir, fault: "closes-after-ingest" },
        factory: leml,
        onFailure: (m) => failures.push(m),
      });
      try {
        await t.ingestBody(plantedEvents(4).join("\n"), "http");
        await waitUntil(() => failures.length > 0, "the failure to be reported", 30_000);
        assertEquals(failures, ["learner thread failed: it closed itself"]);
        assert(t.stopping && t.failure === failures[0], String(t.failure));
        let error = "";
        await t.metrics().catch((e) => error = (e as Error).message);
        assertEquals(error, "learner thread failed: it closed itself");
        assert(made[0].terminated);
      } finally {
        await t.stop();
      }
    });
  });
});
