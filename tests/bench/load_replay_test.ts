/**
 * The load check (`bench/service_load.ts`, README "Continuous learning service") sends a
 * dataset's training rows over and over. They carried their ids, so once the file had been sent
 * the service's deduplication window acknowledged every event without learning it: the events
 * phase of a run longer than one pass of the file measured no learning (`eventsLearned` 0, on
 * bibtex after about two seconds). On a file of 8 rows that the warm-up sends many times over,
 * the events phase must still learn.
 */
import { runLoadCheck } from "../../bench/service/load.ts";
import { assert, tempDirWith } from "../cli/helpers.ts";

Deno.test("load check: events sent again are learned again (no ids, no deduplication)", async () => {
  const rows = Array.from({ length: 8 }, (_, i) => `${i % 3} ${i % 5}:1 ${5 + (i % 3)}:0.5`);
  const dir = await tempDirWith("tagstream_load_replay_", {
    "tiny.train.txt": `8 8 3\n${rows.join("\n")}\n`,
    "tiny.test.txt": `2 8 3\n0 0:1\n1 1:1\n`,
  });
  try {
    const r = await runLoadCheck({
      dataDir: dir,
      dataset: "tiny",
      seconds: 1,
      warmupSeconds: 0.5,
      eventConnections: 1,
      eventsPerRequest: 2,
      predictConnections: 1,
      phases: ["events"],
      client: "deno",
    });
    const ev = r.phases.events.events!;
    assert(ev.eventsAccepted! > 8, JSON.stringify(ev));
    assert(
      ev.eventsLearnedEventually! > 8,
      `events replayed were not learned: ${JSON.stringify(ev)}`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
