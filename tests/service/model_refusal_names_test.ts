import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import { assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

Deno.test("service: an event the model refuses keeps none of its new label names (HTTP body and ingestLine)", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    const app = createApp({ service: s });
    await s.ingestBody(plantedEvents(4).join("\n"), "http");
    const r = await app.request("/events", {
      method: "POST",
      body: '{"features":{"0":1e30},"labels":["leak1"]}\n' +
        '{"ts":1,"features":{"0":1e30},"labels":["leak2"]}',
    });
    await r.body?.cancel();
    assertEquals(r.status, 400);
    s.learner.ingestLine('{"features":{"0":1e30},"labels":["leak3"]}', "redis", "1-0");
    assertEquals(s.learner.parser.labels.names, ["t0", "t1", "t2", "t3"]);
    // a good event after them still gets the next index
    await s.ingestBody('{"features":{"0":1},"labels":["t4"]}', "http");
    assertEquals(s.learner.parser.labels.names, ["t0", "t1", "t2", "t3", "t4"]);
    await s.stop();
  });
});
