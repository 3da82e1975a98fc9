// Error messages of the NDJSON event parser and of ADMM name the field and the offending value.
import { NdjsonParser } from "../src/data/ndjson.ts";
import { admmRegressor } from "../src/linalg/admm.ts";
import { decodeCheckpoint, encodeCheckpoint } from "../src/service/checkpoint.ts";
import { metrics } from "../mod.ts";
import { assert, assertThrowsMsg } from "./helpers.ts";

Deno.test("NDJSON: an out-of-range label index names its field", async () => {
  const p = new NdjsonParser({ labelKeys: "index", numLabels: 3 });
  // the message said only "label index 7 is out of range [0, 3)", not which list held it
  await assertThrowsMsg(
    () => p.parse('{"features": {}, "labels": [0, 7]}'),
    RangeError,
    "labels[1]: label index 7 is out of range [0, 3)",
  );
  await assertThrowsMsg(
    () => p.parse('{"features": {}, "labels": [0], "negatives": [1, 2, 5]}'),
    RangeError,
    "negatives[2]: label index 5 is out of range [0, 3)",
  );
});

Deno.test("NDJSON: a label that is neither a name nor an index shows what was sent", async () => {
  const p = new NdjsonParser();
  for (
    const [label, shown] of [["-1", "-1"], ["1.5", "1.5"], ["null", "null"], ["{}", "an object"]]
  ) {
    await assertThrowsMsg(
      () => p.parse(`{"features": {}, "labels": ["a", ${label}]}`),
      TypeError,
      `labels[1]: a label must be a name (string) or a non-negative integer, got ${shown}`,
    );
  }
});

Deno.test("NDJSON: a name too long says how long it is", async () => {
  const p = new NdjsonParser({ featureKeys: "name", maxNameLength: 5 });
  await assertThrowsMsg(
    () => p.parse('{"features": {}, "labels": ["abcdefgh"]}'),
    RangeError,
    "labels[0]: name length must be 1..5, got 8",
  );
  await assertThrowsMsg(
    () => p.parse('{"features": {"abcdefg": 1}, "labels": []}'),
    RangeError,
    "features: name length must be 1..5, got 7",
  );
});

Deno.test("admmRegressor: a bad lambda, rho or mu is shown", async () => {
  const x = {
    numRows: 1,
    numCols: 1,
    indptr: Int32Array.of(0, 1),
    indices: Int32Array.of(0),
    values: Float32Array.of(1),
  };
  await assertThrowsMsg(
    () => admmRegressor(x, Float64Array.of(1), 1, { rho: -2 }),
    RangeError,
    "got 1, -2 and 0.001",
  );
});

Deno.test("checkpoint: a file that is no checkpoint at all says so", async () => {
  // a text file as checkpoint.msgpack: only the msgpack decoder's "end of buffer not reached"
  await assertThrowsMsg(
    () => decodeCheckpoint(new TextEncoder().encode("garbage\n")),
    SyntaxError,
    'Cannot decode checkpoint (8 bytes): no "TSCKPT02" header, and not an older (format 1) ' +
      "msgpack checkpoint either",
  );
  assert(
    JSON.stringify(decodeCheckpoint(encodeCheckpoint({ a: 1 }))) === '{"a":1}',
    "a checkpoint still decodes",
  );
});

Deno.test("metrics: a non-array shows what it is, not [object Object]", async () => {
  // a sparse row {indices, values} given where the ranked top labels are expected
  const p = new metrics.PrecisionAtK([1]);
  const row = { indices: [0], values: [1] };
  const e = await assertThrowsMsg(
    () => p.add(row as unknown as number[], [0]),
    TypeError,
    "PrecisionAtK.add: predicted labels must be an array of label indices, got an object " +
      "without a length",
  );
  assert(!e.message.includes("[object"), e.message);
  await assertThrowsMsg(
    () => new metrics.PrecisionAtK("1,3" as unknown as number[]),
    TypeError,
    'ks must be an array of cut-offs such as [1, 3, 5], got "1,3"',
  );
});
