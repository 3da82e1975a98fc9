import { Progress, type ProgressDetail } from "../../src/progress/mod.ts";
import { assert } from "../helpers.ts";

function recorder(): { p: Progress; events: ProgressDetail[] } {
  const p = new Progress({ silent: true, intervalMs: 0 });
  const events: ProgressDetail[] = [];
  p.addEventListener("progress", (e) => events.push((e as CustomEvent<ProgressDetail>).detail));
  return { p, events };
}

Deno.test("Progress: a task of total 0 is complete: ETA 0, not unknown", () => {
  const { p, events } = recorder();
  p.start(0, "nothing to do");
  p.done();
  assert(events.length === 2, `${events.length} events`);
  for (const e of events) assert(e.etaSeconds === 0, `etaSeconds ${e.etaSeconds}`);
});

Deno.test("Progress: the ETA is 0 once the total is reached, even before any time has passed", () => {
  const { p, events } = recorder();
  p.start(3, "t");
  p.tick(3);
  p.tick(2); // past the total
  assert(events.length === 3, `${events.length} events: one per start and tick`);
  assert(events.slice(1).every((e) => e.etaSeconds === 0), JSON.stringify(events));
  assert(Number.isNaN(events[0].etaSeconds), "work left at rate 0: unknown");
});

Deno.test("Progress: tick refuses a count that is not a finite number", () => {
  const { p, events } = recorder();
  p.start(10, "t");
  for (const n of [NaN, Infinity]) {
    let err: unknown;
    try {
      p.tick(n);
    } catch (e) {
      err = e;
    }
    assert(err instanceof RangeError && /finite/.test(err.message), `tick(${n}): ${err}`);
  }
  p.tick(4);
  assert(p.doneCount === 4, `doneCount ${p.doneCount}`);
  assert(events.every((e) => Number.isFinite(e.done)), JSON.stringify(events));
});

Deno.test("Progress: the bar of a total-0 task on a terminal reads 100% and ETA 0:00", async () => {
  const code = `import { Progress } from ${
    JSON.stringify(
      new URL("../../src/progress/mod.ts", import.meta.url).href,
    )
  };
const p = new Progress({ force: true });
p.start(0, "empty");
p.done();`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  assert(out.success, err);
  const last = err.split("\r").filter((s) => s.trim() !== "").pop() ?? "";
  assert(last.includes("100%") && last.includes("ETA 0:00"), JSON.stringify(last));
});
