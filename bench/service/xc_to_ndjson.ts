/**
 * Prints an XC file's rows as NDJSON events (features by index, labels by name from
 * `NAME.labels.txt` when it is there), e.g. to feed `tagstream serve` in a demo:
 *
 * ```
 * npx deno run --allow-read bench/service/xc_to_ndjson.ts $TAGSTREAM_DATA/bibtex.train.txt [ROWS] > events.ndjson
 * ```
 *
 * @module
 */
import { xcEvents } from "./harness.ts";
import { parseFlags } from "../../src/cli/commands/args.ts";
import { runScript } from "../../src/cli/run_script.ts";

const USAGE =
  "usage: npx deno run --allow-read bench/service/xc_to_ndjson.ts FILE.txt [ROWS] > events.ndjson";

if (import.meta.main) {
  // bad input is one line and exit status 2 (a missing file was a stack trace, ROWS "abc" printed
  // no event and exit 0)
  await runScript("xc_to_ndjson.ts", async () => {
    const f = parseFlags("xc_to_ndjson.ts", Deno.args, {}, {
      maxPositionals: 2,
      program: "bench/service/xc_to_ndjson.ts",
    });
    if (f.values.help) {
      console.log(USAGE);
      return;
    }
    const [path, rows] = f.positionals;
    if (path === undefined || path === "") throw new TypeError(`give FILE.txt; ${USAGE}`);
    if (rows !== undefined && !(/^\d+$/.test(rows) && Number(rows) >= 1)) {
      throw new RangeError(`ROWS must be a positive integer, got '${rows}'`);
    }
    const ev = await xcEvents(path, rows === undefined ? Infinity : Number(rows));
    const out = new TextEncoder().encode(ev.lines.join("\n") + "\n");
    let off = 0;
    while (off < out.length) off += await Deno.stdout.write(out.subarray(off));
  });
}
