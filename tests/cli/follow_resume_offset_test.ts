/**
 * `train --follow` and `serve --follow` resume a followed file at the offset their state
 * directory's checkpoint holds: run again after lines were appended, they learn the new lines
 * only. The events have no ids, so a resume that lost its offset and read the file from its start
 * again would apply the old lines a second time (events with ids would be skipped as duplicates
 * and the counts would come out right anyway).
 */
import { readCheckpoint } from "../../src/cli/commands/state.ts";
import { assert, assertEquals, withTempDir } from "./helpers.ts";

const MAIN = new URL("../../src/cli/main.ts", import.meta.url).pathname;

/** Event `i`, without an id. */
const line = (i: number) =>
  JSON.stringify({ features: { [String(i % 6)]: 1 }, labels: [`t${i % 3}`] }) + "\n";

/** The applied count and file position of the checkpoint in `stateDir`, if there is one. */
async function checkpointed(
  stateDir: string,
): Promise<{ applied: number; offset?: number; line?: number } | undefined> {
  const ck = await readCheckpoint(stateDir).catch(() => undefined);
  if (ck === undefined) return undefined;
  return { applied: ck.applied, offset: ck.position.file?.offset, line: ck.position.file?.line };
}

for (const command of ["train", "serve"]) {
  Deno.test(`${command} --follow resumes at its checkpointed offset: lines without ids are learnt once`, async () => {
    await withTempDir(async (dir) => {
      const file = `${dir}/events.ndjson`, state = `${dir}/state`;
      /** Runs `command --follow` until a checkpoint holds the whole file, then stops it. */
      const follow = async (): Promise<void> => {
        const size = (await Deno.stat(file)).size;
        const child = new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--allow-all",
            MAIN,
            command,
            "--follow",
            file,
            "--state-dir",
            state,
            "--option",
            "rank=2",
            "--checkpoint-seconds",
            "0.1",
            "--quiet",
            ...(command === "serve" ? ["--no-auth", "--port", "0"] : []),
          ],
          stdout: "piped",
          stderr: "piped",
          env: { NO_COLOR: "1", TAGSTREAM_TOKEN: "" },
        }).spawn();
        // a hang guard of 120 s, not a timing: past it the test fails saying so
        let last: Awaited<ReturnType<typeof checkpointed>>, hung = false;
        try {
          const t0 = performance.now();
          while ((last = await checkpointed(state))?.offset !== size) {
            if (performance.now() - t0 > 120_000) {
              hung = true;
              break;
            }
            await new Promise((r) => setTimeout(r, 50));
          }
        } finally {
          child.kill("SIGTERM");
        }
        const out = await child.output();
        const err = new TextDecoder().decode(out.stderr);
        assert(
          !hung,
          `${command} --follow: no checkpoint at offset ${size} within 120 s (the last: ` +
            `${JSON.stringify(last)}); stderr: ${err}`,
        );
        assertEquals(out.code, 0, err);
      };
      await Deno.writeTextFile(file, Array.from({ length: 30 }, (_, i) => line(i)).join(""));
      await follow();
      assertEquals((await checkpointed(state))?.applied, 30);
      await Deno.writeTextFile(file, [30, 31, 32].map(line).join(""), { append: true });
      await follow();
      // read from the start again, the 30 old lines would be applied again: 63
      const ck = await checkpointed(state);
      assertEquals(ck?.applied, 33, "only the appended lines are new");
      assertEquals(ck?.line, 33);
      assertEquals(ck?.offset, (await Deno.stat(file)).size);
    });
  });
}
