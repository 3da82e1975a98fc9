// Label-name files that are not UTF-8 (a Latin-1 file, a truncated download): Deno.readTextFile
// turned each bad byte into U+FFFD, and the model file then named its labels "caf\uFFFD". Now
// --labels refuses the file naming the line, and NAME.labels.txt beside the data is not used,
// with a warning naming it (as for its other faults), while good UTF-8 names are unchanged.
import { labelsBeside, readLabelsFlag } from "../../src/cli/commands/label_names.ts";
import { assert, assertEquals, withTempDir } from "../helpers.ts";

/** "news\ncafé\nsports\n" with "é" in Latin-1 (0xe9): line 2 is not UTF-8. */
const LATIN1 = Uint8Array.of(
  ...new TextEncoder().encode("news\ncaf"),
  0xe9,
  ...new TextEncoder().encode("\nsports\n"),
);

Deno.test("--labels: a file that is not UTF-8 is an error naming it and the line", async () => {
  await withTempDir(async (dir) => {
    const file = `${dir}/names.txt`;
    await Deno.writeFile(file, LATIN1);
    let err: unknown;
    try {
      await readLabelsFlag(file, 3);
    } catch (e) {
      err = e;
    }
    assert(err instanceof TypeError, `expected a TypeError, got ${err}`);
    assert(/^--labels .*names\.txt line 2: not valid UTF-8/.test(err.message), err.message);
    await Deno.writeTextFile(file, "news\ncafé\nsports\n");
    assertEquals(await readLabelsFlag(file, 3), ["news", "café", "sports"]);
  });
});

Deno.test("NAME.labels.txt beside the data that is not UTF-8: not used, with a warning", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/toy.labels.txt`, LATIN1);
    const warnings: string[] = [];
    assertEquals(await labelsBeside(`${dir}/toy.train.txt`, 3, (m) => warnings.push(m)), undefined);
    assertEquals(warnings.length, 1, warnings.join("\n"));
    assert(/toy\.labels\.txt line 2: not valid UTF-8/.test(warnings[0]), warnings[0]);
    await Deno.writeTextFile(`${dir}/toy.labels.txt`, "news\ncafé\nsports\n");
    assertEquals(await labelsBeside(`${dir}/toy.train.txt`, 3, (m) => warnings.push(m)), [
      "news",
      "café",
      "sports",
    ]);
    assertEquals(warnings.length, 1, warnings.join("\n"));
  });
});
