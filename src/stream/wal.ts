/**
 * A write-ahead log of accepted HTTP events: numbered segment files in a directory, one record
 * per event line. Appends are group-committed (one write and one fdatasync for everything
 * queued meanwhile); `append` resolves once its bytes are durable, and a failed write (a full
 * disk) is cut back off the file, so that the segment never holds a partial record in its
 * middle. At each checkpoint the service rotates to a new segment and, once the checkpoint is
 * durable, releases the older ones; on start it replays the segments the checkpoint does not
 * cover, so an event answered with 200 survives `kill -9`.
 *
 * Format 2 (`NNNNNNNNNN.wal`): every record is one line `CCCCCCCC SEQ PAYLOAD\n`, where `SEQ`
 * is the record's sequence number (consecutive across segments and restarts), `PAYLOAD` the
 * event line as received and `CCCCCCCC` the CRC-32 (hex) of `SEQ PAYLOAD`. Replay
 * ({@linkcode readWal}) verifies every record: bytes after the last newline of the last segment
 * (a write cut short by a crash, never acknowledged) are a torn tail, truncated with a log
 * line; anything else — a checksum mismatch, a malformed record, a missing record (a gap in the
 * sequence: a truncated or deleted segment, a deleted line), an incomplete record in the middle
 * of the log — is damage: a {@linkcode WalDamageError} naming the file and the byte offset,
 * unless `repair` is set, when the damaged records are dropped and reported one by one.
 *
 * Format 1 (`NNNNNNNNNN.ndjson`, written before checksums): plain event lines. They are still
 * replayed (unverified, as before) so that a state directory of an older version migrates: the
 * service checkpoints right after replaying them, which releases them.
 *
 * @module
 */
import { crc32 } from "../format/crc32.ts";
import { writeAllChecked } from "./storage_faults.ts";

type WriteOp = {
  kind: "write";
  segment: number;
  lines: Uint8Array;
  resolve: () => void;
  reject: (e: Error) => void;
};
type Op =
  | WriteOp
  | { kind: "release"; before: number; resolve: () => void; reject: (e: Error) => void };

const SEGMENT_RE = /^(\d{10})\.(wal|ndjson)$/;

/**
 * The file name of a segment (`format` 2: `.wal`; 1: `.ndjson`).
 *
 * @example
 * ```ts
 * import { segmentName } from "./wal.ts";
 * console.log(segmentName(7)); // "0000000007.wal"
 * ```
 */
export function segmentName(n: number, format: 1 | 2 = 2): string {
  return `${String(n).padStart(10, "0")}.${format === 2 ? "wal" : "ndjson"}`;
}

async function syncDir(dir: string): Promise<void> {
  try {
    const d = await Deno.open(dir, { read: true });
    try {
      await d.sync();
    } finally {
      d.close();
    }
  } catch {
    // Some platforms cannot fsync a directory.
  }
}

/**
 * One segment file found in a WAL directory.
 *
 * @example
 * ```ts
 * import type { SegmentFile } from "./wal.ts";
 * const s: SegmentFile = { segment: 3, format: 2, name: "0000000003.wal" };
 * console.log(s.format); // 2
 * ```
 */
export interface SegmentFile {
  /** Segment number. */
  segment: number;
  /** 2: checksummed records; 1: plain lines (older versions). */
  format: 1 | 2;
  /** File name in the directory. */
  name: string;
}

/**
 * The segment files of a WAL directory, by increasing number (empty when the directory is
 * missing).
 *
 * @example
 * ```ts
 * import { listSegmentFiles } from "./wal.ts";
 * console.log(await listSegmentFiles("/nonexistent/tagstream/wal")); // []
 * ```
 */
export async function listSegmentFiles(dir: string): Promise<SegmentFile[]> {
  const out: SegmentFile[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      const m = e.isFile ? SEGMENT_RE.exec(e.name) : null;
      if (m) out.push({ segment: Number(m[1]), format: m[2] === "wal" ? 2 : 1, name: e.name });
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  return out.sort((a, b) => a.segment - b.segment || a.format - b.format);
}

/**
 * Segment numbers present in a WAL directory, increasing (empty when the directory is missing).
 *
 * @example
 * ```ts
 * import { listSegments } from "./wal.ts";
 * console.log(await listSegments("/nonexistent/tagstream/wal")); // []
 * ```
 */
export async function listSegments(dir: string): Promise<number[]> {
  return [...new Set((await listSegmentFiles(dir)).map((s) => s.segment))];
}

/**
 * Damage found in the write-ahead log: the file, the byte offset and what is wrong.
 *
 * @example
 * ```ts
 * import { WalDamageError } from "./wal.ts";
 * const e = new WalDamageError("/s/wal/0000000002.wal", 120, "record checksum mismatch");
 * console.log(e.offset, e.message.includes("byte 120")); // 120 true
 * ```
 */
export class WalDamageError extends Error {
  /** The damaged file. */
  readonly file: string;
  /** Byte offset of the damage in the file. */
  readonly offset: number;
  /** What is wrong. */
  readonly reason: string;

  constructor(file: string, offset: number, reason: string) {
    super(
      `The write-ahead log is damaged: ${file} at byte ${offset}: ${reason}. ` +
        `Refusing to start; 'serve --repair' drops the damaged part and reports what was lost`,
    );
    this.name = "WalDamageError";
    this.file = file;
    this.offset = offset;
    this.reason = reason;
  }
}

/**
 * One thing `repair` dropped or found missing (see {@linkcode WalReadResult.dropped}).
 *
 * @example
 * ```ts
 * import type { WalLoss } from "./wal.ts";
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
 * import type { WalLine } from "./wal.ts";
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
 * import type { WalReadResult } from "./wal.ts";
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

const HEX = new Uint8Array(256).fill(255);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = HEX[65 + i] = 10 + i;

/** Parses a format-2 record `[start, end)`: its seq and payload, or why it is bad. */
function parseRecord(
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
 * import { readWal, WriteAheadLog } from "./wal.ts";
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
 * import { replaySegments, WriteAheadLog } from "./wal.ts";
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

/**
 * Options of {@linkcode WriteAheadLog.open}.
 *
 * @example
 * ```ts
 * import type { WalOpenOptions } from "./wal.ts";
 * const o: WalOpenOptions = { nextSeq: 120 };
 * console.log(o.nextSeq); // 120
 * ```
 */
export interface WalOpenOptions {
  /** Sequence number of the first record this process writes (default 0). */
  nextSeq?: number;
}

/**
 * The write-ahead log (see the module doc). Appends go to the current segment; `rotate()`
 * starts the next one (when the current one holds anything); `release(n)` deletes segments
 * below `n` after their writes finished.
 *
 * @example
 * ```ts
 * import { listSegments, WriteAheadLog } from "./wal.ts";
 * const dir = await Deno.makeTempDir();
 * const wal = await WriteAheadLog.open(dir, 0);
 * await wal.append(new TextEncoder().encode("x\n"));
 * const next = wal.rotate();
 * await wal.append(new TextEncoder().encode("y\n"));
 * await wal.release(next);
 * console.log(await listSegments(dir)); // [ 1 ]
 * await wal.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class WriteAheadLog {
  /** Directory of the segment files. */
  readonly dir: string;
  #segment: number;
  #queue: Op[] = [];
  #draining: Promise<void> | undefined;
  #file: Deno.FsFile | undefined;
  #fileSegment = -1;
  #fileSize = 0;
  #closed = false;
  #seq: number;
  /** Appends queued or written to the current segment (it is rotated only when non-empty). */
  #segmentUsed = false;
  /** Sequence number each segment starts at (recorded when the drain first reaches it). */
  #startSeq = new Map<number, number>();
  #lastSegmentDrained: number;
  /** Bytes appended by this process. */
  bytesWritten = 0;
  /** fdatasync calls made (one per group commit). */
  syncs = 0;
  /** Writes that failed (e.g. a full disk); their bytes were cut off again. */
  failedWrites = 0;

  private constructor(dir: string, segment: number, seq: number) {
    this.dir = dir;
    this.#segment = segment;
    this.#seq = seq;
    this.#lastSegmentDrained = segment - 1;
  }

  /**
   * Opens (creating) the directory; new appends go to a fresh segment numbered after every
   * existing one and at least `minSegment`, with sequence numbers from `options.nextSeq`.
   */
  static async open(
    dir: string,
    minSegment: number,
    options: WalOpenOptions = {},
  ): Promise<WriteAheadLog> {
    await Deno.mkdir(dir, { recursive: true });
    const existing = await listSegments(dir);
    const last = existing.length > 0 ? existing[existing.length - 1] + 1 : 0;
    return new WriteAheadLog(dir, Math.max(minSegment, last), options.nextSeq ?? 0);
  }

  /** The segment appends currently go to. */
  get segment(): number {
    return this.#segment;
  }

  /** Sequence number of the next record written. */
  get nextSeq(): number {
    return this.#seq;
  }

  /**
   * The sequence number segment `segment` starts at. Exact once every append queued on the
   * segments before it has settled (the service asks when taking a checkpoint).
   */
  startSeqOf(segment: number): number {
    return this.#startSeq.get(segment) ?? this.#seq;
  }

  /**
   * Queues `lines` (whole lines, each ending with a newline) on the current segment, one record
   * each; resolves once they are durable. Rejects (nothing of them left in the file) when the
   * write or the sync fails.
   */
  append(lines: Uint8Array): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("write-ahead log is closed"));
    if (lines.length === 0) return Promise.resolve();
    this.#segmentUsed = true;
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ kind: "write", segment: this.#segment, lines, resolve, reject });
      this.#kick();
    });
  }

  /**
   * Starts a new segment for the following appends when the current one holds records or
   * queued appends; returns the segment following appends go to.
   */
  rotate(): number {
    if (this.#segmentUsed) {
      this.#segment++;
      this.#segmentUsed = false;
    }
    return this.#segment;
  }

  /** Deletes the segments numbered below `before`, after the writes queued so far finished. */
  release(before: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ kind: "release", before, resolve, reject });
      this.#kick();
    });
  }

  /** Waits for queued writes, then closes the current file. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#draining !== undefined) await this.#draining;
    this.#file?.close();
    this.#file = undefined;
  }

  #kick(): void {
    if (this.#draining !== undefined) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      if (this.#queue.length > 0) this.#kick();
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const ops = this.#queue.splice(0);
      for (let i = 0; i < ops.length;) {
        const op = ops[i];
        if (op.kind === "release") {
          try {
            await this.#removeBefore(op.before);
            op.resolve();
          } catch (e) {
            op.reject(e as Error);
          }
          i++;
          continue;
        }
        let j = i;
        while (j < ops.length) {
          const o = ops[j];
          if (o.kind !== "write" || o.segment !== op.segment) break;
          j++;
        }
        const group = ops.slice(i, j) as WriteOp[];
        if (op.segment > this.#lastSegmentDrained) {
          for (let s = this.#lastSegmentDrained + 1; s <= op.segment; s++) {
            this.#startSeq.set(s, this.#seq);
          }
          this.#lastSegmentDrained = op.segment;
        }
        const seq0 = this.#seq;
        try {
          await this.#write(op.segment, this.#frame(group));
          for (const g of group) g.resolve();
        } catch (e) {
          this.#seq = seq0; // nothing of the group is in the file
          this.failedWrites++;
          const err = new Error(`write-ahead log ${this.dir}: ${(e as Error).message}`);
          for (const g of group) g.reject(err);
        }
        i = j;
      }
    }
  }

  /** The records of a group: `CRC SEQ LINE\n` per line (sequence numbers from `#seq`). */
  #frame(group: readonly WriteOp[]): Uint8Array {
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
        const seqText = String(this.#seq++);
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
    return out.subarray(0, o);
  }

  async #write(segment: number, bytes: Uint8Array): Promise<void> {
    const path = `${this.dir}/${segmentName(segment)}`;
    if (this.#fileSegment !== segment || this.#file === undefined) {
      this.#file?.close();
      this.#file = undefined;
      this.#fileSegment = -1;
      const f = await Deno.open(path, { write: true, create: true, append: true });
      this.#fileSize = (await f.stat()).size;
      this.#file = f;
      this.#fileSegment = segment;
      await syncDir(this.dir);
    }
    const f = this.#file;
    const size = this.#fileSize;
    try {
      await writeAllChecked(f, path, bytes);
      await f.syncData();
    } catch (e) {
      // Cut the partial write off, so that no later record follows a broken one. If even that
      // fails, the file is closed: the next write reopens it and tries again.
      try {
        await f.truncate(size);
        await f.syncData();
      } catch {
        f.close();
        this.#file = undefined;
        this.#fileSegment = -1;
      }
      throw e;
    }
    this.#fileSize = size + bytes.length;
    this.bytesWritten += bytes.length;
    this.syncs++;
  }

  async #removeBefore(before: number): Promise<void> {
    for (const s of await listSegmentFiles(this.dir)) {
      if (s.segment >= before) continue;
      if (s.segment === this.#fileSegment) {
        this.#file?.close();
        this.#file = undefined;
        this.#fileSegment = -1;
      }
      await Deno.remove(`${this.dir}/${s.name}`).catch((e) => {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      });
    }
    for (const s of this.#startSeq.keys()) if (s < before) this.#startSeq.delete(s);
  }
}

/**
 * Truncates a torn tail found by {@linkcode readWal} (the last segment's bytes after its last
 * newline) and deletes empty segment files; returns a log line, or undefined when there was
 * nothing to do.
 *
 * @example
 * ```ts
 * import { readWal, tidyWal } from "./wal.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/0000000000.wal`, "half a rec");
 * const r = await readWal(dir, 0, 0);
 * console.log(await tidyWal(dir, r)); // truncated 10 bytes (an incomplete record: a write cut short, never acknowledged) at the end of 0000000000.wal
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function tidyWal(dir: string, r: WalReadResult): Promise<string | undefined> {
  const notes: string[] = [];
  if (r.tornTail !== undefined) {
    const t = r.tornTail;
    await Deno.truncate(`${dir}/${t.file}`, t.offset);
    notes.push(
      `truncated ${t.bytes} bytes (an incomplete record: a write cut short, never acknowledged) at the end of ${t.file}`,
    );
  }
  for (const name of r.emptyFiles) {
    await Deno.remove(`${dir}/${name}`).catch(() => {});
  }
  if (r.emptyFiles.length > 0) notes.push(`deleted ${r.emptyFiles.length} empty segment file(s)`);
  return notes.length > 0 ? notes.join("; ") : undefined;
}
