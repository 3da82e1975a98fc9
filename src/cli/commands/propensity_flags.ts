/**
 * `--propensity-a A --propensity-b B`: the propensity model of PSP@k and PSnDCG@k, for the
 * `eval` commands (the repro experiments take the same flags).
 *
 * @module
 */
import { type Flags, numberFlag, stringFlag } from "./args.ts";

/**
 * The flags' A and B (default 0.55 and 1.5, the Extreme Classification Repository's for most
 * data sets; Wikipedia-LSHTC uses 0.5 and 0.4, Amazon 0.6 and 2.6), each a finite number > 0;
 * a RangeError naming the flag otherwise, before any work.
 *
 * @example
 * ```ts
 * import { propensityFlags } from "./propensity_flags.ts";
 * console.log(propensityFlags({ values: { "propensity-a": "0.5", "propensity-b": "0.4" }, positionals: [] }));
 * // { A: 0.5, B: 0.4 }
 * console.log(propensityFlags({ values: {}, positionals: [] })); // { A: 0.55, B: 1.5 }
 * ```
 */
export function propensityFlags(f: Flags): { A: number; B: number } {
  const positive = (name: string, dflt: number) => {
    const v = numberFlag(f, name, dflt, 0)!;
    if (v === 0) {
      throw new RangeError(`--${name} must be a number > 0, got '${stringFlag(f, name)}'`);
    }
    return v;
  };
  return { A: positive("propensity-a", 0.55), B: positive("propensity-b", 1.5) };
}
