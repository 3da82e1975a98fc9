/**
 * Reading and verifying the write-ahead log on start (see `wal.ts` for the format): every
 * format-2 record's checksum and sequence number is checked; a torn tail of the last segment is
 * reported for `tidyWal` to truncate, anything else is damage — a
 * {@linkcode WalDamageError}, or with `repair` a list of {@linkcode WalLoss}es. Format-1
 * segments are replayed unverified. Never modifies a file.
 *
 * @module
 */
import { listSegmentFiles } from "./wal_segments.ts";
import { parseRecord } from "./wal_record.ts";

/**
 * Damage found in the write-ahead log: the file, the byte offset and what is wrong, for a command
 * to say its own way on. The message says serve's: `DAMAGE. Refusing to start; 'serve --repair'
 * drops the damaged part and reports what was lost` (`DAMAGE`: {@linkcode WalDamageError.damage}).
 *
 * @example
 * ```ts
 * import { WalDamageError } from "./wal_reader.ts";
 * const e = new WalDamageError("/s/wal/0000000002.wal", 120, "record checksum mismatch");
 * console.log(e.offset, e.message.includes("byte 120")); // 120 true
 * console.log(e.damage); // The write-ahead log is damaged: /s/wal/0000000002.wal at byte 120: record checksum mismatch
 * ```
 */
export class WalDamageError extends Error {
  /** The damaged file. */
  readonly file: string;
  /** Byte offset of the damage in the file. */
  readonly offset: number;
  /** What is wrong. */
  readonly reason: string;

  /**
   * The damage at byte `offset` of `file`, and what is wrong (`reason`).
   *
   * @param file the damaged file
   * @param offset byte offset of the damage
   * @param reason what is wrong
   */
  constructor(file: string, offset: number, reason: string) {
    super(
      `${walDamage(file, offset, reason)}. ` +
        `Refusing to start; 'serve --repair' drops the damaged part and reports what was lost`,
    );
    this.name = "WalDamageError";
    this.file = file;
    this.offset = offset;
    this.reason = reason;
  }

  /** The damage, without a way on: `The write-ahead log is damaged: FILE at byte N: REASON`. */
  get damage(): string {
    return walDamage(this.file, this.offset, this.reason);
  }
}

/** What a {@linkcode WalDamageError} found, in words. */
function walDamage(file: string, offset: number, reason: string): string {
  return `The write-ahead log is damaged: ${file} at byte ${offset}: ${reason}`;
}

/**
 * One thing `repair` dropped or found missing (see {@linkcode WalReadResult.dropped}).
 *
 * @example
 * ```ts
 * import type { WalLoss } from "./wal_reader.ts";
 * const l: WalLoss = { file: "0000000002.wal", offset: 0, bytes: 80, records: 1, reason: "checksum" };
 * console.log(l.records); // 1
 * ```
 */
export interface WalLoss {
  /** The file (its name in the WAL directory). */
  file: string;
  /** Byte offset in that file (-1: a whole missing range, no bytes). */
  offset: number;
  /** Bytes dropped. */
  bytes: number;
  /** Records (events) lost. */
  records: number;
  /** Why. */
  reason: string;
  /** Sequence numbers lost, when known (`[first, last]`). */
  seqs?: [number, number];
  /** Event ids readable in the dropped bytes (best effort). */
  ids?: string[];
  /** The dropped bytes (up to 1000 characters, for the operator). */
  text?: string;
}

/**
 * One verified record of the log, as replayed.
 *
 * @example
 * ```ts
 * import type { WalLine } from "./wal_reader.ts";
 * const l: WalLine = { segment: 0, line: 1, seq: 0, bytes: new Uint8Array(0) };
 * console.log(l.line); // 1
 * ```
 */
export interface WalLine {
  /** Segment number. */
  segment: number;
  /** 1-based line number in the segment. */
  line: number;
  /** Sequence number (-1 in a format-1 segment). */
  seq: number;
  /** The event line (the payload). */
  bytes: Uint8Array;
}

/**
 * What {@linkcode readWal} found.
 *
 * @example
 * ```ts
 * import type { WalReadResult } from "./wal_reader.ts";
 * function lost(r: WalReadResult): number { return r.dropped.reduce((n, d) => n + d.records, 0); }
 * console.log(typeof lost); // "function"
 * ```
 */
export interface WalReadResult {
  /** The records to replay, in order. */
  lines: WalLine[];
  /** Sequence number of the next record to write. */
  nextSeq: number;
  /** Torn tail: the last segment's bytes after its last newline (truncated by `truncateTornTail`). */
  tornTail?: { file: string; offset: number; bytes: number };
  /** Format-1 segments replayed without verification. */
  legacySegments: number;
  /** With `repair`: what was dropped or found missing. */
  dropped: WalLoss[];
  /** Empty segment files (deleted by the service). */
  emptyFiles: string[];
}

const ID_RE = /"id"\s*:\s*"((?:[^"\\]|\\.){1,200})"/g;

function lossText(bytes: Uint8Array): { text: string; ids: string[] } {
  const text = new TextDecoder().decode(bytes);
  const ids: string[] = [];
  for (const m of text.matchAll(ID_RE)) ids.push(m[1]);
  return { text: text.length > 1000 ? `${text.slice(0, 1000)}...` : text, ids };
}

/**
 * Reads and verifies the log segments numbered `from` or more (see the module doc).
 * `expectSeq`: the sequence number the first record must have (from the checkpoint; undefined
 * when unknown). Throws a {@linkcode WalDamageError} on damage unless `repair` is set; never
 * modifies a file.
 *
 * @example
 * ```ts
 * import { readWal } from "./wal_reader.ts";
 * import { WriteAheadLog } from "./wal_writer.ts";
 * const dir = await Deno.makeTempDir();
 * const wal = await WriteAheadLog.open(dir, 0);
 * await wal.append(new TextEncoder().encode("a\nb\n"));
 * await wal.close();
 * const r = await readWal(dir, 0, 0);
 * console.log(r.lines.map((l) => new TextDecoder().decode(l.bytes)), r.nextSeq); // [ "a", "b" ] 2
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readWal(
  dir: string,
  from: number,
  expectSeq: number | undefined,
  options: { repair?: boolean } = {},
): Promise<WalReadResult> {
  const files = (await listSegmentFiles(dir)).filter((s) => s.segment >= from);
  const out: WalReadResult = {
    lines: [],
    nextSeq: expectSeq ?? 0,
    legacySegments: 0,
    dropped: [],
    emptyFiles: [],
  };
  let expect = expectSeq;
  let prevSegment = from - 1;
  const damage = (file: string, offset: number, reason: string, loss?: Partial<WalLoss>) => {
    if (!options.repair) throw new WalDamageError(`${dir}/${file}`, offset, reason);
    out.dropped.push({ file, offset, bytes: 0, records: 0, reason, ...loss });
  };
  // the last segment holding anything (empty files after it do not count)
  let lastNonEmpty = -1;
  for (let fi = 0; fi < files.length; fi++) {
    if ((await Deno.stat(`${dir}/${files[fi].name}`)).size > 0) lastNonEmpty = fi;
  }
  for (let fi = 0; fi < files.length; fi++) {
    const f = files[fi];
    const last = fi === lastNonEmpty;
    const bytes = await Deno.readFile(`${dir}/${f.name}`);
    if (bytes.length === 0) {
      out.emptyFiles.push(f.name);
      continue;
    }
    if (f.segment > prevSegment + 1 && expect === undefined && prevSegment >= from) {
      // without sequence numbers (format 1) a missing segment is the only sign of a gap
      damage(f.name, 0, `segment ${prevSegment + 1} is missing before it`, {
        offset: -1,
        records: 0,
      });
    }
    prevSegment = f.segment;
    let start = 0, line = 0;
    if (f.format === 1) {
      out.legacySegments++;
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i] !== 10) continue;
        line++;
        out.lines.push({ segment: f.segment, line, seq: -1, bytes: bytes.subarray(start, i) });
        start = i + 1;
      }
      if (start < bytes.length && !last) {
        damage(f.name, start, "incomplete last line in a segment that is not the last", {
          bytes: bytes.length - start,
          records: 1,
          ...lossText(bytes.subarray(start)),
        });
      } else if (start < bytes.length) {
        out.tornTail = { file: f.name, offset: start, bytes: bytes.length - start };
      }
      continue;
    }
    while (start < bytes.length) {
      const nl = bytes.indexOf(10, start);
      if (nl < 0) {
        if (last) {
          out.tornTail = { file: f.name, offset: start, bytes: bytes.length - start };
        } else {
          damage(f.name, start, "incomplete record at the end of a segment that is not the last", {
            bytes: bytes.length - start,
            records: 1,
            ...lossText(bytes.subarray(start)),
          });
        }
        break;
      }
      line++;
      const r = parseRecord(bytes, start, nl);
      if (typeof r === "string") {
        damage(f.name, start, r, {
          bytes: nl + 1 - start,
          records: 1,
          ...(expect !== undefined ? { seqs: [expect, expect] as [number, number] } : {}),
          ...lossText(bytes.subarray(start, nl)),
        });
        // resynchronise on the next record: its own sequence number says what follows
        if (expect !== undefined) expect++;
      } else {
        if (expect !== undefined && r.seq !== expect) {
          const reason = r.seq > expect
            ? `records ${expect}..${r.seq - 1} are missing before record ${r.seq} ` +
              `(a truncated or deleted segment, or deleted lines)`
            : `record ${r.seq} is out of order (expected ${expect})`;
          damage(f.name, start, reason, {
            offset: start,
            records: Math.max(0, r.seq - expect),
            ...(r.seq > expect ? { seqs: [expect, r.seq - 1] as [number, number] } : {}),
          });
        }
        if (expect === undefined || r.seq >= expect) {
          out.lines.push({ segment: f.segment, line, seq: r.seq, bytes: r.payload });
          expect = r.seq + 1;
        }
      }
      start = nl + 1;
    }
  }
  if (expect !== undefined) out.nextSeq = expect;
  return out;
}

/**
 * The complete lines of every segment numbered `from` or more, in order (verified as
 * {@linkcode readWal} does, without an expected first sequence number).
 *
 * @example
 * ```ts
 * import { replaySegments } from "./wal_reader.ts";
 * import { WriteAheadLog } from "./wal_writer.ts";
 * const dir = await Deno.makeTempDir();
 * const wal = await WriteAheadLog.open(dir, 0);
 * await wal.append(new TextEncoder().encode("a\nb\n"));
 * await wal.close();
 * const lines = [];
 * for await (const l of replaySegments(dir, 0)) lines.push(new TextDecoder().decode(l.bytes));
 * console.log(lines); // [ "a", "b" ]
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function* replaySegments(dir: string, from: number): AsyncGenerator<WalLine> {
  yield* (await readWal(dir, from, undefined)).lines;
}
