/**
 * The chaos check (bench/service/chaos.ts) has a deadline: a service that stops answering (here
 * SIGSTOPped once it listens: its connections are accepted, never answered) fails the run with
 * an error naming the phase that hung, and the service process is killed, instead of hanging the
 * run for ever.
 */
import { runChaosCheck } from "../../bench/service/chaos.ts";
import { assert } from "./helpers.ts";

const alive = (pid: number) => {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
};

/**
 * The deadline (seconds). It runs from the check's start, the service's start included, and the
 * test means it to end the frozen phase only: the start has its own bound (the harness gives up,
 * with another error, when the service does not listen within 30 s), so a deadline past that
 * bound cannot fire while the service starts, however slow or paused the machine.
 */
const DEADLINE_S = 40;

Deno.test("chaos check: a service that stops answering fails the run at its deadline, naming the phase, and is killed", async () => {
  let stopped: number | undefined;
  // the service is frozen as soon as the check reports it listening, before any sender can
  // reach it (the check logs this right after the start, before it hands the senders its URL):
  // no event is acknowledged, whatever pauses this process
  const log = (m: string) => {
    const pid = /^serve pid (\d+) listening/.exec(m)?.[1];
    if (pid === undefined || stopped !== undefined) return;
    stopped = Number(pid);
    Deno.kill(stopped, "SIGSTOP");
  };
  const options = {
    events: 3000,
    kills: 0,
    diskFull: false,
    corrupt: false,
    deadlineSeconds: DEADLINE_S,
    log,
  };
  const run = runChaosCheck(options).then(
    (r) => ({ report: r }),
    (e) => ({ error: e as Error }),
  );
  // a hang guard: the old check never ends
  let guard: ReturnType<typeof setTimeout> | undefined;
  const result = await Promise.race([
    run,
    new Promise<{ hung: true }>((r) => (guard = setTimeout(() => r({ hung: true }), 180_000))),
  ]);
  clearTimeout(guard);
  assert(stopped !== undefined, "the service was found and stopped");
  assert(!("hung" in result), "the chaos check still runs 180 s after its service froze");
  assert(!("report" in result), `a report despite the frozen service: ${JSON.stringify(result)}`);
  const message = (result as { error: Error }).error.message;
  console.log(message);
  assert(
    new RegExp(`deadline of ${DEADLINE_S} s \\(--deadline-seconds\\): hung while `).test(message),
    message,
  );
  assert(
    /waiting for \d+ acknowledged events; 0 of 3000 events acknowledged/.test(message),
    message,
  );
  assert(!alive(stopped!), `the frozen service (pid ${stopped}) was killed`);
});
