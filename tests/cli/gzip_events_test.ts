/**
 * `tagstream train --data events.ndjson.gz`: a gzip NDJSON file (found by its content) is read
 * decompressed, as the same events in a plain file are; a gzip file cannot be followed.
 */
import { assert, runMain, withTempDir } from "./helpers.ts";
import { gzip } from "../helpers.ts";

const events = Array.from(
  { length: 300 },
  (_, i) => JSON.stringify({ features: { [i % 7]: 1, [10 + (i % 5)]: 2 }, labels: [`l${i % 3}`] }),
).join("\n") + "\n";

Deno.test("train --data: a gzip NDJSON file learns what the plain file learns", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/plain.ndjson`, events);
    // a name that does not say gzip: the content does
    await Deno.writeFile(`${dir}/packed.ndjson`, await gzip(events));
    const summaries = [];
    for (const name of ["plain", "packed"]) {
      const r = await runMain([
        "train",
        "--data",
        `${dir}/${name}.ndjson`,
        "--model",
        "br",
        "--out",
        `${dir}/${name}.tsm`,
      ]);
      assert(r.code === 0, `${name}: exit ${r.code}: ${r.err}`);
      summaries.push(JSON.parse(r.out.trim().split("\n").at(-1)!));
    }
    const [plain, packed] = summaries;
    assert(plain.eventsApplied === 300 && plain.rejected === 0, JSON.stringify(plain));
    for (const k of ["eventsApplied", "eventsLearned", "rejected", "numLabels", "prequentialP1"]) {
      assert(packed[k] === plain[k], `${k}: ${packed[k]} against ${plain[k]}`);
    }
    const a = await Deno.readFile(`${dir}/plain.tsm`), b = await Deno.readFile(`${dir}/packed.tsm`);
    assert(a.length === b.length, `model files of ${a.length} and ${b.length} bytes`);
  });
});
