// Starting `serve` for a stream of 10⁶ labels and features took three flags found one refusal
// at a time (`--max-features`, then `--max-feature-growth`, then `--max-labels` after ~29k
// events). `serve` now logs, at its start, every growth limit in force and the model's sizes,
// with the three flags a wider stream needs raised together.
import { assert, serveCommand, withTempDir } from "./helpers.ts";

/** `serve`'s stderr from its start until it listens (then it is stopped). */
async function startupLog(dir: string, extra: string[]): Promise<string> {
  const child = serveCommand(dir, ["--model", "ova", ...extra]).spawn();
  const stderr = new Response(child.stderr).text();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!out.includes("\n")) {
      const r = await reader.read();
      if (r.done) break;
      out += r.value;
    }
    reader.releaseLock();
    assert(out.includes('"event":"listening"'), `listening: ${out}`);
  } finally {
    child.kill("SIGTERM");
    await child.stdout.cancel().catch(() => {});
    await child.status;
  }
  return await stderr;
}

Deno.test("serve: the start's log names every growth limit in force, and the model's sizes", async () => {
  await withTempDir(async (dir) => {
    const log = await startupLog(dir, []);
    const line = log.split("\n").find((l) => l.includes("growth limits")) ?? "";
    for (
      const part of [
        "--max-labels 65536 (0 labels now)",
        "--max-features 262144 (0 features now)",
        "--max-feature-growth 131072 columns per event",
        "--max-new-labels 1024 per event",
        "needs --max-labels, --max-features and --max-feature-growth raised together",
      ]
    ) assert(line.includes(part), `${part} in: ${log}`);
  });
});

Deno.test("serve --same-thread: the raised limits are the ones logged", async () => {
  await withTempDir(async (dir) => {
    const log = await startupLog(dir, [
      "--same-thread",
      ...["--max-labels", "1000000", "--max-features", "1000000"],
      ...["--max-feature-growth", "1000000"],
    ]);
    const line = log.split("\n").find((l) => l.includes("growth limits")) ?? "";
    assert(line.includes("--max-labels 1000000 (0 labels now)"), log);
    assert(line.includes("--max-features 1000000 (0 features now)"), log);
    assert(line.includes("--max-feature-growth 1000000 columns per event"), log);
  });
});
