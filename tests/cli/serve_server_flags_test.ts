// `tagstream serve` checks its server flags (--max-body-bytes, --max-k, --body-timeout,
// --header-timeout, --max-in-flight, ...) before the service opens, within what they are used
// for, and names the flag:
// - a bad value used to be found only after the service had opened: a typo created the state
//   directory (and its write-ahead log) and, on an existing one, loaded its checkpoint first;
// - a value above 2^31 - 1 was refused by createApp as `createApp: option maxBodyBytes must be
//   ...`, a name the user never typed;
// - a --header-timeout past a timer's range (3000000 s) was accepted, and the timer then fired at
//   once: every request was cut off before its head was read.
import { assert, assertEquals, runServe } from "./helpers.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

Deno.test("serve refuses bad server flags before creating the state directory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_serve_server_flags_" });
  try {
    const cases: [string[], RegExp][] = [
      [["--max-k", "0"], /^tagstream serve: --max-k must be an integer /],
      [["--body-timeout", "0"], /^tagstream serve: --body-timeout must be a number /],
      [["--max-in-flight", "0"], /^tagstream serve: --max-in-flight must be an integer /],
      [
        ["--max-body-bytes-in-flight", "0"],
        /^tagstream serve: --max-body-bytes-in-flight must be an integer /,
      ],
      [
        ["--no-front", "--header-timeout", "5"],
        /^tagstream serve: --header-timeout and --max-connections are enforced by the TCP front/,
      ],
    ];
    for (const [args, re] of cases) {
      const state = `${dir}/state`;
      const r = await runServe(state, args);
      assertEquals(r.code, 2, `${args.join(" ")}: ${r.code === null ? "still serving" : r.stderr}`);
      assert(re.test(r.stderr.trim()), `${args.join(" ")}: ${r.stderr}`);
      assert(!(await exists(state)), `${args.join(" ")}: the state directory was created`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve names the flag of a size above 2^31 - 1 and of a header timeout past a timer's range", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tagstream_serve_server_flags_" });
  try {
    const cases: [string[], RegExp][] = [
      [
        ["--max-body-bytes", "3000000000"],
        /^tagstream serve: --max-body-bytes must be an integer in \[1, 2147483647\], got '3000000000'$/,
      ],
      [
        ["--max-k", "99999999999"],
        /^tagstream serve: --max-k must be an integer in \[1, 2147483647\], got '99999999999'$/,
      ],
      [
        ["--header-timeout", "3000000"],
        /^tagstream serve: --header-timeout must be a number in \[0, 2147483\.647\], got '3000000'$/,
      ],
    ];
    for (const [args, re] of cases) {
      const r = await runServe(dir, args, 10_000);
      assertEquals(r.code, 2, `${args.join(" ")}: ${r.code === null ? "still serving" : r.stderr}`);
      assert(re.test(r.stderr.trim()), `${args.join(" ")}: ${r.stderr}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
