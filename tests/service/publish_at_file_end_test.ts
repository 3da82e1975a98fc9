// A file read once (`serve --data FILE`) is published whole when it ends: the periodic publishes
// held the events up to the last multiple of --publish-every, and no later event would trigger
// another, so GET /model served a model without the file's last events.
import { LearningService } from "../../src/service/service.ts";
import { decodeModelFile } from "../../sdk/internal.ts";
import { assertEquals } from "../helpers.ts";
import { plantedEvents, serviceOptions, waitUntil } from "./helpers.ts";

Deno.test("a file read once is published with every event when it ends", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_publish_file_end_" });
  try {
    // 5000 events of ~300 bytes: two reads of the file (1 MiB each), the periodic publish after
    // the first (about 3500 events), fewer than --publish-every in the second
    const pad = "x".repeat(250);
    const lines = plantedEvents(5000).map((l) => l.replace(/}$/, `, "note": "${pad}"}`));
    await Deno.writeTextFile(`${dir}/e.ndjson`, lines.join("\n") + "\n");
    const service = await LearningService.open(serviceOptions(`${dir}/state`, {
      file: `${dir}/e.ndjson`,
      followFile: false,
      publishEvery: 2000,
      publishMinSeconds: 0,
    }));
    try {
      await service.start();
      await service.fileDone();
      await waitUntil(() => service.published?.applied === 5000, "the published model at 5000");
      const file = decodeModelFile(await Deno.readFile(`${dir}/state/model.tsm`));
      assertEquals((file.meta as Record<string, unknown>).eventsApplied, 5000);
    } finally {
      await service.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
