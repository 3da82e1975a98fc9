/**
 * The shared estimator checks on CoEmbed: ColEmbed-NL (K = 100 random directions instead of the
 * default 700, to keep the file fast; the code paths are the same), ColEmbed-L, and
 * ColEmbed-NL with absent features meaning missing; all with the default streaming settings
 * (replay reservoir, several global steps per minibatch).
 */
import { checkEstimator } from "../estimator_checks.ts";
import { factory } from "../../../src/models/coembed/mod.ts";

checkEstimator("coembed (ColEmbed-NL)", factory, { createOptions: { numRff: 100 } });
checkEstimator("coembed (ColEmbed-L)", factory, { createOptions: { variant: "L" } });
checkEstimator("coembed (ColEmbed-NL, absent = missing)", factory, {
  createOptions: { absent: "missing", numRff: 100 },
});
