// Values in two reader messages are shown as what they are: FeatureHasher's dim given as a
// string is quoted (it read `got 8`, which looks valid), and an XC header that is binary (a model
// file given as data) has its control bytes escaped rather than written raw to the terminal.
import { FeatureHasher } from "../../src/data/hashing.ts";
import { parseXcHeader } from "../../src/data/xc_rows.ts";
import { assert, assertEquals, messageOf } from "../helpers.ts";

Deno.test("FeatureHasher: a dim of the wrong type is shown quoted", () => {
  const m = messageOf(() => new FeatureHasher({ dim: "8" as unknown as number }));
  assert(m.endsWith(`got "8"`), m);
  assert(messageOf(() => new FeatureHasher({ dim: NaN })).endsWith("got NaN"));
});

Deno.test("parseXcHeader: control bytes of a binary header are escaped", () => {
  const bytes = Uint8Array.of(0x85, 0xa4, 0x6b, 0x69, 0x6e, 0x64, 0x00, 0x1b, 0x5b, 0x32, 0x4a);
  const m = messageOf(() => parseXcHeader(bytes, 0, bytes.length));
  // deno-lint-ignore no-control-regex
  assert(!/[\x00-\x1f\x7f]/.test(m), JSON.stringify(m));
  assert(m.includes("kind\\x00\\x1b[2J"), m);
  // a text header is shown as it is
  const text = new TextEncoder().encode("a b c");
  assertEquals(
    messageOf(() => parseXcHeader(text, 0, text.length)),
    "expected the header 'N D L' (three non-negative integers), found 'a b c'",
  );
});
