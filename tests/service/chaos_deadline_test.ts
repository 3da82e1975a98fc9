/**
 * The chaos check (bench/service/chaos.ts) has a deadline: a service that stops answering (here
 * SIGSTOPped once it listens: its connections are accepted, never answered) fails the run with
 * an error naming the phase that hung, and the service process is killed, instead of hanging the
 * run for ever.
 */
import { runChaosCheck } from "../../bench/service/chaos.ts";
import { assert } from "./helpers.ts";

/** Child processes of this one (pids). */
function children(): number[] {
  const out: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === Deno.pid) out.push(Number(e.name));
    } catch {
      // gone
    }
  }
  return out;
}

/** Whether process `pid` has a listening TCP socket. */
function listens(pid: number): boolean {
  const inodes = new Set<string>();
  try {
    for (const fd of Deno.readDirSync(`/proc/${pid}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(Deno.readLinkSync(`/proc/${pid}/fd/${fd.name}`));
      if (m) inodes.add(m[1]);
    }
    for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      for (const line of Deno.readTextFileSync(file).split("\n").slice(1)) {
        const f = line.trim().split(/\s+/);
        if (f[3] === "0A" && inodes.has(f[9])) return true; // state LISTEN
      }
    }
  } catch {
    // gone, or not ready
  }
  return false;
}

const alive = (pid: number) => {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
};

Deno.test("chaos check: a service that stops answering fails the run at its deadline, naming the phase, and is killed", async () => {
  const before = new Set(children());
  let stopped: number | undefined;
  // freeze the service once it listens (a hang guard ends the polling)
  const freezer = (async () => {
    for (let i = 0; i < 3000 && stopped === undefined; i++) {
      await new Promise((r) => setTimeout(r, 10));
      for (const pid of children()) {
        if (!before.has(pid) && listens(pid)) {
          Deno.kill(pid, "SIGSTOP");
          stopped = pid;
        }
      }
    }
  })();
  const options = { events: 3000, kills: 0, diskFull: false, corrupt: false, deadlineSeconds: 10 };
  const run = runChaosCheck(options).then(
    (r) => ({ report: r }),
    (e) => ({ error: e as Error }),
  );
  // a hang guard: the old check never ends
  let guard: ReturnType<typeof setTimeout> | undefined;
  const result = await Promise.race([
    run,
    new Promise<{ hung: true }>((r) => (guard = setTimeout(() => r({ hung: true }), 120_000))),
  ]);
  clearTimeout(guard);
  await freezer;
  assert(stopped !== undefined, "the service was found and stopped");
  assert(!("hung" in result), "the chaos check still runs 120 s after its service froze");
  assert(!("report" in result), `a report despite the frozen service: ${JSON.stringify(result)}`);
  const message = (result as { error: Error }).error.message;
  console.log(message);
  assert(/deadline of 10 s \(--deadline-seconds\): hung while /.test(message), message);
  assert(
    /waiting for \d+ acknowledged events; \d+ of 3000 events acknowledged/.test(message),
    message,
  );
  assert(!alive(stopped!), `the frozen service (pid ${stopped}) was killed`);
});
