/** The shared estimator checks on CoEmbed (default ColEmbed-NL, and ColEmbed-L). */
import { checkEstimator } from "../estimator_checks.ts";
import { factory } from "../../../src/models/coembed/mod.ts";

checkEstimator("coembed (ColEmbed-NL, defaults)", factory);
checkEstimator("coembed (ColEmbed-L)", factory, { createOptions: { variant: "L" } });
checkEstimator("coembed (ColEmbed-NL, absent = missing)", factory, {
  createOptions: { absent: "missing", numRff: 200 },
});
