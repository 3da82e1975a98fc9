/**
 * Child processes for the example tests: started with piped output, waited for a line that says
 * they are ready (bounded in time), and always stopped (SIGTERM, then SIGKILL) within a bound.
 *
 * @module
 */

/** A started child process. */
export interface Child {
  readonly process: Deno.ChildProcess;
  /** Every output line so far (stdout and stderr), for error messages. */
  readonly lines: string[];
  /** Resolves the first line (from now on or already seen) matching `re`; rejects after `ms`. */
  waitFor(re: RegExp, ms: number): Promise<RegExpMatchArray>;
  /** Writes a line to the child's stdin. */
  send(line: string): Promise<void>;
  /** Waits up to `ms` for the child to exit by itself (then stops it); resolves its exit code. */
  exited(ms: number): Promise<number>;
  /** Stops the child: closes stdin, SIGTERM, then SIGKILL after `ms`; resolves its exit code. */
  stop(ms?: number): Promise<number>;
}

/** Starts `cmd args` with piped stdin/stdout/stderr. */
export function start(cmd: string, args: string[], env: Record<string, string> = {}): Child {
  const process = new Deno.Command(cmd, {
    args,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    let rest = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        for (const w of [...waiters]) {
          const m = line.match(w.re);
          if (m) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(m);
          }
        }
      }
    }
  };
  const pumps = Promise.all([pump(process.stdout), pump(process.stderr)]).catch(() => {});
  const writer = process.stdin.getWriter();
  let stopped: Promise<number> | undefined;
  return {
    process,
    lines,
    waitFor(re, ms) {
      for (const line of lines) {
        const m = line.match(re);
        if (m) return Promise.resolve(m);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.findIndex((w) => w.re === re), 1);
          reject(
            new Error(
              `${cmd}: no line matching ${re} within ${ms} ms; output:\n${lines.join("\n")}`,
            ),
          );
        }, ms);
        waiters.push({ re, resolve: (m) => (clearTimeout(timer), resolve(m)) });
        process.status.then(async () => {
          // exited without the line: fail now rather than at the timeout, once its output is
          // read to the end (a line printed just before the exit may still be in the pipe; a
          // grandchild holding the pipe open bounds the wait instead)
          let late: ReturnType<typeof setTimeout> | undefined;
          await Promise.race([pumps, new Promise((r) => late = setTimeout(r, 5000))]);
          clearTimeout(late);
          const i = waiters.findIndex((w) => w.re === re);
          if (i >= 0) {
            waiters.splice(i, 1);
            clearTimeout(timer);
            reject(
              new Error(`${cmd} exited before printing ${re}; output:\n${lines.join("\n")}`),
            );
          }
        });
      });
    },
    async send(line) {
      await writer.write(new TextEncoder().encode(`${line}\n`));
    },
    async exited(ms) {
      await writer.close().catch(() => {});
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), ms)));
      const first = await Promise.race([process.status, late]);
      clearTimeout(timer);
      if (first === "late") return this.stop();
      await pumps;
      return first.code;
    },
    stop(ms = 10_000) {
      return stopped ??= (async () => {
        await writer.close().catch(() => {});
        try {
          process.kill("SIGTERM");
        } catch { /* already exited */ }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const killed = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            try {
              process.kill("SIGKILL");
            } catch { /* already exited */ }
            resolve();
          }, ms);
        });
        const status = await Promise.race([process.status, killed.then(() => process.status)]);
        clearTimeout(timer);
        await pumps;
        return status.code;
      })();
    },
  };
}

/** POSTs JSON and returns the parsed answer (throws with the body on a non-2xx status). */
export async function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: "POST", body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}
