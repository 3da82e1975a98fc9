// A developer who exported TAGSTREAM_TOKEN (the README's first step) used to see the tests that run
// `serve --no-auth` fail: serve refuses --no-auth while the token is set, and the tests ran it in
// their own process (or in a child inheriting the environment). They run it without the token now.
// Checked by running two such test files as a developer would, with the token exported.
import { assert } from "./helpers.ts";

Deno.test("the tests of serve --no-auth pass with TAGSTREAM_TOKEN exported", async () => {
  const files = [
    // in this process (runMain)
    "serve_checkpoint_other_model_test.ts",
    // as a child process (runDenoScript)
    "serve_stop_failure_test.ts",
  ].map((f) => new URL(f, import.meta.url).pathname);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", "--no-check", ...files],
    env: { NO_COLOR: "1", TAGSTREAM_TOKEN: "developer-secret" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert(out.code === 0 && /ok \| \d+ passed \| 0 failed/.test(text), text);
});
