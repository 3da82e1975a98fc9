/**
 * One writing process per state directory. Nothing used to stop two: 13 `train --follow`
 * processes ran on one `--state-dir` and none was refused, and two `serve` would interleave their
 * write-ahead-log records. Now `train --state-dir` and `serve` hold an OS lock on `DIR/lock`: a
 * second writer is refused at once (exit 2) naming the directory and the holder's pid; the
 * readers (`inspect`, `export`) still read it; the lock ends with its process, `kill -9` included,
 * and with a clean stop. Every process here is a real one (`Deno.execPath()`, the deno binary,
 * so that a signal reaches the process that holds the lock).
 */
import { assert, assertEquals, runMain, runServe, withTempDir } from "./helpers.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

/** `tagstream ARGS` as a child process, its output piped. */
function spawn(args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", TAGSTREAM_TOKEN: "" },
  }).spawn();
}

/** `tagstream ARGS` run to its end (a liveness guard of 60 s kills it: code null). */
async function run(args: string[]): Promise<{ code: number | null; err: string; out: string }> {
  const child = spawn(args);
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const o = await child.output();
  clearTimeout(timer);
  const dec = new TextDecoder();
  return {
    code: o.signal === null ? o.code : null,
    out: dec.decode(o.stdout),
    err: dec.decode(o.stderr),
  };
}

/** Waits until `path` exists (a liveness guard of 60 s, not a timing check). */
async function waitForFile(path: string, child: Deno.ChildProcess): Promise<void> {
  let exited = false;
  child.status.then(() => exited = true);
  for (let i = 0; i < 600; i++) {
    if (await Deno.stat(path).then(() => true, () => false)) return;
    if (exited) throw new Error(`the writer ended before ${path} was written`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${path} was not written in 60 s`);
}

/** The first stdout line of `child` (serve's listening line). */
async function firstLine(child: Deno.ChildProcess): Promise<string> {
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  reader.releaseLock();
  return text.split("\n")[0];
}

const EVENTS = Array.from(
  { length: 40 },
  (_, i) => JSON.stringify({ id: `e${i}`, features: { [i % 7]: 1 }, labels: [`l${i % 3}`] }),
).join("\n") + "\n";

/** The pattern of the refusal of a second writer of `state` while pid `pid` runs `command`. */
function refusal(state: string, command: string, pid: number): RegExp {
  const dir = state.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return new RegExp(
    `--state-dir ${dir} is in use by another process \\(tagstream ${command}, pid ${pid} on ` +
      `host [^ ]+ since [^)]+\\).*Stop that one first, or give another --state-dir`,
  );
}

Deno.test("a running train --follow refuses other writers of its state directory, not readers; kill -9 frees it", async () => {
  await withTempDir(async (dir) => {
    const events = `${dir}/events.ndjson`, state = `${dir}/state`;
    await Deno.writeTextFile(events, EVENTS);
    const writer = spawn([
      "train",
      "--follow",
      events,
      "--state-dir",
      state,
      "--model",
      "popularity",
      "--checkpoint-every",
      "1",
      "--quiet",
    ]);
    writer.stdout.cancel();
    writer.stderr.cancel();
    try {
      await waitForFile(`${state}/checkpoint.msgpack`, writer);
      // a second train (--follow or --data), and a serve: refused at once, exit 2
      const data = ["train", "--data", events, "--state-dir", state, "--model", "popularity"];
      const follow = ["train", "--follow", events, "--state-dir", state, "--model", "popularity"];
      for (const args of [data, follow]) {
        const r = await run([...args, "--quiet"]);
        assertEquals(r.code, 2, `${args.join(" ")}: ${r.err}`);
        assert(refusal(state, "train", writer.pid).test(r.err), r.err);
        assertEquals(r.out, "");
      }
      const s = await runServe(state, ["--model", "popularity"]);
      assertEquals(s.code, 2, s.code === null ? "a second writer is serving" : s.stderr);
      assert(refusal(state, "train", writer.pid).test(s.stderr), s.stderr);
      // the readers read the directory it writes
      const seen = await runMain(["inspect", "--state-dir", state, "--json"]);
      assertEquals(seen.code, 0, seen.err);
      const exported = await runMain(["export", "--state-dir", state, "--out", `${dir}/m.tsm`]);
      assertEquals(exported.code, 0, exported.err);
      // the lock dies with its process
      writer.kill("SIGKILL");
      assertEquals((await writer.status).signal, "SIGKILL");
      const after = await run([...data, "--quiet"]);
      assertEquals(after.code, 0, after.err);
    } finally {
      try {
        writer.kill("SIGKILL");
      } catch {
        // ended already
      }
      await writer.status;
    }
  });
});

Deno.test("a running serve refuses a second serve (either thread mode) and a train; its stop frees the directory", async () => {
  await withTempDir(async (dir) => {
    const events = `${dir}/events.ndjson`, state = `${dir}/state`;
    await Deno.writeTextFile(events, EVENTS);
    const server = spawn([
      "serve",
      "--no-auth",
      "--quiet",
      "--port",
      "0",
      "--model",
      "popularity",
      "--state-dir",
      state,
    ]);
    server.stderr.cancel();
    let stopped = false;
    try {
      assert(/"event":"listening"/.test(await firstLine(server)), "the first serve did not start");
      for (const extra of [[], ["--same-thread"]]) {
        const r = await runServe(state, ["--model", "popularity", ...extra]);
        assertEquals(r.code, 2, r.code === null ? "a second serve is serving" : r.stderr);
        assert(refusal(state, "serve", server.pid).test(r.stderr), r.stderr);
        assert(!/listening/.test(r.stdout), r.stdout);
      }
      const t = await run(["train", "--data", events, "--state-dir", state, "--quiet"]);
      assertEquals(t.code, 2, t.err);
      assert(refusal(state, "serve", server.pid).test(t.err), t.err);
      // a clean stop (SIGTERM) releases it
      server.kill("SIGTERM");
      assertEquals((await server.status).code, 0);
      stopped = true;
      const again = await run([
        "train",
        "--data",
        events,
        "--state-dir",
        state,
        "--model",
        "popularity",
        "--quiet",
      ]);
      assertEquals(again.code, 0, again.err);
    } finally {
      if (!stopped) {
        try {
          server.kill("SIGKILL");
        } catch {
          // ended already
        }
        await server.status;
      }
      await server.stdout.cancel().catch(() => {});
    }
  });
});
