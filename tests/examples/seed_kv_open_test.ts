// `seed_kv.ts --kv PATH` names the KV database it cannot open: a file that is not a database
// (the model file given twice by mistake) or a directory that does not exist answered only
// "file is not a database" / "unable to open database file", and an empty `--kv` "Filename
// cannot be empty"; each is one line naming `--kv`, exit status 2, and the file is kept. The Deno
// Deploy app, started by `deno serve` with a MODEL_KV_PATH it cannot open, names MODEL_KV_PATH the
// same way (its one line said only "file is not a database").
import { assert, withTempDir } from "../helpers.ts";
import { runDenoScript } from "../cli/helpers.ts";

const SEED = new URL("../../examples/deno-deploy/seed_kv.ts", import.meta.url).pathname;
const FIXTURE = new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url).pathname;

Deno.test("seed_kv.ts: a --kv that cannot be opened is one line naming --kv, exit 2", async () => {
  await withTempDir(async (dir) => {
    const model = `${dir}/m.tsm`;
    await Deno.copyFile(FIXTURE, model);
    const before = await Deno.readFile(model);
    const cases: [string, RegExp][] = [
      [model, /^seed_kv\.ts: Cannot open --kv .*m\.tsm: /],
      [`${dir}/no/such/dir/kv.sqlite`, /^seed_kv\.ts: Cannot open --kv .*kv\.sqlite: /],
      ["", /^seed_kv\.ts: --kv is empty/],
    ];
    for (const [kv, re] of cases) {
      const r = await runDenoScript(
        SEED,
        ["--unstable-kv", "--allow-read", "--allow-write"],
        ["--kv", kv, "--key", "m,x", model],
      );
      const err = r.stderr.trim();
      assert(r.code === 2 && re.test(err) && !err.includes("\n"), `--kv '${kv}': ${r.code} ${err}`);
    }
    const after = await Deno.readFile(model);
    assert(
      after.length === before.length && after.every((b, i) => b === before[i]),
      "model changed",
    );
  });
});

Deno.test("deno serve main.ts: a MODEL_KV_PATH that cannot be opened is named in its one line, exit 2", async () => {
  await withTempDir(async (dir) => {
    const model = `${dir}/m.tsm`;
    await Deno.copyFile(FIXTURE, model);
    const main = new URL("../../examples/deno-deploy/main.ts", import.meta.url).pathname;
    const env: Record<string, string> = { NO_COLOR: "1" };
    for (const k of ["PATH", "HOME", "DENO_DIR", "TMPDIR"]) {
      const v = Deno.env.get(k);
      if (v !== undefined) env[k] = v;
    }
    const child = new Deno.Command(Deno.execPath(), {
      args: ["serve", "--port", "0", "--unstable-kv", "-A", main],
      clearEnv: true,
      env: { ...env, MODEL_KV_KEY: "m,x", MODEL_KV_PATH: model },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const r = await child.output();
    clearTimeout(timer);
    const err = new TextDecoder().decode(r.stderr).trim();
    assert(
      r.code === 2 && err.startsWith(`deno-deploy example: Cannot open MODEL_KV_PATH ${model}: `),
      `exit ${r.code}: ${err}`,
    );
  });
});
