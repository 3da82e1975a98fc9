/**
 * The learner settings a state directory keeps: `serve` and `train` refuse, when they resume it,
 * a flag asking for other ones (they were ignored without a word).
 *
 * @module
 */
import type { StreamLearner } from "../../service/learner.ts";
import type { EventLimits } from "../../service/events.ts";
import { type Flags } from "./args.ts";
import { learnerOptionFlags } from "./learner_flags.ts";

/** How a learner reads features: `index`, `name` or `hash` (as `--feature-keys` says it). */
function keyMode(limits: Readonly<EventLimits>): string {
  return limits.hashing ? "hash" : limits.featureKeys ?? "index";
}

/** Whether a learner reads text, and the features beside it (as `--text`/`--text-only` say it). */
function textMode(limits: Readonly<EventLimits>): string {
  return limits.text === undefined
    ? "no --text"
    : limits.text.ignoreFeatures
    ? "--text-only"
    : "--text";
}

/**
 * Refuses, once `--state-dir` is resumed (by `serve` or `train`), a learner flag given with a
 * value its model does not have: the batch size, the prequential window, the feature keys, the
 * hashing and whether text is read are set when a state directory is created, and a resumed
 * learner keeps them (`--hash-dim 8192` on a 4096-column model was ignored without a word). A
 * TypeError naming the flag, the value given and the model's. Flags not given are not compared.
 *
 * @example
 * ```ts
 * import { factory } from "../../models/popularity/mod.ts";
 * import { StreamLearner } from "../../service/learner.ts";
 * import { parseFlags } from "./args.ts";
 * import { refuseChangedSettings } from "./resume_settings.ts";
 * import { SERVE_FLAGS } from "./serve_flags.ts";
 * const l = StreamLearner.create(factory, { batchSize: 32 });
 * refuseChangedSettings(parseFlags("serve", ["--batch-size", "32"], SERVE_FLAGS), l, "st"); // fine
 * try {
 *   refuseChangedSettings(parseFlags("serve", ["--batch-size", "7"], SERVE_FLAGS), l, "st");
 * } catch (e) {
 *   console.log((e as Error).message); // --batch-size 7 differs from the 32 that --state-dir st was created with: ...
 * }
 * ```
 */
export function refuseChangedSettings(f: Flags, l: StreamLearner, stateDir: string): void {
  const given = learnerOptionFlags(f);
  const mine = given.limits ?? {}, theirs = l.parser.limits;
  const signed = (x: Readonly<EventLimits>) => (x.hashing?.signed ? "signed" : "unsigned");
  const checks: [flags: string[], asked: unknown, has: unknown][] = [
    [["batch-size"], given.batchSize, l.batchSize],
    [["window"], given.windowSize, l.window.size],
    [["feature-keys"], keyMode(mine), keyMode(theirs)],
    [["hash-dim"], mine.hashing?.dim, theirs.hashing?.dim ?? "no hashing"],
    [["hash-seed"], mine.hashing?.seed, theirs.hashing?.seed ?? "no hashing"],
    [["hash-signed"], signed(mine), signed(theirs)],
    [["text", "text-only"], textMode(mine), textMode(theirs)],
  ];
  for (const [flags, asked, has] of checks) {
    const flag = flags.find((n) => f.values[n] !== undefined);
    if (flag === undefined || asked === has) continue;
    const value = typeof f.values[flag] === "string" ? ` ${f.values[flag]}` : "";
    throw new TypeError(
      `--${flag}${value} differs from the ${has} that --state-dir ${stateDir} was created with: ` +
        "a resumed model keeps its settings; drop the flag, or give a new --state-dir",
    );
  }
}
