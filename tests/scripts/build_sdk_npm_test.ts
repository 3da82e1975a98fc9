/**
 * scripts/build_sdk_npm.ts (`deno task sdk:npm`) empties its `--out` directory before it builds:
 * an `--out` that is empty, a file, or a directory of other files (`--out .`, `--out sdk`) is
 * refused naming it, and nothing is removed (it used to remove them, and an empty `--out` built
 * into `/`); a previous build is rebuilt in place. Run as a script, a refusal is one line, exit 2.
 */
import { buildSdkNpm } from "../../scripts/build_sdk_npm.ts";
import { runDenoScript } from "../cli/helpers.ts";
import { assert, assertThrowsMsg, withTempDir } from "../helpers.ts";

const SCRIPT = new URL("../../scripts/build_sdk_npm.ts", import.meta.url).pathname;

Deno.test("sdk:npm refuses an --out it would wrongly empty, and removes nothing", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/mine`);
    await Deno.writeTextFile(`${dir}/mine/notes.txt`, "keep me");
    await Deno.writeTextFile(`${dir}/mine/package.json`, '{"name": "my-app"}');
    await Deno.writeTextFile(`${dir}/model.tsm`, "a file");
    const why = "which the build would remove: give a new or empty directory";
    await assertThrowsMsg(
      () => buildSdkNpm(`${dir}/mine`),
      TypeError,
      `--out ${dir}/mine holds files that are not a build of @tagstream/sdk, ${why}`,
    );
    await assertThrowsMsg(
      () => buildSdkNpm(`${dir}/model.tsm`),
      TypeError,
      `--out ${dir}/model.tsm is a file, ${why}`,
    );
    await assertThrowsMsg(() => buildSdkNpm(""), TypeError, "--out is empty");
    assert(await Deno.readTextFile(`${dir}/mine/notes.txt`) === "keep me", "notes.txt removed");
    assert(await Deno.readTextFile(`${dir}/model.tsm`) === "a file", "model.tsm removed");

    const r = await runDenoScript(SCRIPT, ["--allow-all"], ["--out", `${dir}/mine`]);
    assert(r.code === 2 && r.stdout === "", `exit ${r.code}: ${r.stdout}${r.stderr}`);
    assert(/^sdk:npm: --out .*mine holds files/.test(r.stderr), r.stderr);
    assert(r.stderr.trim().split("\n").length === 1, `more than one line: ${r.stderr}`);
    assert(await Deno.readTextFile(`${dir}/mine/notes.txt`) === "keep me", "notes.txt removed");
  });
});

Deno.test({
  name: "sdk:npm rebuilds a previous build in place",
  sanitizeResources: false,
  async fn() {
    await withTempDir(async (dir) => {
      const out = `${dir}/pkg`;
      await Deno.mkdir(`${out}/esm`, { recursive: true });
      await Deno.writeTextFile(`${out}/package.json`, '{"name": "@tagstream/sdk"}');
      await Deno.writeTextFile(`${out}/esm/stale.js`, "");
      const built = await buildSdkNpm(out);
      assert(built.files.includes("esm/mod.js") && built.files.includes("package.json"), "built");
      assert(!built.files.includes("esm/stale.js"), "the previous build was not emptied");
    });
  },
});
