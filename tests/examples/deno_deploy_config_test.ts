/**
 * The Deno Deploy example's configuration without data: a `MODEL_REFRESH_MS` or `MODEL_URL` that
 * cannot work is refused at start, naming the variable (it used to start and answer 503 for ever,
 * or never refresh); `seed_kv.ts` refuses a file the SDK cannot load before it writes to Deno KV,
 * so the stored model stays.
 */
import { modelsFromEnv } from "../../examples/deno-deploy/app.ts";
import { assert, assertThrowsMsg, withTempDir } from "../helpers.ts";
import { runDenoScript, type RunResult } from "../cli/helpers.ts";

const SEED = new URL("../../examples/deno-deploy/seed_kv.ts", import.meta.url).pathname;
const FIXTURE = new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url).pathname;
const DATA_URL = `data:application/octet-stream;base64,${
  btoa(String.fromCharCode(...await Deno.readFile(FIXTURE)))
}`;

Deno.test("Deno Deploy example: a bad MODEL_REFRESH_MS or MODEL_URL is refused at start, naming it", async () => {
  const from = (env: Record<string, string>) => () => modelsFromEnv((name) => env[name]);
  for (const refresh of ["abc", "-5", "1.5", "0x10", "1e3", " 100", "99999999999999999999"]) {
    await assertThrowsMsg(
      from({ MODEL_URL: DATA_URL, MODEL_REFRESH_MS: refresh }),
      RangeError,
      `MODEL_REFRESH_MS must be a whole number of milliseconds (0: load once), got '${refresh}'`,
    );
  }
  for (const url of ["not a url", "localhost:8080/model", "/srv/model.tsm", "ftp://host/m.tsm"]) {
    await assertThrowsMsg(
      from({ MODEL_URL: url }),
      TypeError,
      `MODEL_URL must be an absolute http(s), data: or file: URL, got '${url}'`,
    );
  }
  // what works still works: unset or empty MODEL_REFRESH_MS loads once, a number polls
  const works: Record<string, string>[] = [{}, { MODEL_REFRESH_MS: "" }, {
    MODEL_REFRESH_MS: "30000",
  }];
  for (const env of works) {
    const models = await modelsFromEnv((name) => ({ MODEL_URL: DATA_URL, ...env })[name]);
    assert((await models.get()).kind === "linear-sparse", JSON.stringify(env));
  }
});

/** Runs seed_kv.ts storing `file` under the key `m,x` of the Deno KV file `kv`. */
function seed(kv: string, file: string): Promise<RunResult> {
  const permissions = ["--unstable-kv", "--allow-read", "--allow-write"];
  return runDenoScript(SEED, permissions, ["--kv", kv, "--key", "m,x", file]);
}

Deno.test("Deno Deploy example: seed_kv.ts refuses a file that is not a model; the stored one stays", async () => {
  await withTempDir(async (dir) => {
    const kv = `${dir}/kv.sqlite`, junk = `${dir}/events.ndjson`;
    await Deno.writeTextFile(junk, '{"id": "e1", "features": {"a": 1}, "labels": ["x"]}\n');
    let r = await seed(kv, FIXTURE);
    assert(r.code === 0, r.stderr);
    for (
      const [file, re] of [
        [
          junk,
          /^seed_kv\.ts: .*events\.ndjson is not a model the SDK loads: .*not a Tagstream model/,
        ],
        [`${dir}/none.tsm`, /^seed_kv\.ts: Cannot read model file .*none\.tsm: no such file$/],
        [dir, /^seed_kv\.ts: Cannot read model file .*: it is a directory$/],
      ] as const
    ) {
      r = await seed(kv, file);
      assert(r.code === 2 && re.test(r.stderr.trim()), `${file}: exit ${r.code}: ${r.stderr}`);
    }
    // the KV still holds the model seeded first
    const read = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        "--unstable-kv",
        `
        import { modelFromKv } from ${
          JSON.stringify(new URL("../../sdk/deno_deploy.ts", import.meta.url).href)
        };
        const kv = await Deno.openKv(${JSON.stringify(kv)});
        console.log((await modelFromKv(kv, ["m", "x"]).get()).kind);
        kv.close();`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(read.stdout).trim();
    assert(out === "linear-sparse", `${out} ${new TextDecoder().decode(read.stderr)}`);
  });
});

Deno.test("Deno Deploy example: seed_kv.ts --help prints its usage; no arguments name what is missing", async () => {
  const help = await runDenoScript(SEED, ["--unstable-kv"], ["--help"]);
  assert(
    help.code === 0 && /^usage: seed_kv\.ts --key/.test(help.stdout),
    `${help.code}: ${help.stderr}`,
  );
  const none = await runDenoScript(SEED, ["--unstable-kv"], []);
  assert(
    none.code === 2 && /give --key and one model file \(usage: seed_kv\.ts/.test(none.stderr),
    none.stderr,
  );
});
