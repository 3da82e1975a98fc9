/**
 * A model created with more labels than the stream has named yet (`--option numLabels=N`, as an
 * operator declares 10⁶ labels up front) is still pruned when published: POP's label counts
 * cover every label of the model (the unnamed ones count 0), instead of the vocabulary's only,
 * which POP refused ("the model has N labels but there are M label counts") and published the
 * unpruned file.
 */
import { factory as br } from "../../src/models/br/mod.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { LearningService } from "../../src/service/service.ts";
import { popModelBuilder } from "../../src/service/publish_pop.ts";
import { assert, assertEquals, popEvents, serviceOptions, withTempDir } from "./helpers.ts";

Deno.test("POP publishing prunes a model declared with more labels than the stream has named", async () => {
  await withTempDir(async (dir) => {
    const builder = popModelBuilder({ minValidationRows: 50 });
    const s = await LearningService.open(serviceOptions(dir, {
      factory: br,
      modelOptions: { seed: 1, numLabels: 40, numFeatures: 256 },
      buildModel: builder,
      validationEvents: 200,
    }));
    await s.ingestBody(popEvents(300).join("\n"), "http");
    s.learner.flush();
    assertEquals([s.learner.estimator.numLabels, s.learner.parser.labels.size], [40, 5]);
    const m = await s.publish();
    assert(m.pruned, `expected a pruned file: ${m.note}`);
    const c = decodeModelFile(m.bytes);
    assertEquals(c.numLabels, 40);
    const pop = c.meta?.pop as { nnzBefore: number; nnzAfter: number };
    assert(pop.nnzAfter < pop.nnzBefore, JSON.stringify(pop));
    await s.stop();
  });
});
