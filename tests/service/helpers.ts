/**
 * Small helpers of the stream tests: assertions, event lines, temporary directories.
 *
 * @module
 */
export {
  assert,
  assertEquals,
  assertThrowsMsg,
  DATA_DIR,
  HAS_DATA,
  withTempDir,
} from "../data/helpers.ts";
import { factory as leml } from "../../src/models/leml/mod.ts";
import type { ServiceOptions } from "../../src/service/service.ts";

/**
 * Options of a small test service: LEML rank 4 (seed 1), minibatches of 4, no automatic
 * publishing, no log.
 */
export function serviceOptions(dir: string, extra: Partial<ServiceOptions> = {}): ServiceOptions {
  return {
    factory: leml,
    stateDir: dir,
    batchSize: 4,
    modelOptions: { rank: 4, seed: 1 },
    publishEvery: 0,
    log: () => {},
    ...extra,
  };
}

/** One NDJSON event line. */
export function eventLine(
  id: string,
  features: Record<string, number>,
  labels: (string | number)[],
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({ id, features, labels, ...extra });
}

/**
 * `n` events with a planted structure: event i has feature `i % 10` (and a shared feature 10)
 * and label `t<i % 5>` (feature j predicts label j % 5).
 */
export function plantedEvents(n: number, start = 0): string[] {
  const out: string[] = [];
  for (let i = start; i < start + n; i++) {
    out.push(eventLine(`e${i}`, { [String(i % 10)]: 1, "10": 0.5 }, [`t${i % 5}`]));
  }
  return out;
}
