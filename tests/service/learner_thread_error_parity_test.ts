/**
 * What a client or an operator sees of a failure is the same whether `serve` learns on a learner
 * thread or on its own thread: errors cross the thread as records of their class, name, message
 * and fields, rebuilt as the same class (a `WalDamageError` with its file and offset, a
 * `VocabularyError`, an OS error's `code`, ...), where they used to come back as a bare
 * TypeError/RangeError/SyntaxError/Error by name (a SyntaxError subclass named otherwise, e.g.
 * `CheckpointDamageError`, came back as an Error: exit 1 instead of 2). Driven both ways: a
 * failed open, a full disk behind the HTTP app (`/events` 503 and its Retry-After,
 * `/checkpoint`, `/health`), and `tagstream serve` refusing to start.
 */
import { factory as leml } from "../../src/models/leml/mod.ts";
import { createApp, type ServiceApp } from "../../src/service/http_app.ts";
import { LearnerThread } from "../../src/service/learner_thread.ts";
import { LearningService } from "../../src/service/service.ts";
import type { ServiceHandle } from "../../src/service/service_handle.ts";
import { WalDamageError } from "../../src/service/wal_reader.ts";
import { installFaultFromEnv, setStorageFault } from "../../src/service/storage_faults.ts";
import { isBadInput } from "../../src/cli/run_script.ts";
import { runMain } from "../cli/helpers.ts";
import { assert, assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";
import { ERROR_KINDS, injectedError } from "./fixtures/thread_errors.ts";

const FAULTY = new URL("./fixtures/startup_fault_learner.ts", import.meta.url);
const LEARNER = new URL("../../src/cli/commands/serve_learner.ts", import.meta.url);
/** The `serve` flags of {@linkcode serviceOptions}' service. */
const FLAGS = [
  ...["--model", "leml", "--option", "rank=4", "--option", "seed=1", "--batch-size", "4"],
  ...["--publish-every", "0", "--no-prune"],
];

/** What a caller can see of an error: its class, name, message, fields, and the CLI's exit. */
function seen(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { thrown: String(e) };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e).sort(([a], [b]) => a < b ? -1 : 1)) fields[k] = v;
  return {
    class: Object.getPrototypeOf(e)?.constructor?.name,
    name: e.name,
    message: e.message,
    fields,
    exit: isBadInput(e) ? 2 : 1,
  };
}

/** The rejection of `p` (fails when it resolves). */
async function rejection(p: Promise<unknown>, what: string): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error(`${what} did not reject`);
}

Deno.test("learner thread: open() rejects with the learning service's own error, class and fields included", async () => {
  for (const kind of ERROR_KINDS) {
    await withTempDir(async (dir) => {
      const same = await injectedError(kind);
      const thread = await rejection(
        LearnerThread.open({
          workerUrl: FAULTY,
          init: { dir, fault: `throws:${kind}` },
          factory: leml,
        }),
        kind,
      );
      const want = seen(same);
      // a thrown non-error arrives as an Error of its text, which the CLI prints the same way
      if ("thrown" in want) assertEquals((thread as Error).message, want.thrown, kind);
      else assertEquals(seen(thread), want, kind);
    });
  }
});

/** Copies the files of `from` into `to` (as a kill -9 would leave them). */
async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyDir(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/** A state directory whose write-ahead log's second record after the checkpoint is damaged. */
async function damagedWalState(dir: string): Promise<string> {
  const live = `${dir}/live`, state = `${dir}/state`;
  const s = await LearningService.open(serviceOptions(live, { checkpointSeconds: 0 }));
  await s.ingestBody(plantedEvents(8).join("\n"), "http");
  await s.checkpoint();
  await s.ingestBody(plantedEvents(4, 8).join("\n"), "http"); // in the log only
  await copyDir(live, state);
  await s.stop();
  const segments: string[] = [];
  for await (const e of Deno.readDir(`${state}/wal`)) if (e.isFile) segments.push(e.name);
  const p = `${state}/wal/${segments.sort().at(-1)}`;
  const bytes = await Deno.readFile(p);
  const second = bytes.indexOf(10) + 1;
  bytes[bytes.indexOf(10, second) - 5] ^= 1;
  await Deno.writeFile(p, bytes);
  return state;
}

Deno.test("learner thread: a damaged write-ahead log refuses open() with the same WalDamageError", async () => {
  await withTempDir(async (dir) => {
    const state = await damagedWalState(dir);
    const same = await rejection(LearningService.open(serviceOptions(state)), "same thread");
    const thread = await rejection(
      LearnerThread.open({
        workerUrl: LEARNER,
        init: ["--state-dir", state, ...FLAGS],
        factory: leml,
      }),
      "thread",
    );
    assert(same instanceof WalDamageError, String(same));
    assert(thread instanceof WalDamageError, String(thread));
    assertEquals(seen(thread), seen(same));
    assertEquals([thread.file, thread.offset], [same.file, same.offset]);
  });
});

/**
 * A request's status, Retry-After and JSON body, with the state directory's path as DIR and
 * times as TIME.
 */
async function answer(app: ServiceApp, dir: string, path: string, method = "GET", body?: string) {
  const r = await app.request(path, { method, body });
  const text = (await r.text()).replaceAll(dir, "DIR")
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "TIME"); // e.g. since when the disk is full
  return { status: r.status, retryAfter: r.headers.get("retry-after"), body: JSON.parse(text) };
}

Deno.test("learner thread: a full disk answers the same as on one thread (/events 503 + Retry-After, /checkpoint, /health)", async () => {
  await withTempDir(async (dirA) => {
    await withTempDir(async (dirB) => {
      const controlA = `${dirA}/full`, controlB = `${dirB}/full`;
      installFaultFromEnv({ TAGSTREAM_FAULT_ENOSPC: controlA }); // this thread's service's writes
      const same = await LearningService.open(
        serviceOptions(`${dirA}/s`, { checkpointSeconds: 0 }),
      );
      const thread = await LearnerThread.open({
        workerUrl: FAULTY,
        init: { dir: `${dirB}/s`, fault: "disk-full", control: controlB },
        factory: leml,
      });
      await same.start();
      const sides: [ServiceHandle, ServiceApp, string, string][] = [
        [same, createApp({ service: same }), dirA, controlA],
        [thread, createApp({ service: thread }), dirB, controlB],
      ];
      /** The answers of both sides to the same request (equal, or the test fails). */
      const both = async (path: string, method = "GET", body?: string) => {
        const [a, b] = await Promise.all(
          sides.map(([, app, dir]) => answer(app, dir, path, method, body)),
        );
        assertEquals(b, a, `${method} ${path}`);
        return a;
      };
      try {
        assertEquals((await both("/events", "POST", plantedEvents(6).join("\n"))).status, 200);
        for (const [, , , control] of sides) await Deno.writeTextFile(control, "");
        const ev = await both("/events", "POST", plantedEvents(4, 6).join("\n"));
        assertEquals([ev.status, ev.retryAfter], [503, "2"]);
        assert(/No space left on device/.test(ev.body.error), ev.body.error);
        const ck = await both("/checkpoint", "POST");
        assertEquals(ck.status, 500);
        assert(/No space left on device/.test(ck.body.error), ck.body.error);
        const health = await both("/health");
        assertEquals([health.status, health.body.status], [503, "degraded"]);
        // the error itself, as a caller of checkpoint() sees it
        const [ea, eb] = await Promise.all(
          sides.map(([s]) => rejection(s.checkpoint(), "checkpoint")),
        );
        const norm = (e: unknown, dir: string) =>
          JSON.parse(JSON.stringify(seen(e)).replaceAll(dir, "DIR"));
        assertEquals(norm(eb, dirB), norm(ea, dirA));
        assertEquals((eb as { code?: string }).code, "ENOSPC");
        for (const [, , , control] of sides) await Deno.remove(control);
        assertEquals((await both("/events", "POST", plantedEvents(4, 6).join("\n"))).status, 200);
        assertEquals((await both("/checkpoint", "POST")).status, 200);
        assertEquals((await both("/health")).status, 200);
      } finally {
        setStorageFault(undefined);
        for (const [, , , control] of sides) await Deno.remove(control).catch(() => {});
        await same.stop();
        await thread.stop();
      }
      const stopped = await both("/events", "POST", plantedEvents(1, 20).join("\n"));
      assertEquals([stopped.status, stopped.retryAfter], [503, "2"]);
    });
  });
});

Deno.test("tagstream serve: a start refused on a learner thread exits as on one thread, with the same message", async () => {
  await withTempDir(async (dir) => {
    const wal = await damagedWalState(`${dir}/w`);
    // a state directory of another model
    const other = `${dir}/other`;
    const s = await LearningService.open(serviceOptions(other));
    await s.ingestBody(plantedEvents(8).join("\n"), "http");
    await s.stop();
    // a damaged checkpoint
    const ck = `${dir}/ck`;
    await copyDir(other, ck);
    const bytes = await Deno.readFile(`${ck}/checkpoint.msgpack`);
    bytes[bytes.length - 20] ^= 0xff;
    await Deno.writeFile(`${ck}/checkpoint.msgpack`, bytes);
    const cases: [string, string[], number, RegExp][] = [
      [wal, FLAGS, 1, /The write-ahead log is damaged: .* at byte \d+: record checksum mismatch/],
      [other, ["--model", "br"], 2, /Checkpoint holds a 'leml' model but 'br' was asked for/],
      [ck, FLAGS, 2, /Cannot read checkpoint .*checkpoint is damaged at byte 16/],
    ];
    for (const [state, flags, code, re] of cases) {
      const run = (layout: string[]) =>
        runMain([
          "serve",
          ...["--no-auth", "--quiet", "--port", "0", "--state-dir", state, ...flags, ...layout],
        ]);
      const same = await run(["--same-thread"]);
      const thread = await run([]);
      assertEquals([same.code, thread.code], [code, code], `${state}: ${same.err} / ${thread.err}`);
      assert(re.test(thread.err), thread.err);
      // the same last line (the same-thread run also logs what it resumed on stderr)
      assertEquals(thread.err.split("\n").at(-1), same.err.split("\n").at(-1));
    }
  });
});
