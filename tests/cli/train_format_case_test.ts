// `train --data` takes the format from the file name as the readers, `deno task demo` and the
// library do, whatever the case of the extension: EVENTS.NDJSON was read as an XC file ("expected
// the header 'N D L'") and DATA.SVM as XC too, while demo read both as what they are.
import { assertEquals, expectRun, lastJson, withTempDir } from "./helpers.ts";

Deno.test("train --data EVENTS.NDJSON and DATA.SVM: formats from the extension, any case", async () => {
  await withTempDir(async (dir) => {
    const events = [
      { id: "a", features: { "0": 1, "2": 1 }, labels: ["x"] },
      { id: "b", features: { "1": 1 }, labels: ["y"] },
      { id: "c", features: { "0": 1 }, labels: ["x"] },
    ].map((e) => JSON.stringify(e)).join("\n") + "\n";
    await Deno.writeTextFile(`${dir}/EVENTS.NDJSON`, events);
    await Deno.writeTextFile(`${dir}/DATA.SVM`, "0 1:1 3:1\n1 2:1\n0 1:1\n");
    for (const [file, rows] of [["EVENTS.NDJSON", 3], ["DATA.SVM", 3]] as const) {
      const r = await expectRun(
        [
          "train",
          "--data",
          `${dir}/${file}`,
          "--model",
          "popularity",
          "--out",
          `${dir}/m.tsm`,
          "--quiet",
        ],
        0,
      );
      assertEquals(lastJson(r.out).eventsApplied, rows, file);
      await Deno.remove(`${dir}/m.tsm`);
    }
  });
});
