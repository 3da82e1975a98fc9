// `Vocabulary.truncate` takes back the names just added (the undo of an event refused after its
// parse): names and ids as before, the freed names get the next indices again, a bad size is
// refused naming the method and the range.
import { Vocabulary } from "../../src/data/vocabulary.ts";
import { assertEquals, assertThrowsMsg } from "./helpers.ts";

Deno.test("Vocabulary.truncate: names added since a size are taken back, ids with them", async () => {
  const v = new Vocabulary(["a", "b"], 4);
  const size = v.size;
  assertEquals([v.idOf("c", true), v.idOf("d", true)], [2, 3]);
  v.truncate(size);
  assertEquals(v.names, ["a", "b"]);
  assertEquals([v.idOf("c", false), v.idOf("d", false), v.idOf("b", false)], [-1, -1, 1]);
  // room again up to maxSize: the freed names are not counted
  assertEquals([v.idOf("d", true), v.idOf("e", true)], [2, 3]);
  v.truncate(v.size); // nothing to take back
  assertEquals(v.names, ["a", "b", "d", "e"]);
  v.truncate(0);
  assertEquals([v.size, v.idOf("a", false), v.idOf("e", true)], [0, -1, 0]);
  for (const bad of [-1, 2, 0.5, NaN]) {
    await assertThrowsMsg(
      () => v.truncate(bad),
      RangeError,
      `Vocabulary.truncate: size must be an integer in [0, 1], got ${bad}`,
    );
  }
});
