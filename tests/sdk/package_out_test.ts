/**
 * The npm build (`scripts/build_sdk_npm.ts`) as a user runs it from another directory: a relative
 * `--out` is the directory under the user's working directory, as for any command-line tool, and
 * nothing is written into the project; a checkout in a directory whose name has a space (or any
 * character a file URL escapes) builds too.
 */
import { assert, withTempDir } from "../helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SCRIPT = `${ROOT}scripts/build_sdk_npm.ts`;

Deno.test({
  name: "sdk:npm: a relative --out is resolved against the working directory, not the project's",
  sanitizeResources: false,
  async fn() {
    const rel = `tagstream-sdk-npm-out-${crypto.randomUUID().slice(0, 8)}`;
    try {
      await withTempDir(async (dir) => {
        const r = await new Deno.Command(Deno.execPath(), {
          args: ["run", "--allow-all", SCRIPT, "--out", rel],
          cwd: dir,
          stdout: "piped",
          stderr: "piped",
          env: { NO_COLOR: "1" },
        }).output();
        const dec = new TextDecoder();
        const what = `exit ${r.code}\n${dec.decode(r.stdout)}${dec.decode(r.stderr)}`;
        assert(r.success, what);
        const manifest = JSON.parse(await Deno.readTextFile(`${dir}/${rel}/package.json`));
        const main = manifest.exports["."].default as string;
        assert((await Deno.stat(`${dir}/${rel}/${main}`)).isFile, `${main} missing: ${what}`);
        const summary = JSON.parse(dec.decode(r.stdout).trim().split("\n").pop()!);
        assert(summary.files.includes(main.slice(2)), `summary files: ${summary.files}`);
      });
      const stray = await Deno.stat(`${ROOT}${rel}`).then(() => true, () => false);
      assert(!stray, `the build wrote ${ROOT}${rel} into the project`);
    } finally {
      await Deno.remove(`${ROOT}${rel}`, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name: "sdk:npm builds from a checkout whose path has a space and a non-ASCII letter",
  sanitizeResources: false,
  async fn() {
    await withTempDir(async (dir) => {
      const copy = `${dir}/my checkout é`;
      await Deno.mkdir(`${copy}/scripts`, { recursive: true });
      const cp = await new Deno.Command("cp", {
        args: ["-r", `${ROOT}sdk`, `${ROOT}src`, `${ROOT}package.json`, `${ROOT}deno.json`, copy],
      }).output();
      assert(cp.success, new TextDecoder().decode(cp.stderr));
      await Deno.copyFile(SCRIPT, `${copy}/scripts/build_sdk_npm.ts`);
      await Deno.symlink(`${ROOT}node_modules`, `${copy}/node_modules`);
      const r = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", `${copy}/scripts/build_sdk_npm.ts`, "--out", `${dir}/out`],
        cwd: copy,
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1" },
      }).output();
      const dec = new TextDecoder();
      const what = `exit ${r.code}\n${dec.decode(r.stdout)}${dec.decode(r.stderr)}`;
      assert(r.success, what);
      const manifest = JSON.parse(await Deno.readTextFile(`${dir}/out/package.json`));
      const main = manifest.exports["."].default as string;
      assert((await Deno.stat(`${dir}/out/${main}`)).isFile, `${main} missing: ${what}`);
    });
  },
});
