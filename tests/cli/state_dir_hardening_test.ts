/**
 * The offline commands (`export`, `inspect`, `prune`, `eval` with `--state-dir`) on a state
 * directory that is not one serve/train wrote (from an exploratory test): a checkpoint.msgpack
 * that is a model file, another program's msgpack, or a checkpoint with a part missing or naming
 * no known model is a usage error (exit 2) naming the checkpoint file (it was "Unknown model
 * 'linear-sparse'", "Cannot read properties of null" without a path); `export --state-dir FILE`
 * names the flag (it was a raw OS error, exit 1); a damaged incremental checkpoint is named
 * without the service's "Refusing to start". Nothing is written to `--out`.
 */
import { decodeCheckpoint, encodeCheckpoint } from "../../src/service/checkpoint.ts";
import { assert, chainStateDir, expectRun, withTempDir } from "./helpers.ts";

const MODEL_FILE = new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url).pathname;

/** `dir/state`: an ova state with a base checkpoint and an incremental checkpoint after it. */
async function stateDir(dir: string): Promise<string> {
  await Deno.mkdir(`${dir}/state`);
  await chainStateDir(`${dir}/state`);
  return `${dir}/state`;
}

/** `export` and `inspect` of `state` both fail with exit 2 matching `re`; no --out written. */
async function refused(dir: string, state: string, re: RegExp): Promise<void> {
  const out = `${dir}/out.tsm`;
  await expectRun(["export", "--state-dir", state, "--out", out], 2, re);
  await expectRun(["inspect", "--state-dir", state], 2, re);
  assert(!(await Deno.stat(out).then(() => true, () => false)), "export wrote --out");
}

Deno.test("offline commands: a foreign or incomplete checkpoint is refused naming the file", async () => {
  await withTempDir(async (dir) => {
    const state = await stateDir(dir);
    const ckPath = `${state}/checkpoint.msgpack`;
    const good = await Deno.readFile(ckPath);
    const ck = decodeCheckpoint(good) as Record<string, unknown>;
    const named = (what: string) =>
      new RegExp(`Cannot read checkpoint ${state}/checkpoint\\.msgpack: ${what}`);
    // sanity: the directory as written exports
    await expectRun(["export", "--state-dir", state, "--out", `${dir}/ok.tsm`], 0);
    await Deno.remove(`${dir}/ok.tsm`);

    const foreign: [string, Uint8Array, RegExp][] = [
      ["a model file", await Deno.readFile(MODEL_FILE), named("not a Tagstream checkpoint")],
      ["msgpack of {}", encodeCheckpoint({}).subarray(16), named("not a Tagstream checkpoint")],
      ["a checksummed null", encodeCheckpoint(null), named("not a Tagstream checkpoint")],
      ["an unknown model", encodeCheckpoint({ ...ck, kind: "toString" }), named("unknown model")],
      ["no options", encodeCheckpoint({ ...ck, options: undefined }), named("")],
      ["no state", encodeCheckpoint({ ...ck, state: null }), named("")],
      [
        "no labels",
        encodeCheckpoint({ ...ck, labels: undefined }),
        named("checkpoint: field labels is damaged: Vocabulary"),
      ],
      // it exported with undefined metadata
      [
        "no applied",
        encodeCheckpoint({ ...ck, applied: undefined }),
        named("checkpoint: field applied must be a non-negative integer, got undefined"),
      ],
    ];
    for (const [what, bytes, re] of foreign) {
      await Deno.writeFile(ckPath, bytes);
      await refused(dir, state, re).catch((e) => {
        throw new Error(`${what}: ${(e as Error).message}`);
      });
    }
    await Deno.writeFile(ckPath, good);
    // a file as --state-dir: export said "Not a directory (os error 20)", exit 1
    await expectRun(
      ["export", "--state-dir", ckPath, "--out", `${dir}/out.tsm`],
      2,
      /--state-dir .*checkpoint\.msgpack is not a directory/,
    );
  });
});

Deno.test("offline commands: a damaged incremental checkpoint is named, and nothing 'refuses to start'", async () => {
  await withTempDir(async (dir) => {
    const state = await stateDir(dir);
    const deltas = `${state}/checkpoint.deltas`;
    const [name] = await Array.fromAsync(Deno.readDir(deltas), (e) => e.name);
    const bytes = await Deno.readFile(`${deltas}/${name}`);
    await Deno.writeFile(`${deltas}/${name}`, bytes.subarray(0, bytes.length >> 1));
    const re = new RegExp(`Cannot apply checkpoint delta ${deltas}/${name}: checkpoint is damaged`);
    await refused(dir, state, re);
    const r = await expectRun(
      ["inspect", "--state-dir", state],
      2,
      /writer sets the damage aside: 'serve --repair'/,
    );
    assert(!r.err.includes("Refusing to start"), r.err);
    // read-only: the damaged delta is where it was
    assert((await Deno.readFile(`${deltas}/${name}`)).length === bytes.length >> 1, "moved");
  });
});
