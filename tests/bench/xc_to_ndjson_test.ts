/**
 * `npx deno run --allow-read bench/service/xc_to_ndjson.ts FILE [ROWS]` (README "Continuous
 * learning service": it writes the events the README posts) refuses bad input in one line, exit
 * status 2: a missing file was an uncaught stack trace (exit 1), and a ROWS that is not a number
 * ("abc") printed no event at all with exit status 0, so the README's curl posted an empty body.
 */
import { assert, assertEquals, runDenoScript, tempDirWith } from "../cli/helpers.ts";

const SCRIPT = new URL("../../bench/service/xc_to_ndjson.ts", import.meta.url).pathname;

Deno.test("xc_to_ndjson.ts: events of an XC file; bad arguments are one line, exit 2", async () => {
  const dir = await tempDirWith("tagstream_xc_to_ndjson_", {
    "tiny.train.txt": "3 3 2\n0 0:1\n1 1:1 2:0.5\n0,1 2:1\n",
  });
  try {
    const ok = await runDenoScript(SCRIPT, ["--allow-read"], [`${dir}/tiny.train.txt`, "2"]);
    assertEquals(ok.code, 0, ok.stderr);
    const events = ok.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assertEquals(events.length, 2);
    assertEquals(events[1].features, { "1": 1, "2": 0.5 });
    const cases: [string[], RegExp][] = [
      [[`${dir}/nope.txt`, "3"], /^xc_to_ndjson\.ts: Cannot read .*nope\.txt: no such file$/],
      [[`${dir}/tiny.train.txt`, "abc"], /^xc_to_ndjson\.ts: ROWS must be a positive integer/],
      [[], /^xc_to_ndjson\.ts: give FILE\.txt; usage: /],
    ];
    for (const [args, re] of cases) {
      const r = await runDenoScript(SCRIPT, ["--allow-read"], args);
      assertEquals([r.code, r.stdout], [2, ""], args.join(" "));
      assert(re.test(r.stderr.trim()), `${args.join(" ")}: ${r.stderr}`);
    }
    const help = await runDenoScript(SCRIPT, ["--allow-read"], ["--help"]);
    assert(help.code === 0 && help.stdout.startsWith("usage: "), help.stdout + help.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
