/**
 * The learning thread of `tagstream serve` (a Worker module): opens the learning service from
 * the `serve` flags it is given and answers the serving thread (see
 * `src/service/learner_thread.ts`).
 *
 * @module
 */
import { serveLearnerThread } from "../../service/learner_thread.ts";
import { LearningService } from "../../service/service.ts";
import { parseFlags } from "./args.ts";
import { namedCheckpointError } from "./state.ts";
import { SERVE_FLAGS, serviceOptionsFromFlags } from "./serve_flags.ts";
import { refuseChangedSettings } from "./resume_settings.ts";

serveLearnerThread(async (init) => {
  const f = parseFlags("serve", init as string[], SERVE_FLAGS, { maxPositionals: 0 });
  const options = await serviceOptionsFromFlags(f);
  const service = await LearningService.open(options).catch((e) => {
    throw namedCheckpointError(e, options.stateDir);
  });
  try {
    refuseChangedSettings(f, service.learner, options.stateDir);
  } catch (e) {
    await service.stop().catch(() => {});
    throw e;
  }
  return service;
});
