// `train --data EVENTS.ndjson` without --state-dir learns through the service on a temporary
// state directory that is removed at the end: nobody resumes from it. It used to take a
// checkpoint every 5000 events and a last one at the end (up to a tenth of the run, for
// nothing); now nothing is written in it. The run's TMPDIR is watched for what is written.
import { assert, assertEquals, lastJson, withTempDir } from "./helpers.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

/** `n` NDJSON events over 50 + 7 features and 500 labels. */
function events(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    parts.push(`{"features":{"${i % 50}":1,"${50 + (i % 7)}":1},"labels":["t${i % 500}"]}\n`);
  }
  return parts.join("");
}

Deno.test("train --data NDJSON without --state-dir writes nothing in its temporary state directory", async () => {
  await withTempDir(async (dir) => {
    const tmp = `${dir}/tmp`;
    await Deno.mkdir(tmp);
    // more than 5000 events: periodic checkpoints too, not only the last one
    await Deno.writeTextFile(`${dir}/ev.ndjson`, events(12_000));
    const watcher = Deno.watchFs(tmp, { recursive: true });
    const seen: { kind: string; path: string }[] = [];
    const watched = (async () => {
      for await (const e of watcher) {
        for (const path of e.paths) seen.push({ kind: e.kind, path: path.slice(tmp.length + 1) });
        // events come in order: the marker written after the run comes after all of the run's
        if (e.paths.some((p) => p.endsWith("/marker"))) return;
      }
    })();
    let r: Deno.CommandOutput;
    try {
      r = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "train", "--data", `${dir}/ev.ndjson`, "--model", "ova"]
          .concat(["--out", `${dir}/m.tsm`, "--quiet"]),
        // the child's TMPDIR (not this process's): where its temporary state directory goes
        env: { TMPDIR: tmp },
        stdout: "piped",
        stderr: "piped",
      }).output();
      await Deno.writeTextFile(`${tmp}/marker`, "");
      await watched;
    } finally {
      watcher.close();
    }
    const err = new TextDecoder().decode(r.stderr);
    assertEquals(r.code, 0, err);
    assertEquals(lastJson(new TextDecoder().decode(r.stdout)).eventsApplied, 12_000);
    assert((await Deno.stat(`${dir}/m.tsm`)).size > 0, "no model written");
    // the temporary state directory was made (and removed: nothing is left)
    const made = seen.filter((e) => e.kind === "create" && /^tagstream-train-[^/]+$/.test(e.path));
    assertEquals(made.length, 1, JSON.stringify(seen));
    const left: string[] = [];
    for await (const e of Deno.readDir(tmp)) if (e.name !== "marker") left.push(e.name);
    assertEquals(left, []);
    // nothing was written in it: no checkpoint (nor write-ahead log, nor published model)
    const inside = seen.filter((e) => e.path.startsWith(`${made[0].path}/`));
    assertEquals(inside, []);
  });
});
