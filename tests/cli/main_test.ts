/**
 * The `tagstream` command line: help, errors, and a train → eval → export → inspect → prune
 * session on a small planted dataset; `train --follow` as a child process stopped by SIGTERM
 * and resumed at its offset.
 */
import { COMMANDS } from "../../src/cli/main.ts";
import { readCheckpoint } from "../../src/cli/commands/state.ts";
import { assert, assertEquals, lastJson, runMain, withTempDir } from "./helpers.ts";

const run = runMain;

/** XC rows where feature f predicts label f % 4 (plus a noise feature). */
function planted(n: number, offset = 0): string {
  const rows: string[] = [`${n} 12 4`];
  for (let i = 0; i < n; i++) {
    const f = (i + offset) % 8;
    rows.push(`${f % 4} ${f}:1 ${8 + ((i * 3) % 4)}:0.5`);
  }
  return rows.join("\n") + "\n";
}

Deno.test("tagstream --help lists the commands; every command has --help", async () => {
  const top = await run(["--help"]);
  assertEquals(top.code, 0);
  for (const c of COMMANDS) {
    assert(top.out.includes(c.name), `${c.name} in the command list`);
    const h = await run([c.name, "--help"]);
    assertEquals(h.code, 0, c.name);
    assert(h.out.startsWith(`tagstream ${c.name}`), `${c.name} --help: ${h.out.slice(0, 60)}`);
  }
  assertEquals((await run(["help", "serve"])).out, COMMANDS.find((c) => c.name === "serve")!.usage);
});

Deno.test("unknown commands, unknown flags and missing arguments exit 2 with a message", async () => {
  const a = await run(["fly"]);
  assertEquals(a.code, 2);
  assert(a.err.includes("unknown command 'fly'"), a.err);
  const b = await run(["train", "--data", "x.txt", "--nope"]);
  assertEquals(b.code, 2);
  assert(b.err.includes("unknown option '--nope'"), b.err);
  const c = await run(["export", "--out", "m.tsm"]);
  assert(c.code === 2 && c.err.includes("--state-dir is required"), c.err);
  const d = await run(["train", "--data", "/nonexistent/a.train.txt", "--out", "m.tsm"]);
  assert(d.code === 2 && d.err.includes("/nonexistent/a.train.txt"), d.err);
  const e = await run(["serve", "--state-dir", "/tmp/x", "--no-auth", "--source", "http://x"]);
  assert(e.code === 2 && e.err.includes("redis://"), e.err);
  const f = await run(["train", "--data", "a.txt", "--out", "m.tsm", "--batch-size", "0"]);
  assert(f.code === 2 && f.err.includes("--batch-size"), f.err);
});

Deno.test("train → eval → export → inspect → prune on a planted dataset", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, planted(1500));
    await Deno.writeTextFile(`${dir}/toy.test.txt`, planted(80, 3));
    await Deno.writeTextFile(`${dir}/toy.labels.txt`, "zero\none\ntwo\nthree\n");
    const state = `${dir}/state`;
    const t = await run([
      "train",
      "--data",
      `${dir}/toy.train.txt`,
      "--state-dir",
      state,
      "--out",
      `${dir}/toy.tsm`,
      "--option",
      "rank=4",
      "--option",
      "lr=0.05",
      "--batch-size",
      "8",
      "--quiet",
    ]);
    assertEquals(t.code, 0, t.err);
    const ts = lastJson(t.out);
    assertEquals([ts.eventsApplied, ts.eventsLearned, ts.numLabels], [1500, 1500, 4]);

    const e = await run(["eval", "--state-dir", state, "--dataset", "toy", "--data-dir", dir]);
    assertEquals(e.code, 0, e.err);
    const metrics = lastJson(e.out).metrics as Record<string, number>;
    assert(metrics["P@1"] > 90, `P@1 ${metrics["P@1"]} on the planted test rows`);
    const se = lastJson(e.out).stdErr as Record<string, number>;
    assert(se["P@1"] >= 0 && se["P@1"] < 10, `stdErr P@1 ${se["P@1"]}`);
    const viaSdk = await run([
      "eval",
      "--model-file",
      `${dir}/toy.tsm`,
      "--dataset",
      "toy",
      "--data-dir",
      dir,
    ]);
    assertEquals(viaSdk.code, 0, viaSdk.err);
    assertEquals((lastJson(viaSdk.out).metrics as Record<string, number>)["P@1"], metrics["P@1"]);

    const x = await run([
      "export",
      "--state-dir",
      state,
      "--out",
      `${dir}/h.tsm`,
      "--quantize",
      "f16",
    ]);
    assertEquals(x.code, 0, x.err);
    const i = await run(["inspect", `${dir}/h.tsm`, "--json"]);
    const d = lastJson(i.out);
    assertEquals([d.kind, d.numFeatures, d.numLabels], ["linear-lowrank", 12, 4]);
    assertEquals(d.labelNames, ["zero", "one", "two", "three"]);
    assertEquals((d.meta as Record<string, unknown>).eventsApplied, 1500);
    assert((d.tensors as { dtype: string }[]).some((t) => t.dtype === "f16"));
    const text = await run(["inspect", `${dir}/toy.tsm`]);
    assert(text.out.includes("tensors:") && text.out.includes("W "), text.out);
    const st = lastJson((await run(["inspect", "--state-dir", state, "--json"])).out);
    assertEquals((st.events as Record<string, number>).applied, 1500);

    const p = await run([
      "prune",
      "--dataset",
      "toy",
      "--data-dir",
      dir,
      "--state-dir",
      state,
      "--no-plot",
    ]);
    assertEquals(p.code, 0, p.err);
    const summary = lastJson(p.out);
    assert(typeof summary.pruned === "boolean", p.out);
    // a pruned model is written; when pruning cannot help nothing is (no copy of the input)
    const written = await Deno.stat(`${state}/model.pop.tsm`).then((s) => s.isFile, () => false);
    assertEquals(written, summary.pruned === true, p.out);
  });
});

Deno.test("train --follow keeps its offset in the state directory across runs", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/events.ndjson`;
    const line = (i: number) =>
      JSON.stringify({ id: `e${i}`, features: { [String(i % 6)]: 1 }, labels: [`t${i % 3}`] });
    await Deno.writeTextFile(file, Array.from({ length: 30 }, (_, i) => line(i)).join("\n") + "\n");
    const follow = async (expected: number): Promise<Record<string, unknown>> => {
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-all",
          new URL("../../src/cli/main.ts", import.meta.url).pathname,
          "train",
          "--follow",
          file,
          "--state-dir",
          `${dir}/state`,
          "--option",
          "rank=2",
          "--checkpoint-seconds",
          "0.1",
          "--quiet",
        ],
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      // wait until a checkpoint covers the file, then stop it (a hang guard of 120 s, not a
      // timing: past it the test fails saying so, rather than stopping the run early)
      let applied: number | undefined, hung = false;
      try {
        const t0 = performance.now();
        while (applied === undefined || applied < expected) {
          if (performance.now() - t0 > 120_000) {
            hung = true;
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
          applied = (await readCheckpoint(`${dir}/state`).catch(() => undefined))?.applied;
        }
      } finally {
        child.kill("SIGTERM");
      }
      const out = await child.output();
      const text = new TextDecoder().decode(out.stdout);
      const err = new TextDecoder().decode(out.stderr);
      assert(
        !hung,
        `train --follow: no checkpoint with ${expected} events applied within 120 s (the last ` +
          `held ${applied ?? "none"}); stderr: ${err}`,
      );
      assertEquals(out.code, 0, err);
      return lastJson(text);
    };
    const first = await follow(30);
    assertEquals(first.eventsApplied, 30);
    await Deno.writeTextFile(file, [30, 31, 32].map(line).join("\n") + "\n", { append: true });
    const second = await follow(33);
    assertEquals(second.eventsApplied, 33, "only the appended lines are new");
    assertEquals((second.position as { line: number }).line, 33);
  });
});
