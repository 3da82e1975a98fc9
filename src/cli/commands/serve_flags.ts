/**
 * The flags of `tagstream serve` and the service options they ask for: parsed on the serving
 * thread (`serve.ts`) and again on the learning thread (`serve_learner.ts`), so both open the
 * same service.
 *
 * @module
 */
import { loadFactory } from "../../models/registry.ts";
import type { ServiceOptions } from "../../service/service.ts";
import {
  type Flags,
  type FlagSpec,
  intFlag,
  numberFlag,
  requiredFlag,
  stringFlag,
} from "./args.ts";
import {
  checkSizeOptions,
  DEFAULT_MODEL,
  LEARNER_FLAGS,
  learnerOptionFlags,
} from "./learner_flags.ts";
import { PUBLISH_FLAGS, publishBuilder } from "./publish.ts";
import { installFaultFromEnv } from "../../service/storage_faults.ts";
import { DEFAULT_ID_WINDOW } from "../../service/id_window.ts";
import { MAX_TIMER_MS } from "../../service/option_rules.ts";
import { redactRedisUrl } from "../../service/redis_client.ts";
import type { GrowthLimits } from "../../service/event_limits.ts";

/**
 * The service's log lines (stderr).
 *
 * @example
 * ```ts
 * import { log } from "./serve_flags.ts";
 * log("started"); // [tagstream] started (on stderr)
 * ```
 */
export const log = (m: string) => console.error(`[tagstream] ${m}`);

/**
 * The flags of `serve` (parsed with `parseFlags` on the serving thread and again by the learner
 * thread).
 *
 * @example
 * ```ts
 * import { parseFlags } from "./args.ts";
 * import { SERVE_FLAGS } from "./serve_flags.ts";
 * const f = parseFlags("serve", ["--state-dir", "s", "--same-thread"], SERVE_FLAGS);
 * console.log(f.values["same-thread"]); // true
 * ```
 */
export const SERVE_FLAGS: FlagSpec = {
  ...LEARNER_FLAGS,
  ...PUBLISH_FLAGS,
  "state-dir": "string",
  port: "string",
  hostname: "string",
  "no-auth": "boolean",
  "public-read": "boolean",
  "max-body-bytes": "string",
  quiet: "boolean",
  source: "string",
  "redis-ca-file": "string",
  "redis-claim-idle-ms": "string",
  "redis-reply-timeout-ms": "string",
  "stream-key": "string",
  group: "string",
  consumer: "string",
  follow: "string",
  "checkpoint-every": "string",
  "checkpoint-seconds": "string",
  "flush-ms": "string",
  "no-wal": "boolean",
  "same-thread": "boolean",
  repair: "boolean",
  "dedup-window": "string",
  "max-feature-growth": "string",
  "max-new-labels": "string",
  "body-timeout": "string",
  "max-in-flight": "string",
  "max-body-bytes-in-flight": "string",
  "max-predict-bytes": "string",
  "max-predict-rows": "string",
  "max-k": "string",
  "header-timeout": "string",
  "max-connections": "string",
  "no-front": "boolean",
  "no-label-index": "boolean",
};

/** `serve`'s default `--max-features` (`train` keeps the parser's 2^20). */
const SERVE_MAX_FEATURES = 1 << 18;

/** The flags of the Redis Stream source: they configure `--source`, and nothing without it. */
const REDIS_FLAGS = [
  "stream-key",
  "group",
  "consumer",
  "redis-ca-file",
  "redis-claim-idle-ms",
  "redis-reply-timeout-ms",
] as const;

/**
 * Refuses the Redis source's flags without a `--source` (they would be ignored, unchecked:
 * `--stream-key K` alone left the service listening on HTTP only) and `--redis-ca-file` with a
 * `redis://` source, which does not use TLS.
 */
function refuseIdleRedisFlags(f: Flags, source: string | undefined): void {
  if (source === undefined) {
    const given = REDIS_FLAGS.filter((n) => f.values[n] !== undefined).map((n) => `--${n}`);
    if (given.length > 0) {
      throw new TypeError(
        `${given.join(", ")} ${given.length > 1 ? "have" : "has"} no effect without ` +
          `--source redis://HOST:PORT (${
            given.length > 1 ? "they configure" : "it configures"
          } the Redis Stream source)`,
      );
    }
  } else if (f.values["redis-ca-file"] !== undefined && !source.startsWith("rediss://")) {
    throw new TypeError(
      "--redis-ca-file has no effect with a redis:// --source (no TLS): use rediss://",
    );
  }
}

/**
 * The growth limits that `serve` flags ask for (`--max-features`, `--max-labels`,
 * `--max-feature-growth`, `--max-new-labels`, defaults filled in).
 *
 * @example
 * ```ts
 * import { parseFlags } from "./args.ts";
 * import { growthLimitsFromFlags, SERVE_FLAGS } from "./serve_flags.ts";
 * const f = parseFlags("serve", ["--state-dir", "s", "--max-labels", "1000000"], SERVE_FLAGS);
 * console.log(growthLimitsFromFlags(f).maxLabels); // 1000000
 * ```
 */
export function growthLimitsFromFlags(f: Flags): Required<GrowthLimits> {
  return {
    maxFeatures: intFlag(f, "max-features", SERVE_MAX_FEATURES, 1, 2 ** 31 - 1)!,
    maxLabels: intFlag(f, "max-labels", 65536, 1, 2 ** 31 - 1)!,
    maxFeatureGrowth: intFlag(f, "max-feature-growth", 131072, 1, 2 ** 31 - 1)!,
    maxNewLabels: intFlag(f, "max-new-labels", 1024, 1, 2 ** 31 - 1)!,
  };
}

/**
 * The log line of `serve`'s start naming every growth limit in force and how far the model is
 * from it: an operator starting a stream of 10⁶ labels and features used to find the flags to
 * raise one refusal at a time (`--max-features`, then `--max-feature-growth`, then, 29k events
 * later, `--max-labels`).
 *
 * @param limits the limits in force ({@linkcode growthLimitsFromFlags})
 * @param now the label vocabulary's size, and the feature space's (the widest event so far, or
 *   the feature vocabulary's size with named features)
 *
 * @example
 * ```ts
 * import { growthLimitsLine } from "./serve_flags.ts";
 * const limits = { maxFeatures: 262144, maxLabels: 65536, maxFeatureGrowth: 131072, maxNewLabels: 1024 };
 * console.log(growthLimitsLine(limits, { labels: 0, features: 0 }));
 * // growth limits (an event over one is refused, and reported here): --max-labels 65536 (0 labels now), ...
 * ```
 */
export function growthLimitsLine(
  limits: Required<GrowthLimits>,
  now: { labels: number; features: number },
): string {
  return "growth limits (an event over one is refused, and reported here): " +
    `--max-labels ${limits.maxLabels} (${now.labels} labels now), ` +
    `--max-features ${limits.maxFeatures} (${now.features} features now), ` +
    `--max-feature-growth ${limits.maxFeatureGrowth} columns per event, ` +
    `--max-new-labels ${limits.maxNewLabels} per event; a wider stream (10⁶ labels or ` +
    "features) needs --max-labels, --max-features and --max-feature-growth raised together";
}

/**
 * The {@linkcode ServiceOptions} that `serve` flags ask for (the same on the serving thread
 * and on the learning thread).
 *
 * @example
 * ```ts
 * import { parseFlags } from "./args.ts";
 * import { SERVE_FLAGS, serviceOptionsFromFlags } from "./serve_flags.ts";
 * const f = parseFlags("serve", ["--state-dir", "s", "--checkpoint-every", "100"], SERVE_FLAGS);
 * const o = await serviceOptionsFromFlags(f);
 * console.log(o.factory.kind, o.checkpointEvery); // leml 100
 * ```
 */
export async function serviceOptionsFromFlags(f: Flags): Promise<ServiceOptions> {
  const stateDir = requiredFlag(f, "state-dir", "serve");
  const source = stringFlag(f, "source");
  if (source !== undefined && !/^rediss?:\/\//.test(source)) {
    throw new TypeError(
      `--source must be a redis:// or rediss:// URL, got '${redactRedisUrl(source)}'`,
    );
  }
  refuseIdleRedisFlags(f, source);
  // fault injection for tests and bench/service_chaos.ts (see storage_faults.ts)
  installFaultFromEnv(Deno.env.toObject());
  const learner = learnerOptionFlags(f);
  const growth = growthLimitsFromFlags(f);
  checkSizeOptions(learner.modelOptions ?? {}, growth);
  return {
    ...learner,
    repair: f.values.repair === true,
    dedupWindow: intFlag(f, "dedup-window", DEFAULT_ID_WINDOW, 0, 2 ** 28),
    growth,
    factory: await loadFactory(stringFlag(f, "model", DEFAULT_MODEL)!),
    stateDir,
    checkpointEvery: intFlag(f, "checkpoint-every", 5000, 1),
    // a delay must fit a timer (a longer one fires at once)
    checkpointSeconds: numberFlag(f, "checkpoint-seconds", 5, 0, MAX_TIMER_MS / 1000),
    flushMs: intFlag(f, "flush-ms", 200, 0, MAX_TIMER_MS),
    wal: !f.values["no-wal"],
    ...publishBuilder(f),
    redis: source === undefined ? undefined : {
      url: source,
      key: stringFlag(f, "stream-key"),
      group: stringFlag(f, "group"),
      consumer: stringFlag(f, "consumer"),
      caFile: stringFlag(f, "redis-ca-file"),
      claimIdleMs: intFlag(f, "redis-claim-idle-ms", 60000, 0, MAX_TIMER_MS),
      replyTimeoutMs: intFlag(f, "redis-reply-timeout-ms", 10000, 1, MAX_TIMER_MS),
    },
    file: stringFlag(f, "follow"),
    followFile: true,
    log,
  };
}
