/**
 * The service's workers (the learner thread, the POP publishing worker) lost to a message that
 * cannot be read: the caller waiting for the answer it carried is told so, instead of waiting
 * for ever; a request the worker cannot read fails the worker the same way.
 */
import { factory as leml } from "../../src/models/leml/mod.ts";
import { factory as br } from "../../src/models/br/mod.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { popModelBuilder } from "../../src/service/publish_pop.ts";
import { assert, assertEquals, recordingWorkers, withTempDir } from "./helpers.ts";

const LEARNER = new URL("../../src/cli/commands/serve_learner.ts", import.meta.url);

/** What a worker's error event would be for a message that cannot be deserialised. */
const unreadable = () => new MessageEvent("messageerror");

Deno.test("learner thread: a message that cannot be read fails the thread and the calls waiting, once", async () => {
  await withTempDir(async (dir) => {
    await recordingWorkers(async (made) => {
      const failures: string[] = [];
      const t = await LearnerThread.open({
        workerUrl: LEARNER,
        init: ["--state-dir", dir, "--model", "leml", "--option", "rank=2", "--no-prune"],
        factory: leml,
        onFailure: (m) => failures.push(m),
      });
      try {
        const w = made[0];
        const waiting = t.metrics();
        w.dispatchEvent(unreadable()); // the answer was in that message
        w.dispatchEvent(unreadable());
        let error = "";
        await waiting.then(() => {}, (e) => error = (e as Error).message);
        assert(/learner thread failed: .*could not be read/.test(error), error);
        assertEquals(failures.length, 1, failures.join("; "));
        assert(t.stopping && t.failure !== undefined);
      } finally {
        await t.stop().catch(() => {});
      }
    });
  });
});

Deno.test("learner thread: a message that cannot be read before it is ready refuses open()", async () => {
  await withTempDir(async (dir) => {
    await recordingWorkers(async (made) => {
      const opening = LearnerThread.open({
        workerUrl: LEARNER,
        init: ["--state-dir", dir, "--model", "leml", "--option", "rank=2", "--no-prune"],
        factory: leml,
      });
      made[0].dispatchEvent(unreadable()); // e.g. the first snapshot
      let error = "";
      const t = await opening.catch((e) => {
        error = (e as Error).message;
        return undefined;
      });
      await t?.stop();
      assert(/learner thread failed: .*could not be read/.test(error), error);
    });
  });
});

Deno.test("POP publishing: an answer that cannot be read publishes the file unpruned, saying why", async () => {
  await recordingWorkers(async (made) => {
    const m = br.create({ seed: 1 });
    const ev = (j: number, l: number) => ({
      x: { indices: Int32Array.of(j), values: Float32Array.of(1) },
      labels: Int32Array.of(l),
    });
    const events = Array.from({ length: 40 }, (_, i) => ev(i % 4, i % 2));
    for (const e of events) m.learnOne(e.x, e.labels);
    const builder = popModelBuilder({ minValidationRows: 10 });
    try {
      const building = builder.build({
        estimator: m,
        labelNames: ["a", "b"],
        labelCounts: Float64Array.of(20, 20),
        applied: 40,
        meta: {},
        validation: events,
      });
      assertEquals(made.length, 1);
      made[0].dispatchEvent(unreadable());
      const out = await building;
      assertEquals(out.pruned, false);
      assert(/POP worker failed: an answer could not be read/.test(out.note ?? ""), out.note);
      assert(out.bytes.length > 0);
      // the next build has a worker of its own again
      const again = await builder.build({
        estimator: m,
        labelNames: ["a", "b"],
        labelCounts: Float64Array.of(20, 20),
        applied: 40,
        meta: {},
        validation: events,
      });
      assertEquals(made.length, 2);
      assert(!/could not be read/.test(again.note ?? ""), again.note);
    } finally {
      builder.close?.();
    }
  });
});

/**
 * A worker running `module`'s worker side that, asked "unreadable", fires a messageerror at
 * itself and then answers "after": resolves with what the host saw first.
 */
async function unreadableRequest(setup: string): Promise<string> {
  const src = `${setup}
self.addEventListener("message", (e) => {
  if (e.data !== "unreadable") return;
  self.dispatchEvent(new MessageEvent("messageerror"));
  self.postMessage("after");
});`;
  const w = new Worker(`data:application/javascript,${encodeURIComponent(src)}`, {
    type: "module",
  });
  try {
    return await new Promise<string>((resolve) => {
      w.onmessage = (e) => {
        if (e.data === "after") resolve("no error");
      };
      w.onerror = (e) => {
        e.preventDefault();
        resolve(`error: ${e.message}`);
      };
      w.postMessage("unreadable");
    });
  } finally {
    w.terminate();
  }
}

Deno.test("the workers' side: a request that cannot be read fails the worker (its caller is told)", async () => {
  const pop = new URL("../../src/service/pop_worker.ts", import.meta.url).href;
  const popSeen = await unreadableRequest(`import "${pop}";`);
  assert(/a request could not be read/.test(popSeen), popSeen);
  const thread = new URL("../../src/service/learner_thread.ts", import.meta.url).href;
  const threadSeen = await unreadableRequest(
    `import { serveLearnerThread } from "${thread}";
serveLearnerThread(() => new Promise(() => {}));`,
  );
  assert(/request to the learner thread could not be read/.test(threadSeen), threadSeen);
});
