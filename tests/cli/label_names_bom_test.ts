// Label-name files saved with a UTF-8 byte order mark (Windows editors): the mark is not part of
// the first name, for --labels and for NAME.labels.txt beside an XC file alike (as loadNames and
// the data readers already skip it). Deno.readTextFile keeps the mark, so the first label was
// named "\uFEFFsports" in the model file, and a query for "sports" never matched it.
import { labelsBeside, readLabelsFlag } from "../../src/cli/commands/label_names.ts";
import { assertEquals, withTempDir } from "../helpers.ts";

const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);

async function writeWithBom(path: string, text: string): Promise<void> {
  const body = new TextEncoder().encode(text);
  const bytes = new Uint8Array(BOM.length + body.length);
  bytes.set(BOM);
  bytes.set(body, BOM.length);
  await Deno.writeFile(path, bytes);
}

Deno.test("--labels: a leading BOM is not part of the first name", async () => {
  await withTempDir(async (dir) => {
    await writeWithBom(`${dir}/names.txt`, "sports\r\nnews\r\n");
    assertEquals(await readLabelsFlag(`${dir}/names.txt`, 2), ["sports", "news"]);
  });
});

Deno.test("NAME.labels.txt beside the data: a leading BOM is not part of the first name", async () => {
  await withTempDir(async (dir) => {
    await writeWithBom(`${dir}/toy.labels.txt`, "sports\nnews\n");
    const warnings: string[] = [];
    const names = await labelsBeside(`${dir}/toy.train.txt`, 2, (m) => warnings.push(m));
    assertEquals(names, ["sports", "news"]);
    assertEquals(warnings, []);
  });
});

Deno.test("--labels: a file holding only a BOM has no names", async () => {
  await withTempDir(async (dir) => {
    await writeWithBom(`${dir}/names.txt`, "\n");
    assertEquals(await readLabelsFlag(`${dir}/names.txt`, 0), []);
  });
});
