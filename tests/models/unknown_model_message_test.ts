// An unknown model name was "Unknown model 'lemx': …", capitalised where every other error
// starts lower-case (callers prefix it with their place: "tagstream train: …", "--learners: …").
import { loadFactory, MODEL_NAMES } from "../../src/models/registry.ts";
import { assertEquals, assertThrowsMsg } from "../helpers.ts";

Deno.test("loadFactory: an unknown model name is a lower-case TypeError listing the names", async () => {
  const e = await assertThrowsMsg(() => loadFactory("lemx"), TypeError, "'lemx'");
  assertEquals(e.message, `unknown model 'lemx': expected one of ${MODEL_NAMES.join(", ")}`);
});
