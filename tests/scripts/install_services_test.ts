/**
 * scripts/install-services.sh waits for a busy package manager: with a fake `apt-get` on a
 * PATH without `redis-server`, a run refused because "Could not get lock" is retried until the
 * lock is free (and then installs), any other apt failure stops at once, and a lock held past
 * TAGSTREAM_APT_LOCK_WAIT fails with a message saying the package manager was busy.
 */
import { assert } from "../helpers.ts";

const SCRIPT = new URL("../../scripts/install-services.sh", import.meta.url).pathname;
const TOOLS = ["bash", "grep", "cut", "sleep", "awk", "id", "cat", "head", "env", "mkdir", "chmod"];

/** A bin directory with the tools the script needs, a fake sudo and a fake apt-get that
 * refuses `lockedRuns` runs with dpkg's lock message (or fails with `otherError`). */
async function fakeBin(dir: string, lockedRuns: number, otherError = false): Promise<string> {
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin, { recursive: true });
  for (const t of TOOLS) {
    const which = await new Deno.Command("bash", { args: ["-c", `command -v ${t}`] }).output();
    await Deno.symlink(new TextDecoder().decode(which.stdout).trim(), `${bin}/${t}`);
  }
  await Deno.writeTextFile(`${bin}/sudo`, `#!${bin}/bash\nexec "$@"\n`);
  await Deno.writeTextFile(
    `${bin}/apt-get`,
    `#!${bin}/bash
n=$(cat "${dir}/runs" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "${dir}/runs"
echo "$*" >> "${dir}/calls"
${otherError ? `echo "E: Unable to locate package redis-server" >&2; exit 100` : ""}
if [ "$n" -le ${lockedRuns} ]; then
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)" >&2
  exit 100
fi
case " $* " in *" install "*)
  printf '#!${bin}/bash\\necho "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0"\\n' > "${bin}/redis-server"
  chmod +x "${bin}/redis-server";;
esac
`,
  );
  await Deno.chmod(`${bin}/sudo`, 0o755);
  await Deno.chmod(`${bin}/apt-get`, 0o755);
  return bin;
}

async function runScript(bin: string, wait: number) {
  const r = await new Deno.Command(`${bin}/bash`, {
    args: [SCRIPT],
    clearEnv: true,
    env: {
      PATH: bin,
      TAGSTREAM_APT_LOCK_WAIT: String(wait),
      TAGSTREAM_APT_RETRY_SECONDS: "0.2",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: r.code, out: d.decode(r.stdout), err: d.decode(r.stderr) };
}

Deno.test("install-services.sh waits for a busy dpkg lock, then installs", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bin = await fakeBin(dir, 3);
    const r = await runScript(bin, 30);
    assert(r.code === 0, `exit ${r.code}: ${r.err}`);
    assert(r.out.includes("services ready: redis-server v=7.0.15"), r.out);
    const waits = r.err.match(/waiting for the package manager lock/g)?.length ?? 0;
    assert(waits === 3, `waited ${waits} times: ${r.err}`);
    assert(r.err.includes("held by process 4242"), r.err);
    const calls = (await Deno.readTextFile(`${dir}/calls`)).trim().split("\n");
    assert(
      calls.length === 5 && calls.every((c) => c.includes("DPkg::Lock::Timeout=30")),
      calls.join(),
    );
    assert(calls[4].includes("install -y -qq redis-server"), calls[4]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("install-services.sh: other apt failures stop at once; a lock held too long fails", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const other = await runScript(await fakeBin(`${dir}/a`, 0, true), 30);
    assert(other.code === 100, `exit ${other.code}`);
    assert(other.err.includes("Unable to locate package"), other.err);
    assert(!other.err.includes("waiting"), other.err);
    const busy = await runScript(await fakeBin(`${dir}/b`, 1000), 1);
    assert(busy.code === 100, `exit ${busy.code}`);
    assert(busy.err.includes("still busy after 1s"), busy.err);
    // it gave up at the deadline, while apt-get still held the lock (for 1000 runs)
    const runs = Number(await Deno.readTextFile(`${dir}/b/runs`));
    assert(runs >= 1 && runs < 1000, `apt-get ran ${runs} times`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
