/**
 * `repro coembed --no-stream` (or `--stream false`) refuses the flags only the streaming learner
 * reads (`--consolidateEpochs`, `--replay`, `--streamBatch`, ...): they were accepted, ignored,
 * and printed in the JSON's `config` as the settings of the run. `--replayPerStep` is 0 or 1 (any
 * other number was read as 1).
 */
import { assert, assertThrowsMsg } from "../helpers.ts";
import coembed from "../../bench/repro/experiments/coembed.ts";
import { inFolder, reproContext } from "./repro_context.ts";

const TINY = {
  repeats: "1",
  epochs: "1",
  "no-transductive": true,
  "no-baseline": true,
  gamma: "1",
};

async function folder(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_coembed_stream_flags_" });
  const rows = Array.from({ length: 12 }, (_, i) => `${i % 3} ${i % 3}:1 3:0.5`);
  await Deno.writeTextFile(`${dir}/toy.train.txt`, ["12 4 3", ...rows].join("\n") + "\n");
  await Deno.writeTextFile(`${dir}/toy.test.txt`, ["4 4 3", ...rows.slice(0, 4)].join("\n") + "\n");
  return dir;
}

/** The context of a tiny run ({@linkcode TINY}) with `flags` added. */
const context = (dataDir: string, flags: Record<string, string | boolean>) =>
  reproContext(dataDir, { ...TINY, ...flags });

Deno.test("repro coembed without the stream refuses the streaming learner's flags", () =>
  inFolder(folder(), async (dir) => {
    const cases = [
      [
        { "no-stream": true, consolidateEpochs: "10" },
        "--consolidateEpochs sets the streaming learner, which --no-stream turns off",
      ],
      [
        { stream: "false", replay: "5", streamBatch: "8" },
        "--streamBatch, --replay set the streaming learner, which --stream false turns off",
      ],
    ] as const;
    for (const [flags, text] of cases) {
      await assertThrowsMsg(() => coembed(context(dir, flags)), TypeError, text);
    }
    // with the stream they are read
    const r = await coembed(context(dir, { consolidateEpochs: "1", streamBatch: "4" }));
    assert(
      (r.extra?.stream as Record<string, unknown> | undefined)?.batch === 4,
      JSON.stringify(r.extra?.stream),
    );
  }));

Deno.test("repro coembed refuses a --replayPerStep other than 0 or 1", () =>
  inFolder(folder(), async (dir) => {
    await assertThrowsMsg(
      () => coembed(context(dir, { replayPerStep: "2" })),
      RangeError,
      "--replayPerStep must be 0 or 1, got '2'",
    );
  }));
