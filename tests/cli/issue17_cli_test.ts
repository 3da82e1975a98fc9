// Issue 17 CLI promises: `tagstream train --on-error skip|fail` (XC: skip counts malformed
// lines and learns the rest, fail names the line; NDJSON: fail exits 2 after keeping what was
// learned), and `tagstream serve` on a port in use says which port, in one line.
import { assert, runDenoScript, tempDirWith } from "./helpers.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;
const run = (args: string[]) => runDenoScript(MAIN, ["--allow-all"], args);

const XC = "4 3 2\n0 0:1\n1 1:1 2:oops\n0,1 0:1 2:1\n1 2:1\n";
const NDJSON = '{"features": {"a": 1}, "labels": ["x"]}\n{"features": 3}\n' +
  '{"features": {"b": 1}, "labels": ["y"]}\n';

Deno.test("tagstream train --on-error skip|fail", async () => {
  const dir = await tempDirWith("tagstream_onerror_", { "t.train.txt": XC, "e.ndjson": NDJSON });
  try {
    const base = ["train", "--model", "popularity", "--quiet"];
    const fail = await run([...base, "--data", `${dir}/t.train.txt`, "--out", `${dir}/a.tsm`]);
    assert(fail.code === 2 && /line 3/.test(fail.stderr), `fail: ${fail.code} ${fail.stderr}`);
    const skip = await run([
      ...base,
      "--data",
      `${dir}/t.train.txt`,
      "--on-error",
      "skip",
      "--out",
      `${dir}/b.tsm`,
    ]);
    assert(skip.code === 0, `skip: ${skip.code} ${skip.stderr}`);
    const s = JSON.parse(skip.stdout.trim().split("\n").at(-1)!);
    assert(s.rows === 3 && s.skipped === 1 && /line 3/.test(s.skippedFirst[0]), skip.stdout);
    const bad = await run([
      ...base,
      "--data",
      `${dir}/t.train.txt`,
      "--on-error",
      "maybe",
      "--out",
      `${dir}/x.tsm`,
    ]);
    assert(bad.code === 2 && /--on-error must be fail or skip/.test(bad.stderr), bad.stderr);
    const nd = await run([
      ...base,
      "--data",
      `${dir}/e.ndjson`,
      "--feature-keys",
      "name",
      "--on-error",
      "fail",
      "--out",
      `${dir}/c.tsm`,
    ]);
    assert(nd.code === 2 && /1 line\(s\) rejected/.test(nd.stderr), `${nd.code} ${nd.stderr}`);
    assert((await Deno.stat(`${dir}/c.tsm`)).size > 0, "the learned model is kept");
    const ndSkip = await run([
      ...base,
      "--data",
      `${dir}/e.ndjson`,
      "--feature-keys",
      "name",
      "--on-error",
      "skip",
      "--out",
      `${dir}/d.tsm`,
    ]);
    assert(ndSkip.code === 0, `${ndSkip.code} ${ndSkip.stderr}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tagstream serve on a port in use names the port in a one-line error", async () => {
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const dir = await Deno.makeTempDir();
  try {
    const port = (busy.addr as Deno.NetAddr).port;
    const r = await run([
      "serve",
      "--model",
      "popularity",
      "--no-auth",
      "--quiet",
      "--same-thread",
      "--state-dir",
      dir,
      "--port",
      String(port),
    ]);
    assert(r.code === 1, `exit ${r.code}: ${r.stderr}`);
    const lines = r.stderr.trim().split("\n").filter((l) => !l.startsWith("[tagstream]"));
    assert(lines.length === 1, `not one line: ${r.stderr}`);
    assert(lines[0].includes(`port ${port} on 127.0.0.1 is already in use`), lines[0]);
  } finally {
    busy.close();
    await Deno.remove(dir, { recursive: true });
  }
});
