/**
 * `--data FILE.gz`: a gzip file replaced while the service was down is learnt from its start after
 * the restart. Its saved position carried no inode nor the bytes before the offset, so the new
 * file was skipped up to the old offset: its first events were never learnt.
 */
import { LearningService } from "../../src/service/service.ts";
import { assertEquals, plantedEvents, serviceOptions, waitUntil, withTempDir } from "./helpers.ts";
import { gzip } from "../helpers.ts";

Deno.test("service --data: a gzip file replaced while the service was down is learnt from its start", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/events.ndjson.gz`;
    await Deno.writeFile(file, await gzip(plantedEvents(10).join("\n") + "\n"));
    const o = serviceOptions(`${dir}/state`, { file, followFile: false });
    const a = await LearningService.open(o);
    await a.start();
    await waitUntil(() => a.learner.applied === 10, "10 events from the file");
    await a.stop();
    await Deno.writeFile(`${file}.new`, await gzip(plantedEvents(14, 10).join("\n") + "\n"));
    await Deno.rename(`${file}.new`, file);
    const logged: string[] = [];
    const b = await LearningService.open({ ...o, log: (m) => logged.push(m) });
    await b.start();
    await waitUntil(() => b.learner.applied + b.learner.rejected >= 24, "the new file's 14 lines");
    await b.stop();
    assertEquals(
      [b.learner.applied, b.learner.rejected, b.learner.position.file?.line],
      [24, 0, 14],
    );
    assertEquals(logged.filter((m) => /replaced/.test(m)).length, 1, logged.join("\n"));
  });
});
