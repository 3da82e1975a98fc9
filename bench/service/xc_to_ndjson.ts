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

if (import.meta.main) {
  const [path, rows] = Deno.args;
  if (path === undefined) {
    console.error("usage: xc_to_ndjson.ts FILE.txt [ROWS]");
    Deno.exit(2);
  }
  const ev = await xcEvents(path, rows === undefined ? Infinity : Number(rows));
  const out = new TextEncoder().encode(ev.lines.join("\n") + "\n");
  let off = 0;
  while (off < out.length) off += await Deno.stdout.write(out.subarray(off));
}
