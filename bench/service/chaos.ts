/**
 * The chaos check (issue 16): `tagstream serve` (popularity model: every event carries its own
 * id as a label, so that the checkpoint's label counts say how often each event was applied)
 * takes events with ids over HTTP from several concurrent senders while it is `kill -9`ed at
 * random moments (some right after a `POST /checkpoint`), its disk "fills" once (the
 * `TAGSTREAM_FAULT_ENOSPC` hook: every state write fails with ENOSPC while a control file
 * exists), and a write-ahead-log record is corrupted once (the service must refuse to start,
 * then start with `--repair`, which reports the dropped events: they are sent again). Bodies
 * without an answer, or answered with 503, are sent again; so is a share of acknowledged
 * bodies. At the end, every acknowledged event must have been applied exactly once.
 *
 * Events are idempotent by id (issue 16, part 3): a body sent again after it was acknowledged,
 * or after the service died before answering (it may have been durable), is acknowledged and
 * its events already applied are not applied again. `doubled` counts every event applied more
 * than once, whatever the reason, and must be 0, as must `lost`; `duplicatesAcknowledged` sums
 * the `duplicates` of the answers, `duplicatesSkipped` is the service's own count (durable
 * state: duplicates answered, plus those of bodies logged whose answer a kill cut off). The
 * applied-id digest of the service must match the label counts.
 *
 * Deadline: a run that has no result after `deadlineSeconds` (default 600 + events / 250: ten
 * minutes plus ten times the sending time at 2500 events a second) fails with an error naming
 * the phase that hung (a service that stops answering would otherwise hang the run for ever);
 * the service process is killed and the state directory removed first.
 *
 * @module
 */
import { Rng } from "../../src/random/mod.ts";
import { StreamLearner } from "../../src/service/learner.ts";
import { openState, openStateChain } from "../../src/cli/commands/state.ts";
import { listSegmentFiles, type WalPosition } from "../../src/service/wal_segments.ts";
import { type ServiceProcess, startService } from "./harness.ts";

/**
 * Options of {@linkcode runChaosCheck}.
 *
 * @example
 * ```ts
 * import type { ChaosOptions } from "./chaos.ts";
 * const o: ChaosOptions = { events: 2000, kills: 3 };
 * console.log(o.kills); // 3
 * ```
 */
export interface ChaosOptions {
  /** Distinct events sent (default 20000). */
  events?: number;
  /** Events per body (default 50). */
  bodyEvents?: number;
  /** Concurrent senders (default 4). */
  senders?: number;
  /** kill -9 count (default 10). */
  kills?: number;
  /** Share of acknowledged bodies sent again (default 0.03). */
  resendShare?: number;
  /** New events sent per second at most (default 2500): the faults land mid-stream. */
  rate?: number;
  /** Seed (default 1). */
  seed?: number;
  /** Fill the disk once (default true). */
  diskFull?: boolean;
  /** Corrupt a log record once (default true). */
  corrupt?: boolean;
  /**
   * Longest run in seconds before it fails naming the phase that hung (default 600 +
   * events / 250; at most 2147483, setTimeout's limit).
   */
  deadlineSeconds?: number;
  /** Progress messages. */
  log?: (m: string) => void;
}

/**
 * Most {@linkcode ChaosOptions.deadlineSeconds}: setTimeout's limit (2^31 − 1 ms).
 *
 * @example
 * ```ts
 * import { MAX_DEADLINE_SECONDS } from "./chaos.ts";
 * console.log(MAX_DEADLINE_SECONDS); // 2147483
 * ```
 */
export const MAX_DEADLINE_SECONDS = 2147483;

/** How long a run past its deadline may take to end what it started before it fails. */
const DEADLINE_GRACE_MS = 60_000;

/**
 * What {@linkcode runChaosCheck} prints.
 *
 * @example
 * ```ts
 * import type { ChaosReport } from "./chaos.ts";
 * function ok(r: ChaosReport): boolean { return r.lost === 0 && r.doubled === 0; }
 * console.log(typeof ok); // "function"
 * ```
 */
export interface ChaosReport {
  check: "chaos";
  /** Distinct events sent. */
  sent: number;
  /** Events posted, resends included. */
  posted: number;
  /** Distinct events acknowledged (200). */
  acknowledged: number;
  /** Applications counted in the final state (an event applied twice counts twice). */
  applied: number;
  /** Acknowledged events not applied. */
  lost: number;
  /** Extra applications of events applied more than once, resent bodies included (must be 0). */
  doubled: number;
  /** Events sent again after their body's 200, or after a kill cut its answer off. */
  resent: { acknowledged: number; unanswered: number };
  /** Sum of the `duplicates` of the 200 answers (null: the answers carry no such field). */
  duplicatesAcknowledged: number | null;
  /** Events the service skipped as duplicates by id (its checkpointed count). */
  duplicatesSkipped: number;
  kills: number;
  faults: {
    diskFull: { refused503: number; healthDuring: number | null } | null;
    corruption: {
      refusedToStart: boolean;
      refusal: string;
      repairDropped: number;
      resentAfterRepair: number;
    } | null;
    killsDuringCheckpoint: number;
  };
  /** Whether the service's applied-id digest equals the digest of the counted applications. */
  digestMatchesCounts: boolean;
  seconds: number;
  pass: boolean;
  failures: string[];
}

interface Body {
  ids: number[];
  /** How it is sent: first time, again after a 200, after no answer, after a 503. */
  kind: "fresh" | "acked" | "unanswered" | "refused" | "repair";
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The default of {@linkcode ChaosOptions.deadlineSeconds} for `events` events. */
function defaultDeadlineSeconds(events: number): number {
  return Math.min(MAX_DEADLINE_SECONDS, Math.ceil(600 + events / 250));
}

function eventLine(i: number, rng: Rng): string {
  const f: Record<string, number> = {};
  for (let k = 0; k < 3; k++) f[String(Math.floor(rng.next() * 200))] = 1;
  return JSON.stringify({ id: `c${i}`, features: f, labels: [`c${i}`, `t${i % 7}`] });
}

/**
 * Runs the chaos check (see the module doc).
 *
 * @example
 * ```ts
 * import { runChaosCheck } from "./chaos.ts";
 * console.log(typeof runChaosCheck); // "function" (bench/service_chaos.ts runs it)
 * ```
 */
export async function runChaosCheck(options: ChaosOptions = {}): Promise<ChaosReport> {
  const n = options.events ?? 20000;
  const deadlineSeconds = options.deadlineSeconds ?? defaultDeadlineSeconds(n);
  if (
    !(Number.isFinite(deadlineSeconds) && deadlineSeconds > 0 &&
      deadlineSeconds <= MAX_DEADLINE_SECONDS)
  ) {
    throw new RangeError(
      `runChaosCheck: deadlineSeconds must be in (0, ${MAX_DEADLINE_SECONDS}], got ${deadlineSeconds}`,
    );
  }
  // What the run is doing (named when the deadline passes), and the signal that ends it then.
  const state = { phase: "starting the service", progress: () => "" };
  const abort = new AbortController();
  const work = chaosRun(options, n, state, abort.signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const e = new Error(
        `chaos check: no result within its deadline of ${deadlineSeconds} s ` +
          `(--deadline-seconds): hung while ${state.phase}${state.progress()}`,
      );
      abort.abort(e);
      reject(e);
    }, deadlineSeconds * 1000);
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (e) {
    if (abort.signal.aborted) {
      // the run ends what it started (the service killed, fetches cancelled, loops stopped)
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        work.catch(() => {}),
        new Promise((r) => (grace = setTimeout(r, DEADLINE_GRACE_MS))),
      ]);
      clearTimeout(grace);
      throw abort.signal.reason;
    }
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

async function chaosRun(
  options: ChaosOptions,
  n: number,
  state: { phase: string; progress: () => string },
  signal: AbortSignal,
): Promise<ChaosReport> {
  /** Throws once the deadline has passed (called after every wait). */
  const alive = () => signal.throwIfAborted();
  const per = options.bodyEvents ?? 50;
  const kills = options.kills ?? 10;
  const share = options.resendShare ?? 0.03;
  const log = options.log ?? (() => {});
  const rng = new Rng(options.seed ?? 1);
  let t0 = performance.now();
  const t00 = t0;
  const stateDir = await Deno.makeTempDir({ prefix: "tagstream-chaos-" });
  const control = `${stateDir}.enospc`;
  // the fault hook's control file goes to the service processes only: set in this process's
  // environment it reached every other test file of a parallel run (and their workers)
  const env = { TAGSTREAM_FAULT_ENOSPC: control };
  const args = [
    "--model",
    "popularity",
    "--publish-every",
    "0",
    "--checkpoint-every",
    "1000",
    "--checkpoint-seconds",
    "0.5",
    "--batch-size",
    "8",
  ];
  const lines: string[] = Array.from({ length: n }, (_, i) => eventLine(i, rng));
  const queue: Body[] = [];
  for (let i = 0; i < n; i += per) {
    queue.push({
      ids: Array.from({ length: Math.min(per, n - i) }, (_, k) => i + k),
      kind: "fresh",
    });
  }
  const acked = new Uint8Array(n);
  const resentAcked = new Uint8Array(n), resentUnanswered = new Uint8Array(n);
  let posted = 0, refused503 = 0, inFlight = 0, freshSent = 0;
  let duplicatesAnswered: number | null = null;
  const countDuplicates = (answer: { duplicates?: unknown }) => {
    if (typeof answer.duplicates === "number") {
      duplicatesAnswered = (duplicatesAnswered ?? 0) + answer.duplicates;
    }
  };
  const rate = options.rate ?? 2500;
  let svc: ServiceProcess | undefined;
  let url: string | undefined;
  let paused = false;
  const failures: string[] = [];
  const faults: ChaosReport["faults"] = {
    diskFull: null,
    corruption: null,
    killsDuringCheckpoint: 0,
  };
  let killCount = 0;

  const ackedCount = () => acked.reduce((a, b) => a + b, 0);
  state.progress = () => `; ${ackedCount()} of ${n} events acknowledged, ${killCount} kills`;
  let chaosDone = false, ended = false;
  const sender = async () => {
    while (!ended) {
      alive();
      if (paused || url === undefined) {
        await sleep(20);
        continue;
      }
      if (queue[0]?.kind === "fresh" && freshSent > (rate * (performance.now() - t0)) / 1000) {
        await sleep(5);
        continue;
      }
      const b = queue.shift();
      if (b?.kind === "fresh") freshSent += b.ids.length;
      if (b === undefined) {
        // senders stay until the faults are over: a repair's resend comes late
        if (chaosDone && inFlight === 0 && queue.length === 0) return;
        await sleep(20);
        continue;
      }
      inFlight++;
      const target = url;
      let status = 0;
      try {
        const res = await fetch(`${target}/events`, {
          method: "POST",
          body: b.ids.map((i) => lines[i]).join("\n") + "\n",
          signal,
        });
        status = res.status;
        if (status === 200) countDuplicates(await res.json());
        else await res.body?.cancel();
      } catch {
        status = 0; // killed mid-request: it may or may not be durable
      }
      posted += b.ids.length;
      inFlight--;
      if (status === 200) {
        for (const i of b.ids) acked[i] = 1;
        if (b.kind === "fresh" && rng.next() < share) {
          for (const i of b.ids) resentAcked[i] = 1;
          queue.push({ ids: b.ids, kind: "acked" });
        }
      } else if (status === 503) {
        refused503 += b.ids.length;
        queue.push({ ids: b.ids, kind: b.kind === "acked" ? "acked" : "refused" });
        await sleep(100); // Retry-After says 2 s; a shorter wait keeps the run short
      } else {
        if (status === 0) { for (const i of b.ids) resentUnanswered[i] = 1; }
        queue.push({ ids: b.ids, kind: b.kind === "acked" ? "acked" : "unanswered" });
        await sleep(20);
      }
    }
  };

  /** Starts the service (killed at once when the deadline passed meanwhile). */
  const start = async (extra: string[] = []) => {
    const p = await startService({ stateDir, args: [...args, ...extra], env });
    svc = p;
    log(`serve pid ${p.pid} listening at ${p.url}`);
    if (signal.aborted) {
      await p.kill9();
      alive();
    }
    return p;
  };
  const restart = async (extra: string[] = []) => {
    url = undefined;
    state.phase = `restarting the service${extra.length > 0 ? ` (${extra.join(" ")})` : ""}`;
    url = (await start(extra)).url;
  };
  const kill = async () => {
    url = undefined;
    state.phase = `killing the service (kill -9 #${killCount + 1})`;
    await svc!.kill9();
    killCount++;
  };

  const chaos = async () => {
    const steps = kills + 2;
    const diskAt = Math.floor(steps * 0.4), corruptAt = Math.floor(steps * 0.7);
    let k = 0;
    for (let step = 1; step <= steps; step++) {
      const target = Math.floor((n * step) / (steps + 1));
      state.phase = `step ${step} of ${steps}, waiting for ${target} acknowledged events`;
      while (ackedCount() < target) {
        await sleep(10);
        alive();
      }
      await sleep(rng.next() * 200);
      alive();
      if (step === diskAt && options.diskFull !== false) {
        state.phase = `step ${step} of ${steps}, the full disk (GET /health)`;
        await Deno.writeTextFile(control, "full");
        log(`disk full at ${ackedCount()} acknowledged`);
        await sleep(600);
        let health: number | null = null;
        try {
          const h = await fetch(`${url}/health`, { signal });
          health = h.status;
          await h.body?.cancel();
        } catch {
          health = null;
        }
        await sleep(600);
        await Deno.remove(control);
        faults.diskFull = { refused503: 0, healthDuring: health };
        if (health !== 503) failures.push(`/health answered ${health} while the disk was full`);
        continue;
      }
      if (step === corruptAt && options.corrupt !== false) {
        state.phase = `step ${step} of ${steps}, corrupting a write-ahead-log record`;
        faults.corruption = await corruptOnce();
        continue;
      }
      if (k >= kills) continue;
      k++;
      if (k % 3 === 0) {
        // during a checkpoint
        fetch(`${url}/checkpoint`, { method: "POST", signal }).then((r) => r.body?.cancel()).catch(
          () => {},
        );
        await sleep(rng.next() * 15);
        faults.killsDuringCheckpoint++;
      }
      await kill();
      log(`kill -9 #${killCount} at ${ackedCount()} acknowledged`);
      await restart();
    }
    while (killCount < kills) {
      await kill();
      await restart();
    }
  };

  const corruptOnce = async (): Promise<NonNullable<ChaosReport["faults"]["corruption"]>> => {
    // stop the senders, log one body, kill at once: its records are in the log
    paused = true;
    while (inFlight > 0) {
      await sleep(10);
      alive();
    }
    let target: { file: string; offset: number; id: number } | undefined;
    for (let attempt = 0; attempt < 20 && target === undefined; attempt++) {
      const b = queue.shift() ?? { ids: [0, 1, 2], kind: "acked" as const };
      if (b.kind === "acked") { for (const i of b.ids) resentAcked[i] = 1; }
      state.phase = "posting a body before corrupting its write-ahead-log record";
      const res = await fetch(`${url}/events`, {
        method: "POST",
        body: b.ids.map((i) => lines[i]).join("\n") + "\n",
        signal,
      });
      posted += b.ids.length;
      if (res.status === 200) countDuplicates(await res.json());
      else await res.body?.cancel();
      if (res.status === 200) { for (const i of b.ids) acked[i] = 1; }
      else queue.unshift(b);
      await kill();
      // a record the restart must replay: in a segment the checkpoint does not cover (one
      // taken between the answer and the kill covers the body, and a corrupted record there
      // rightly goes unread)
      target = await pickRecord(`${stateDir}/wal`, await uncoveredSegment(stateDir));
      if (target === undefined) await restart();
    }
    if (target === undefined) throw new Error("no write-ahead-log record to corrupt");
    const bytes = await Deno.readFile(target.file);
    const end = bytes.indexOf(10, target.offset);
    bytes[end - 4] ^= 0x08; // inside the record's features
    await Deno.writeFile(target.file, bytes);
    log(`corrupted ${target.file} at byte ${end - 4} (event c${target.id})`);
    let refusal = "";
    try {
      state.phase = "starting the service on the corrupted write-ahead log";
      await start();
      failures.push("the service started on a corrupted write-ahead log");
      await kill();
    } catch (e) {
      refusal = (e as Error).message.split("\n").find((l) => l.includes("damaged")) ?? "";
    }
    const refusedToStart = refusal.includes(target.file.split("/").pop()!);
    if (!refusedToStart) failures.push(`no clear refusal naming the file: ${refusal}`);
    await restart(["--repair"]);
    let dropped: number[] = [];
    for await (const e of Deno.readDir(stateDir)) {
      if (!e.name.startsWith("repair-")) continue;
      const r = JSON.parse(await Deno.readTextFile(`${stateDir}/${e.name}`));
      for (const w of r.wal as { ids?: string[] }[]) {
        dropped = dropped.concat((w.ids ?? []).map((s) => Number(s.slice(1))));
      }
    }
    if (!dropped.includes(target.id)) failures.push(`repair did not report event c${target.id}`);
    // what the repair reports lost is sent again, and counts as acknowledged only once that
    // answer comes (else the run could end, all acknowledged, before it is sent: lost)
    for (const i of dropped) acked[i] = 0;
    if (dropped.length > 0) queue.unshift({ ids: dropped, kind: "repair" });
    paused = false;
    return {
      refusedToStart,
      refusal: refusal.replace(stateDir, "STATE").slice(0, 300),
      repairDropped: dropped.length,
      resentAfterRepair: dropped.length,
    };
  };

  // the deadline kills the service at once (a hung one holds fetches and waits)
  const onDeadline = () => svc?.kill9().catch(() => {});
  signal.addEventListener("abort", onDeadline);
  let senders: Promise<void>[] = [];
  try {
    url = (await start()).url;
    t0 = performance.now();
    // each marked handled at once: a sender that stops at the deadline rejects while the main
    // flow still sleeps (its rejection reached Deno as unhandled, failing the run's process);
    // they are awaited below as before
    senders = Array.from({ length: options.senders ?? 4 }, () => {
      const p = sender();
      p.catch(() => {});
      return p;
    });
    await chaos();
    chaosDone = true;
    state.phase = "waiting for the senders to finish";
    await Promise.all(senders);
    state.phase = "stopping the service (SIGTERM)";
    const code = await svc!.stop();
    svc = undefined;
    if (code !== 0) failures.push(`serve exited with code ${code} on SIGTERM`);
    state.phase = "reading the final state";
    alive();
    const l = await openState(stateDir);
    const names = l.parser.labels.names, counts = l.labelCounts();
    const count = new Float64Array(n);
    for (let j = 0; j < names.length; j++) {
      const m = /^c(\d+)$/.exec(names[j]);
      if (m) count[Number(m[1])] = counts[j];
    }
    let applied = 0, lost = 0, doubled = 0, rAcked = 0, rUnanswered = 0;
    const lostIds: number[] = [];
    const multiset: string[] = [];
    for (let i = 0; i < n; i++) {
      applied += count[i];
      for (let c = 0; c < count[i]; c++) multiset.push(`c${i}`);
      if (acked[i] && count[i] === 0) {
        lost++;
        if (lostIds.length < 10) lostIds.push(i);
      }
      if (count[i] > 1) doubled += count[i] - 1;
      rAcked += resentAcked[i];
      rUnanswered += resentUnanswered[i];
    }
    const digestMatchesCounts = StreamLearner.digestOf(multiset) === l.idDigest &&
      l.applied === applied;
    if (faults.diskFull) faults.diskFull.refused503 = refused503;
    const acknowledged = ackedCount();
    if (acknowledged !== n) failures.push(`${n - acknowledged} events never acknowledged`);
    if (lost > 0) failures.push(`${lost} acknowledged events lost: c${lostIds.join(", c")}`);
    if (doubled > 0) failures.push(`${doubled} events applied more than once`);
    if (rAcked > 0 && l.duplicates === 0) {
      failures.push("bodies were sent again after a 200 but no duplicate was skipped");
    }
    if (!digestMatchesCounts) failures.push("the applied-id digest does not match the counts");
    if (killCount < kills) failures.push(`${killCount} kills of ${kills}`);
    if (options.diskFull !== false && refused503 === 0) failures.push("no 503 while disk full");
    return {
      check: "chaos",
      sent: n,
      posted,
      acknowledged,
      applied,
      lost,
      doubled,
      resent: { acknowledged: rAcked, unanswered: rUnanswered },
      duplicatesAcknowledged: duplicatesAnswered,
      duplicatesSkipped: l.duplicates,
      kills: killCount,
      faults,
      digestMatchesCounts,
      seconds: Math.round((performance.now() - t00) / 100) / 10,
      pass: failures.length === 0,
      failures,
    };
  } finally {
    signal.removeEventListener("abort", onDeadline);
    if (svc !== undefined) await svc.kill9().catch(() => {});
    // senders still looping (the deadline passed, or the chaos failed) end: not left behind
    ended = true;
    await Promise.allSettled(senders);
    await Deno.remove(control).catch(() => {});
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
}

/**
 * A record (not the first) of a format-2 segment numbered `fromSegment` or more holding at
 * least two, with its event id.
 */
async function pickRecord(
  dir: string,
  fromSegment: number,
): Promise<{ file: string; offset: number; id: number } | undefined> {
  const files: string[] = [];
  for (const s of await listSegmentFiles(dir)) {
    if (s.format === 2 && s.segment >= fromSegment) files.push(s.name);
  }
  for (const name of files.reverse()) {
    const bytes = await Deno.readFile(`${dir}/${name}`);
    const first = bytes.indexOf(10);
    if (first < 0) continue;
    const second = first + 1;
    const end = bytes.indexOf(10, second);
    if (end < 0) continue;
    const m = /"id":"c(\d+)"/.exec(new TextDecoder().decode(bytes.subarray(second, end)));
    if (m) return { file: `${dir}/${name}`, offset: second, id: Number(m[1]) };
  }
  return undefined;
}

/** The first write-ahead-log segment the state directory's checkpoint does not cover. */
async function uncoveredSegment(stateDir: string): Promise<number> {
  try {
    const { learner } = await openStateChain(stateDir);
    return (learner.position.wal as WalPosition | undefined)?.segment ?? 0;
  } catch (e) {
    if (e instanceof TypeError && /does not exist/.test(e.message)) return 0; // no checkpoint
    throw e;
  }
}
