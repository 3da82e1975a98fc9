/**
 * `GET /model` compares `If-None-Match` weakly, as HTTP asks (RFC 9110 §13.1.2): the ETag a
 * compressing proxy weakened (`W/"..."`), which a poller then sends back, is answered 304, not
 * the whole model file again at every poll.
 */
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import { assertEquals, plantedEvents, serviceOptions, withTempDir } from "./helpers.ts";

Deno.test("GET /model: If-None-Match with the weak form of the ETag is a 304; another ETag is a 200", async () => {
  await withTempDir(async (dir) => {
    const s = await LearningService.open(serviceOptions(dir));
    await s.start();
    try {
      await s.ingestBody(plantedEvents(4).join("\n"), "http");
      await s.publish();
      const app = createApp({ service: s });
      const etag = (await app.request("/model")).headers.get("etag")!;
      const get = (inm: string) => app.request("/model", { headers: { "if-none-match": inm } });
      assertEquals((await get(etag)).status, 304);
      assertEquals((await get(`W/${etag}`)).status, 304);
      assertEquals((await get(`"other", W/${etag}`)).status, 304);
      const other = await get(`W/"other"`);
      assertEquals(other.status, 200);
      assertEquals(new Uint8Array(await other.arrayBuffer()).length, s.published!.bytes.length);
    } finally {
      await s.stop();
    }
  });
});
