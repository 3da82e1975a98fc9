// A predictions file saved with a UTF-8 byte order mark (Windows tools): the mark was read as part
// of the first label (Deno.readTextFile keeps it), so line 1 was refused as "'\uFEFF0:0.9' is not
// a label:score pair". It is skipped, as the data readers and label-name files skip it.
import { evaluatePredictionsFile, predictionLines } from "../../src/cli/eval.ts";
import { assertEquals, withTempDir } from "./helpers.ts";

Deno.test("predictionLines: a leading BOM is not part of the first line", () => {
  assertEquals(predictionLines("\uFEFF0:0.9 1:0.1\r\n1:1\r\n"), ["0:0.9 1:0.1", "1:1"]);
  assertEquals(predictionLines("\uFEFF"), []);
});

Deno.test("evaluatePredictionsFile: a predictions file with a BOM scores as without", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/toy.train.txt`, "2 2 2\n0 0:1\n1 1:1\n");
    await Deno.writeTextFile(`${dir}/toy.test.txt`, "2 2 2\n0 0:1\n1 1:1\n");
    const text = "0:0.9 1:0.1\n0:0.8\n";
    await Deno.writeTextFile(`${dir}/plain.txt`, text);
    await Deno.writeTextFile(`${dir}/bom.txt`, "\uFEFF" + text);
    const run = (file: string) =>
      evaluatePredictionsFile({ dataset: "toy", dataDir: dir, predictions: `${dir}/${file}` });
    const [plain, bom] = [await run("plain.txt"), await run("bom.txt")];
    assertEquals(bom.metrics, plain.metrics);
  });
});
