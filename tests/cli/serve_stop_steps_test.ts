/**
 * `serve`'s stop runs every step (closing the front, the server's shutdown, closing the front's
 * connections, removing the socket directory, stopping the service) even if one before it
 * fails, and reports the first failure once the last step (the service's stop: the last
 * checkpoint, the learner thread, the sources) has run. Before, a failed server shutdown or
 * front close skipped the service's stop. The real steps cannot be made to fail from a test,
 * so the sequence the stop runs them with is tested with failing steps.
 */
import { runEveryStep } from "../../src/cli/commands/stop_steps.ts";
import { assert, assertEquals } from "./helpers.ts";

Deno.test("serve's stop: every step runs after a failed one; the first failure is reported after the last", async () => {
  const ran: string[] = [];
  let thrown: unknown;
  try {
    await runEveryStep([
      ["closing the TCP front to new connections", () => void ran.push("front")],
      ["shutting the server down", () => {
        ran.push("shutdown");
        return Promise.reject(new Error("shutdown failed"));
      }],
      ["closing the TCP front", () => {
        ran.push("close");
        throw new Error("close failed");
      }],
      ["stopping the service", async () => {
        await new Promise((r) => setTimeout(r, 1));
        ran.push("service");
      }],
    ]);
  } catch (e) {
    thrown = e;
  }
  assertEquals(ran, ["front", "shutdown", "close", "service"]);
  assert(thrown instanceof Error && thrown.message === "shutdown failed", String(thrown));
});

Deno.test("serve's stop: steps that all succeed run in order and report nothing", async () => {
  const ran: number[] = [];
  await runEveryStep([["a", () => void ran.push(1)], [
    "b",
    () => Promise.resolve(void ran.push(2)),
  ]]);
  assertEquals(ran, [1, 2]);
});
