/**
 * The format-2 record of the write-ahead log: one line `CCCCCCCC SEQ PAYLOAD\n`, where `SEQ` is
 * the record's sequence number, `PAYLOAD` the event line as received and `CCCCCCCC` the CRC-32
 * (hex) of `SEQ PAYLOAD`. {@linkcode frameRecords} writes records, {@linkcode parseRecord} reads
 * and verifies one.
 *
 * @module
 */
import { crc32 } from "../format/crc32.ts";

const HEX = new Uint8Array(256).fill(255);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = HEX[65 + i] = 10 + i;

/**
 * Parses a format-2 record `[start, end)` (without its newline): its seq and payload, or why it
 * is bad.
 *
 * @example
 * ```ts
 * import { frameRecords, parseRecord } from "./wal_record.ts";
 * const { bytes } = frameRecords([{ lines: new TextEncoder().encode("ev\n") }], 7);
 * const r = parseRecord(bytes, 0, bytes.length - 1);
 * console.log(typeof r === "string" ? r : [r.seq, new TextDecoder().decode(r.payload)]); // [ 7, "ev" ]
 * console.log(parseRecord(new TextEncoder().encode("nonsense here"), 0, 13)); // malformed record (checksum is not hex)
 * ```
 */
export function parseRecord(
  bytes: Uint8Array,
  start: number,
  end: number,
): { seq: number; payload: Uint8Array } | string {
  if (end - start < 12 || bytes[start + 8] !== 32) return "malformed record (no checksum field)";
  let stored = 0;
  for (let i = 0; i < 8; i++) {
    const h = HEX[bytes[start + i]];
    if (h === 255) return "malformed record (checksum is not hex)";
    stored = stored * 16 + h;
  }
  let p = start + 9, seq = 0;
  while (p < end && bytes[p] >= 48 && bytes[p] <= 57 && p - start < 9 + 16) {
    seq = seq * 10 + bytes[p++] - 48;
  }
  if (p === start + 9 || p >= end || bytes[p] !== 32) {
    return "malformed record (no sequence number)";
  }
  const computed = crc32(bytes, start + 9, end);
  if (computed !== stored) {
    return `record checksum mismatch (stored ${stored.toString(16).padStart(8, "0")}, computed ${
      computed.toString(16).padStart(8, "0")
    })`;
  }
  return { seq, payload: bytes.subarray(p + 1, end) };
}

/**
 * The records of a group of appends: `CRC SEQ LINE\n` per line of each `lines` (whole lines; a
 * missing final newline is added), with sequence numbers from `firstSeq`; `nextSeq` follows the
 * last record.
 *
 * @example
 * ```ts
 * import { frameRecords } from "./wal_record.ts";
 * const r = frameRecords([{ lines: new TextEncoder().encode("a\nb") }], 5);
 * console.log(new TextDecoder().decode(r.bytes).split("\n").map((l) => l.slice(9)), r.nextSeq); // [ "5 a", "6 b", "" ] 7
 * ```
 */
export function frameRecords(
  group: readonly { readonly lines: Uint8Array }[],
  firstSeq: number,
): { bytes: Uint8Array; nextSeq: number } {
  let seq = firstSeq;
  let n = 0, count = 0;
  for (const g of group) {
    n += g.lines.length;
    for (let i = 0; i < g.lines.length; i++) if (g.lines[i] === 10) count++;
    if (g.lines[g.lines.length - 1] !== 10) {
      n++;
      count++;
    }
  }
  // CRC (8) + space + seq (≤ 16) + space per record
  const out = new Uint8Array(n + count * 26);
  let o = 0;
  for (const g of group) {
    const b = g.lines;
    let s = 0;
    while (s < b.length) {
      let e = b.indexOf(10, s);
      if (e < 0) e = b.length;
      const recStart = o;
      o += 9;
      const seqText = String(seq++);
      for (let k = 0; k < seqText.length; k++) out[o++] = seqText.charCodeAt(k);
      out[o++] = 32;
      out.set(b.subarray(s, e), o);
      o += e - s;
      const c = crc32(out, recStart + 9, o);
      const hex = c.toString(16).padStart(8, "0");
      for (let k = 0; k < 8; k++) out[recStart + k] = hex.charCodeAt(k);
      out[recStart + 8] = 32;
      out[o++] = 10;
      s = e + 1;
    }
  }
  return { bytes: out.subarray(0, o), nextSeq: seq };
}
