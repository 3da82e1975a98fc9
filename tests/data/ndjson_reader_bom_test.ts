/**
 * The NDJSON training reader drops a byte-order mark at the start of the input only: a later
 * line beginning with one is a bad line (the service refuses it too), not an event.
 */
import { readExamples } from "../../src/data/readers.ts";
import { assert } from "../helpers.ts";

const BOM = "\uFEFF";

Deno.test("readExamples (NDJSON): a BOM starts the input (dropped) or a later line (refused)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_ndjson_bom_" });
  try {
    const path = `${dir}/events.ndjson`;
    const line = (l: string) => JSON.stringify({ features: { a: 1 }, labels: [l] });
    await Deno.writeTextFile(path, `${BOM}${line("x")}\n${line("y")}\n${BOM}${line("z")}\n`);
    const r = await readExamples(path, { format: "ndjson", featureKeys: "name", onError: "skip" });
    let rows = 0;
    for await (const _ of r.stream) rows++;
    const report = r.report;
    assert(rows === 2, `${rows} rows read`);
    assert(report.errors.length === 1 && report.errors[0].line === 3, JSON.stringify(report));
    assert(/U\+FEFF/.test(report.errors[0].message), report.errors[0].message);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
