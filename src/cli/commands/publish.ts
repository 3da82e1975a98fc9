/**
 * The model-publishing flags shared by `serve` and `train`: how often a model file is published
 * and whether it is POP-pruned (with which ε, λ, δ and how many validation events).
 *
 * @module
 */
import { popModelBuilder } from "../../service/publish_pop.ts";
import type { ServiceOptions } from "../../service/service.ts";
import { type Flags, type FlagSpec, intFlag, numberFlag } from "./args.ts";

/** Flags of {@linkcode publishBuilder}. */
export const PUBLISH_FLAGS: FlagSpec = {
  "publish-every": "string",
  "publish-min-seconds": "string",
  "no-prune": "boolean",
  epsilon: "string",
  lambda: "string",
  delta: "string",
  "validation-events": "string",
};

/** Help text of {@linkcode PUBLISH_FLAGS}. */
export const PUBLISH_USAGE = `Publishing (GET /model and STATE_DIR/model.tsm):
  --publish-every M       publish a model file every M events (default 5000; 0: never)
  --publish-min-seconds T at most one automatic publish every T seconds (default 10)
  --no-prune              publish the unpruned model file
  --epsilon E             POP tolerance on validation PSP@1/3/5, relative (default 0.01)
  --lambda L              POP drops weights in [-sqrt(L), sqrt(L)] (default 0.01)
  --delta D               POP keeps at least D weights per label (default 5)
  --validation-events N   latest events used as POP's validation rows (default 2000)`;

/** The POP flags, which `--no-prune` makes meaningless. */
const PRUNE_FLAGS = ["epsilon", "lambda", "delta", "validation-events"];

/**
 * The publishing part of the service options given by {@linkcode PUBLISH_FLAGS}. POP flags
 * beside `--no-prune` are a TypeError naming them (they would be ignored).
 *
 * @example
 * ```ts
 * import { publishBuilder } from "./publish.ts";
 * const o = publishBuilder({ values: { "publish-every": "100", "no-prune": true }, positionals: [] });
 * console.log(o.publishEvery, o.buildModel); // 100 undefined
 * ```
 */
export function publishBuilder(
  f: Flags,
): Pick<ServiceOptions, "publishEvery" | "publishMinSeconds" | "buildModel" | "validationEvents"> {
  const publishEvery = intFlag(f, "publish-every", 5000, 0);
  const publishMinSeconds = numberFlag(f, "publish-min-seconds", 10, 0);
  if (publishEvery === 0 && f.values["publish-min-seconds"] !== undefined) {
    // it spaces the automatic publishes, and there are none (it was ignored)
    throw new TypeError(
      "--publish-min-seconds spaces the automatic publishes, which --publish-every 0 turns off: " +
        "drop one or the other",
    );
  }
  if (f.values["no-prune"]) {
    const ignored = PRUNE_FLAGS.filter((k) => f.values[k] !== undefined);
    if (ignored.length > 0) {
      throw new TypeError(
        `${ignored.map((k) => `--${k}`).join(", ")} ${
          ignored.length > 1 ? "set" : "sets"
        } POP pruning, which --no-prune turns off: drop one or the other`,
      );
    }
    return { publishEvery, publishMinSeconds };
  }
  return {
    publishEvery,
    publishMinSeconds,
    validationEvents: intFlag(f, "validation-events", 2000, 1, 1 << 20),
    buildModel: popModelBuilder({
      epsilon: numberFlag(f, "epsilon", undefined, 0, 0.999),
      lambda: numberFlag(f, "lambda", undefined, 0),
      delta: intFlag(f, "delta", undefined, 0),
    }),
  };
}
