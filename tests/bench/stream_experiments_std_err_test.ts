/**
 * `repro leml-stream` and `repro sleec-stream` evaluate one model on the test file, so their JSON
 * carries `stdErr`, the standard errors of the ranking metrics over the test rows, as the README
 * says such experiments do (it was left out).
 */
import { assert } from "../helpers.ts";
import lemlStream from "../../bench/repro/experiments/leml-stream.ts";
import sleecStream from "../../bench/repro/experiments/sleec-stream.ts";
import {
  inFolder,
  plantedTrainTestFolder,
  reproContext,
  TINY_LEML_STREAM_FLAGS,
} from "./repro_context.ts";

/** A folder with `toy.train.txt` (60 planted rows) and `toy.test.txt` (20 rows). */
const trainTestFolder = () => plantedTrainTestFolder("tagstream_stream_stderr_", 5, 80, 60);

const context = reproContext;

Deno.test("repro leml-stream and sleec-stream report the standard errors of their test metrics", () =>
  inFolder(trainTestFolder(), async (dir) => {
    const runs = [
      [
        "leml-stream",
        () => lemlStream(context(dir, TINY_LEML_STREAM_FLAGS)),
      ],
      [
        "sleec-stream",
        () => sleecStream(context(dir, { k: "5", neighbours: "5", rank: "2", reservoir: "100" })),
      ],
    ] as const;
    for (const [name, run] of runs) {
      const r = await run();
      for (const m of ["P@1", "P@3", "P@5", "nDCG@5", "PSP@5"]) {
        const se = r.stdErr?.[m];
        assert(typeof se === "number" && se >= 0 && se <= 100, `${name}: stdErr ${m} = ${se}`);
      }
    }
  }));
