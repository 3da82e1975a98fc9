// GET /schema/predict.json of a service whose /predict limits were changed (`serve --max-k`,
// `--max-predict-rows`, `--max-predict-bytes`; createApp's maxK, maxPredictRows,
// maxPredictBytes) says the service's limits: k's maximum and default, rows' maxItems and the
// description's row and byte limits. It used to say the protocol's defaults (k at most 100)
// while the service answered k = 500, so a client validating against it refused what the
// service takes. With the default limits it is the protocol's schema, byte for byte.
import { createApp } from "../../src/service/http_app.ts";
import { LearningService } from "../../src/service/service.ts";
import { schemaResponse } from "../../sdk/internal.ts";
import { assert, assertEquals, serviceOptions, withTempDir } from "./helpers.ts";

Deno.test("GET /schema/predict.json states the service's own k, rows and body limits", async () => {
  await withTempDir(async (dir) => {
    const service = await LearningService.open(serviceOptions(dir));
    try {
      const schemaOf = async (limits: Record<string, number>) => {
        const app = createApp({ service, ...limits });
        const res = await app.fetch(new Request("http://x/schema/predict.json"));
        assertEquals(res.status, 200);
        assertEquals(res.headers.get("content-type"), "application/json");
        return await res.text();
      };
      const protocol = await schemaResponse().text();
      assertEquals(await schemaOf({}), protocol);

      const wide = JSON.parse(
        await schemaOf({ maxK: 1000, maxPredictRows: 5, maxPredictBytes: 2048 }),
      );
      const request = wide.$defs.request.properties;
      assertEquals([request.k.maximum, request.k.default, request.rows.maxItems], [1000, 5, 5]);
      assert(wide.description.includes("(at most 5), body at most 2048 bytes"), wide.description);
      // the service answers what its schema says
      const app = createApp({ service, maxK: 1000 });
      await service.ingestBody('{"features": {"0": 1}, "labels": ["a"]}\n', "http");
      const k500 = await app.fetch(
        new Request("http://x/predict", { method: "POST", body: '{"indices": [0], "k": 500}' }),
      );
      assertEquals(k500.status, 200);

      const narrow = JSON.parse(await schemaOf({ maxK: 3 }));
      assertEquals(
        [narrow.$defs.request.properties.k.maximum, narrow.$defs.request.properties.k.default],
        [3, 3],
      );
      // the other parts are the protocol's
      const base = JSON.parse(protocol);
      assertEquals(narrow.$defs.row, base.$defs.row);
      assertEquals(narrow.description, base.description);
    } finally {
      await service.stop();
    }
  });
});
