// `tagstream serve --hostname ::1` announced `"url":"http://::1:PORT"` on its listening line: not
// a URL (`new URL` throws; a supervisor or script reading the line could not reach the server).
// An IPv6 address is now bracketed: `http://[::1]:PORT`, with or without the TCP front.
import { assert, assertEquals, withTempDir } from "./helpers.ts";

/** Whether this machine can listen on `::1` (IPv6 may be off in a container). */
function hasIpv6Loopback(): boolean {
  try {
    Deno.listen({ hostname: "::1", port: 0 }).close();
    return true;
  } catch {
    return false;
  }
}

for (const extra of [[], ["--no-front"]]) {
  Deno.test({
    name: `serve ${["--hostname ::1", ...extra].join(" ")}: the listening url reaches it`,
    ignore: !hasIpv6Loopback(),
    async fn() {
      await withTempDir(async (dir) => {
        const child = new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--allow-all",
            new URL("../../src/cli/main.ts", import.meta.url).pathname,
            "serve",
            ...["--no-auth", "--quiet", "--port", "0", "--hostname", "::1", "--state-dir", dir],
            ...extra,
          ],
          stdout: "piped",
          stderr: "null",
          env: { NO_COLOR: "1", TAGSTREAM_TOKEN: "" },
        }).spawn();
        let line = "";
        try {
          const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
          while (!line.includes("\n")) {
            const r = await reader.read();
            if (r.done) break;
            line += r.value;
          }
          reader.releaseLock();
          const j = JSON.parse(line.split("\n")[0]) as { event: string; url: string; port: number };
          assertEquals(j.event, "listening", line);
          const url = new URL(j.url);
          assertEquals([url.hostname, url.port], ["[::1]", String(j.port)], j.url);
          const health = await fetch(`${j.url}/health`);
          assertEquals(health.status, 200);
          await health.body?.cancel();
        } finally {
          child.kill("SIGTERM");
          await child.stdout.cancel().catch(() => {});
          const status = await child.status;
          assert(status.code === 0 || status.signal !== null, `exit ${status.code}`);
        }
      });
    },
  });
}
