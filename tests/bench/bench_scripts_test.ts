/**
 * The benchmark scripts run by hand (`deno run -A bench/service_load.ts`, `service_crash.ts`,
 * `service_bad_input.ts`, `service_stages.ts`, `leml_memory.ts`, `coembed_speed.ts`), end to
 * end: bad input is one line `SCRIPT: message` on stderr and exit code 2 before any work (it was
 * a stack trace and exit 1, or `0x10` read as 16 and the run started); `--help` prints the usage.
 * Every case is refused before the service starts or the data is read.
 */
import { assert, assertEquals, runDenoScript, tempDirWith } from "../cli/helpers.ts";
import { assertRefusedEndToEnd, benchScript } from "./script_refusals.ts";

Deno.test("bench scripts: each one refuses bad input with one line and exit 2; --help exits 0", async () => {
  const dir = await tempDirWith("tagstream_bench_scripts_", {
    "tiny.train.txt": "4 3 4\n0 0:1\n0,1 1:1\n0 0:1 2:1\n2 2:1\n",
    "tiny.test.txt": "3 3 4\n0 0:1\n1,2 2:1\n 2:1\n",
  });
  try {
    const none = `${dir}/none`;
    const cases: [string, string[], RegExp][] = [
      // a stack trace (NotFound, exit 1) once the data was looked for
      [
        "service_load.ts",
        ["--data-dir", none],
        /^bench\/service_load\.ts: --data-dir .*none: no such directory \(it should hold bibtex/,
      ],
      // handed to serve as it was: the service failed to start
      [
        "service_load.ts",
        ["--data-dir", none, "--", "--batchsize", "8"],
        /^bench\/service_load\.ts: serve flags after --: .*unknown option '--batchsize'/,
      ],
      // --kills 0x10 was 16
      [
        "service_crash.ts",
        ["--kills", "0x10", "--data-dir", none],
        /^bench\/service_crash\.ts: --kills must be an integer in \[0, 1000\], got '0x10'$/,
      ],
      // parseArgs' stack trace
      [
        "service_bad_input.ts",
        ["--rounds"],
        /^bench\/service_bad_input\.ts: --rounds needs a value$/,
      ],
      [
        "service_stages.ts",
        ["--passes", "0", "--data-dir", none],
        /^bench\/service_stages\.ts: --passes must be an integer in \[1, 1000\], got '0'$/,
      ],
      // --rows 0x10 ran 16 rows, exit 0
      [
        "leml_memory.ts",
        ["--rows", "0x10"],
        /^bench\/leml_memory\.ts: --rows must be an integer in \[1, 1000000000000\], got '0x10'$/,
      ],
      // the data loaded, then fitCoEmbed's RangeError with a stack trace
      [
        "coembed_speed.ts",
        ["--dataset", "tiny", "--data-dir", dir, "--variant", "nl"],
        /^bench\/coembed_speed\.ts: --variant must be NL or L, got 'nl'$/,
      ],
    ];
    await assertRefusedEndToEnd(cases);
    // --help was an unknown option (a stack trace)
    const help = await runDenoScript(benchScript("leml_memory.ts"), ["--allow-all"], ["--help"]);
    assertEquals(help.code, 0, help.stderr);
    assert(help.stdout.startsWith("deno run -A bench/leml_memory.ts [--rows"), help.stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
