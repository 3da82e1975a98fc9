/**
 * `deno task replica-stall` (bench/replica_stall.ts) checks its flags before it starts a server:
 * a bad value or an unknown flag is one line naming it, exit status 2, nothing on stdout.
 */
import { assertRefusedEndToEnd } from "./script_refusals.ts";

Deno.test("replica-stall: bad flags are refused before the server starts", async () => {
  await assertRefusedEndToEnd([
    ["replica_stall.ts", ["--senders", "0"], /--senders must be an integer in \[1, 256\], got '0'/],
    ["replica_stall.ts", ["--labels", "1e30"], /--labels must be an integer in/],
    ["replica_stall.ts", ["--bogus", "1"], /unknown option '--bogus'/],
  ]);
});
