// `tagstream inspect/export/serve --state-dir DIR` on a state directory with a part that cannot be read
// (a checkpoint owned by the service's user, or a part of the wrong kind) failed with the raw OS
// error and exit 1: `Is a directory (os error 21): readfile 'DIR/checkpoint.msgpack'`. It is now
// a usage error (exit 2) naming --state-dir and the file: `--state-dir DIR: cannot read
// DIR/checkpoint.msgpack (Is a directory)`.
import { assert, assertEquals, expectRun, runMain, runServe, withTempDir } from "./helpers.ts";

/** A state directory of a tiny br model at `dir/NAME`; returns its path. */
async function tinyState(dir: string, name: string): Promise<string> {
  await Deno.writeTextFile(
    `${dir}/good.txt`,
    "4 5 3\n0,1 0:1 2:0.5\n2 1:1 4:2\n1 0:1 3:1\n0 2:1 4:1\n",
  );
  const state = `${dir}/${name}`;
  const r = await runMain([
    "train",
    ...["--data", `${dir}/good.txt`, "--model", "br", "--state-dir", state, "--quiet"],
  ]);
  assertEquals(r.code, 0, r.err);
  return state;
}

Deno.test("inspect and export name --state-dir and the file when a part cannot be read", async () => {
  await withTempDir(async (dir) => {
    const out = `${dir}/out.tsm`;
    // the checkpoint is a directory
    let state = await tinyState(dir, "a");
    await Deno.remove(`${state}/checkpoint.msgpack`);
    await Deno.mkdir(`${state}/checkpoint.msgpack`);
    const ck = /--state-dir .*\/a: cannot read .*\/a\/checkpoint\.msgpack \(Is a directory\)/;
    await expectRun(["inspect", "--state-dir", state], 2, ck);
    await expectRun(["export", "--state-dir", state, "--out", out], 2, ck);
    // the incremental checkpoints' directory is a file
    state = await tinyState(dir, "b");
    await Deno.remove(`${state}/checkpoint.deltas`, { recursive: true }).catch(() => {});
    await Deno.writeTextFile(`${state}/checkpoint.deltas`, "");
    const deltas = /--state-dir .*\/b: cannot read .*\/b\/checkpoint\.deltas \(Not a directory\)/;
    await expectRun(["inspect", "--state-dir", state], 2, deltas);
    await expectRun(["export", "--state-dir", state, "--out", out], 2, deltas);
    // the write-ahead log's directory is a file; the published model is a directory
    state = await tinyState(dir, "c");
    await Deno.remove(`${state}/wal`, { recursive: true }).catch(() => {});
    await Deno.writeTextFile(`${state}/wal`, "");
    await expectRun(
      ["inspect", "--state-dir", state],
      2,
      /--state-dir .*\/c: cannot read .*\/c\/wal \(Not a directory\)/,
    );
    state = await tinyState(dir, "d");
    await Deno.remove(`${state}/model.tsm`).catch(() => {});
    await Deno.mkdir(`${state}/model.tsm`);
    await expectRun(
      ["inspect", "--state-dir", state],
      2,
      /--state-dir .*\/d: cannot read .*\/d\/model\.tsm \(Is a directory\)/,
    );
  });
});

Deno.test("serve names --state-dir and the file when a part cannot be read", async () => {
  await withTempDir(async (dir) => {
    const state = await tinyState(dir, "s");
    await Deno.remove(`${state}/checkpoint.msgpack`);
    await Deno.mkdir(`${state}/checkpoint.msgpack`);
    for (const layout of [[], ["--same-thread"]]) {
      const r = await runServe(state, ["--model", "br", ...layout]);
      const what = layout.join(" ") || "(learner thread)";
      assertEquals(r.code, 2, `${what}: ${r.code === null ? "still serving" : r.stderr}`);
      assert(
        /^tagstream serve: --state-dir .*\/s: cannot read .*\/s\/checkpoint\.msgpack \(Is a directory\)$/
          .test(r.stderr.trim()),
        `${what}: ${r.stderr}`,
      );
    }
  });
});
