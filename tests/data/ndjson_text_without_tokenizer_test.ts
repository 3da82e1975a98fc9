/**
 * An event of raw text read without a tokenizer is refused naming what is missing (`--text`), not
 * with the bare "field 'features' must be an object" that did not say why.
 */
import { NdjsonParser } from "../../src/data/ndjson.ts";
import { assert } from "../helpers.ts";

Deno.test("NdjsonParser: an event with only 'text' and no tokenizer names --text", () => {
  const p = new NdjsonParser({ featureKeys: "name" });
  let msg = "";
  try {
    p.parse('{"text": "a small editor", "labels": ["editors"]}');
  } catch (e) {
    assert(e instanceof TypeError, `${e}`);
    msg = e.message;
  }
  assert(msg.includes("'features' is required") && msg.includes("--text"), msg);
  // features beside the text: read as features (the text is an ignored field)
  const ex = p.parse('{"text": "x", "features": {"a": 1}, "labels": ["l"]}');
  assert(ex.x.indices.length === 1, "features read");
});
