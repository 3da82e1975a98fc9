/**
 * The byte offsets the frame check (sdk/frame.ts `checkFrame`) reports, pinned for each of its
 * failures on a real file: the golden tests compare both readers, which share the check, so an
 * offset that moved would move in both and pass there. A CRC-32 mismatch is reported at the
 * stored checksum (the last 4 bytes), a short file at its end, trailing bytes where the declared
 * length ends, a header byte that differs at that byte, and a version byte out of range at it.
 */
import { checkFrame, crc32 } from "../../sdk/internal.ts";
import { ModelFormatError } from "../../sdk/mod.ts";
import { assert } from "./helpers.ts";

const FILE = await Deno.readFile(new URL("../fixtures/v1/linear-sparse.tsm", import.meta.url));

function failure(bytes: Uint8Array): ModelFormatError {
  try {
    checkFrame(bytes);
  } catch (e) {
    if (e instanceof ModelFormatError) return e;
    throw e;
  }
  throw new Error("the frame check accepted a damaged file");
}

/** `bytes` with its trailing CRC-32 recomputed. */
function withCrc(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice(), n = out.length;
  new DataView(out.buffer).setUint32(n - 4, crc32(out, 0, n - 11));
  return out;
}

Deno.test("frame: each failure names its reason and the offset where it was found", () => {
  const n = FILE.length;
  assert(checkFrame(FILE) === 1, "the intact fixture passes");
  // the version byte: after the map tag, "magic": "TAGSTREAM" and the "formatVersion" key
  const version = 1 + 6 + 10 + 14;
  assert(FILE[version] === 1, `version byte at ${version}`);
  const cases: [string, Uint8Array, string, number][] = [];
  for (const at of [20, n >> 1, n - 12]) {
    const b = FILE.slice();
    b[at] ^= 0x10;
    if (at > version + 16) cases.push([`body byte ${at}`, b, "corrupt", n - 4]);
  }
  const crc = FILE.slice();
  crc[n - 1] ^= 1;
  cases.push(["stored checksum", crc, "corrupt", n - 4]);
  cases.push(["cut", FILE.subarray(0, n - 3), "truncated", n - 3]);
  cases.push(["trailing", Uint8Array.from([...FILE, 0]), "corrupt", n]);
  const magic = FILE.slice();
  magic[9] ^= 1; // in "TAGSTREAM"
  cases.push(["magic", magic, "bad-magic", 9]);
  const v0 = FILE.slice();
  v0[version] = 0;
  cases.push(["version 0", withCrc(v0), "corrupt", version]);
  for (const [what, bytes, reason, offset] of cases) {
    const e = failure(bytes);
    assert(e.reason === reason && e.offset === offset, `${what}: ${e.message}`);
  }
});
