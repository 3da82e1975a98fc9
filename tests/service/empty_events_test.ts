// An empty `POST /events` body (or one of blank lines) is a 400 naming the problem, not a 200
// that accepted nothing; a body with events still gets a 200 afterwards (issue 17).
import { factory } from "../../src/models/popularity/mod.ts";
import { LearningService } from "../../src/service/service.ts";
import { createApp } from "../../src/service/http_app.ts";
import { assert } from "../helpers.ts";

Deno.test("POST /events with an empty body is a 400", async () => {
  const dir = await Deno.makeTempDir();
  const service = await LearningService.open({ factory, stateDir: dir, log: () => {} });
  try {
    const app = createApp({ service, token: "t" });
    const post = (body: string) =>
      app.request("/events", { method: "POST", headers: { authorization: "Bearer t" }, body });
    for (const body of ["", "\n", "\r\n  \n"]) {
      const res = await post(body);
      const answer = await res.json();
      assert(res.status === 400, `${JSON.stringify(body)}: ${res.status}`);
      assert(answer.accepted === 0 && answer.rejectedCount === 1, JSON.stringify(answer));
      assert(/no events/.test(answer.rejected[0].reason), JSON.stringify(answer));
    }
    const ok = await post('{"features": {"0": 1}, "labels": ["a"]}\n\n');
    assert(ok.status === 200 && (await ok.json()).accepted === 1, `status ${ok.status}`);
    assert(service.applied === 1, `applied ${service.applied}`);
  } finally {
    await service.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
