// `serve` (and `train`) on a state directory whose checkpoint holds another model than --model
// asks for: the refusal names the checkpoint file and the two ways on (the --model that resumes
// it, or a new --state-dir). It used to say only "Checkpoint holds a 'leml' model but 'br' was
// asked for", naming neither the file nor the flag.
import { LearningService } from "../../src/service/service.ts";
import { plantedEvents, serviceOptions } from "../service/helpers.ts";
import { assert, assertEquals, runMain, withTempDir } from "./helpers.ts";

Deno.test("serve/train --model br on a leml state directory: names the checkpoint and --model leml", async () => {
  await withTempDir(async (dir) => {
    const state = `${dir}/state`;
    const s = await LearningService.open(serviceOptions(state));
    await s.ingestBody(plantedEvents(8).join("\n"), "http");
    await s.stop();
    await Deno.writeTextFile(`${dir}/e.ndjson`, plantedEvents(2).join("\n") + "\n");
    const common = ["--quiet", "--state-dir", state, "--model", "br"];
    const runs = [
      ["serve", "--no-auth", "--port", "0", "--same-thread", ...common],
      ["serve", "--no-auth", "--port", "0", ...common],
      ["train", "--follow", `${dir}/e.ndjson`, ...common],
    ];
    for (const args of runs) {
      const r = await runMain(args);
      assertEquals(r.code, 2, `${args.join(" ")}: ${r.err}`);
      const last = r.err.split("\n").at(-1)!;
      assert(last.includes(`${state}/checkpoint.msgpack: `), last);
      assert(last.includes("holds a 'leml' model but 'br' was asked for"), last);
      assert(last.includes("--model leml resumes it; a new --state-dir starts a br model"), last);
    }
  });
});
