/**
 * `repro coembed --transLambda` sets λ of the transductive fit only: with `--no-transductive`
 * (or `--transductive false`) it was silently ignored while the result still reported it. The
 * combination is now refused, naming both flags, before any data is read; so is a
 * `--transLambda` that is not a number (it was found only after the first inductive fit).
 */
import coembed from "../../bench/repro/experiments/coembed.ts";
import { assert, assertEquals, tempDirWith } from "../cli/helpers.ts";
import { reproContext } from "./repro_context.ts";

/** The error `fn` rejects with; fails when it resolves. */
async function errorOf(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("no error thrown");
}

const TRAIN = "6 3 2\n0 0:1\n0,1 1:1\n0 0:1 2:1\n1 2:1\n0 0:1 1:1\n1 1:1 2:1\n";
const TEST = "2 3 2\n0 0:1\n1 2:1\n";
const TINY = { repeats: "1", epochs: "1", "no-stream": true, "no-baseline": true, gamma: "1" };

Deno.test("repro coembed: --transLambda with --no-transductive is refused before data is read", async () => {
  // the data directory does not exist: the error comes before any data is read
  const ctx = (flags: Record<string, string | boolean>) =>
    reproContext("/nonexistent-repro-dir", flags as Record<string, string>);
  for (
    const [flags, off] of [
      [{ "no-transductive": true, transLambda: "0.1" }, "--no-transductive"],
      [{ transductive: "false", transLambda: "0.1" }, "--transductive false"],
    ] as const
  ) {
    const e = await errorOf(() => coembed(ctx(flags)));
    assert(e instanceof TypeError, `${e.constructor.name}: ${e.message}`);
    assertEquals(
      e.message,
      `coembed experiment: --transLambda sets λ of the transductive fit, which ${off} turns ` +
        `off: give one or the other`,
    );
  }
  const bad = await errorOf(() => coembed(ctx({ transLambda: "abc" })));
  assert(bad instanceof TypeError, `${bad.constructor.name}: ${bad.message}`);
  assertEquals(bad.message, "coembed experiment: --transLambda must be a number, got abc");
});

Deno.test("repro coembed: --transLambda is used and reported when the transductive fit runs", async () => {
  const dir = await tempDirWith("tagstream_coembed_trans_lambda_", {
    "toy.train.txt": TRAIN,
    "toy.test.txt": TEST,
  });
  try {
    const r = await coembed(reproContext(dir, { ...TINY, transLambda: "0.25" } as never));
    assertEquals((r.extra as Record<string, unknown>).transLambda, 0.25);
    assert("transductiveMacroAUC" in r.metrics, Object.keys(r.metrics).join(", "));
    // without the transductive fit and without the flag, the run goes on as before
    const off = await coembed(reproContext(dir, { ...TINY, "no-transductive": true } as never));
    assert(!("transductiveMacroAUC" in off.metrics), Object.keys(off.metrics).join(", "));
    // with data to read, the combination was run (and --transLambda 0.25 reported, unused)
    const both = { ...TINY, "no-transductive": true, transLambda: "0.25" };
    const e = await errorOf(() => coembed(reproContext(dir, both as never)));
    assert(e instanceof TypeError && /--no-transductive/.test(e.message), String(e));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
