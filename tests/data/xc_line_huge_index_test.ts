// An index too large for an int32 was reported as the rounded number the parser had summed
// (`feature index 100000000000000020000 is too large` for 99999999999999999999, a number the file
// does not hold) and without a limit. Messages now show the digits as written and the limit: the
// header's range for XC, 2^31 − 1 when there is no bound.
import { loadXcBytes } from "../../src/data/dataset_load.ts";
import { assertThrowsMsg } from "../helpers.ts";

const load = (text: string, options = {}) => () =>
  loadXcBytes(new TextEncoder().encode(text), "x.txt", options);

Deno.test("xc line: a huge feature index is shown as written, with the header's range", async () => {
  await assertThrowsMsg(
    load("1 1836 3\n1 99999999999999999999:1\n"),
    RangeError,
    "Cannot parse line 2 of x.txt: feature index 99999999999999999999 is out of range [0, 1836)",
  );
  await assertThrowsMsg(
    load("1 1836 3\n1 9007199254740993:1\n"),
    RangeError,
    "feature index 9007199254740993 is out of range [0, 1836)",
  );
});

Deno.test("xc line: a huge label index is shown as written, with the header's range", async () => {
  await assertThrowsMsg(
    load("1 5 3\n99999999999999999999 1:1\n"),
    RangeError,
    "Cannot parse line 2 of x.txt: label index 99999999999999999999 is out of range [0, 3)",
  );
});

Deno.test("libsvm line: a huge index without a bound names the int32 limit", async () => {
  await assertThrowsMsg(
    load("1 99999999999999999999:1\n", { format: "libsvm" }),
    RangeError,
    "Cannot parse line 1 of x.txt: feature index 99999999999999999999 is too large (at most 2147483647)",
  );
  await assertThrowsMsg(
    load("4294967296 1:1\n", { format: "libsvm" }),
    RangeError,
    "label index 4294967296 is too large (at most 2147483647)",
  );
});

Deno.test("xc line: a bad value of a huge feature index names the index as written", async () => {
  await assertThrowsMsg(
    load("1 5 3\n1 99999999999999999999:abc\n"),
    SyntaxError,
    "value 'abc' of feature 99999999999999999999 is not a number",
  );
});
