/**
 * The writer of the write-ahead log (see `wal.ts` for the format and its life cycle): appends
 * are queued and group-committed — one write and one fdatasync for everything queued meanwhile —
 * on the current segment; a failed write (a full disk) is cut back off the file, so that a
 * segment never holds a partial record in its middle. `rotate` starts a new segment at a
 * checkpoint and `release` deletes the ones the checkpoint covers.
 *
 * @module
 */
import { writeAllChecked } from "./storage_faults.ts";
import { namedWriteError } from "./named_write_error.ts";
import { frameRecords } from "./wal_record.ts";
import { listSegmentFiles, listSegments, segmentName, syncDir } from "./wal_segments.ts";

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

/**
 * Options of {@linkcode WriteAheadLog.open}.
 *
 * @example
 * ```ts
 * import type { WalOpenOptions } from "./wal_writer.ts";
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
 * import { listSegments } from "./wal_segments.ts";
 * import { WriteAheadLog } from "./wal_writer.ts";
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
  /**
   * A segment whose failed write could not be cut off at once, and the size to cut it back to:
   * no record is written anywhere before it is (a record after the partial bytes would be
   * damaged, and a refused record among them would be replayed).
   */
  #cut: { segment: number; size: number } | undefined;

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
    if (this.#cut !== undefined) await this.#cutBack().catch(() => {});
  }

  /** Cuts the partial bytes of a failed write off its segment (see `#cut`). */
  async #cutBack(): Promise<void> {
    const { segment, size } = this.#cut!;
    let f: Deno.FsFile;
    try {
      f = await Deno.open(`${this.dir}/${segmentName(segment)}`, { write: true });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
      this.#cut = undefined; // released meanwhile
      return;
    }
    try {
      await f.truncate(size);
      await f.syncData();
    } finally {
      f.close();
    }
    this.#cut = undefined;
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
          const framed = frameRecords(group, this.#seq);
          this.#seq = framed.nextSeq;
          await this.#write(op.segment, framed.bytes);
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

  async #write(segment: number, bytes: Uint8Array): Promise<void> {
    const path = `${this.dir}/${segmentName(segment)}`;
    if (this.#cut !== undefined) await this.#cutBack();
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
      // fails, the file is closed: the next write cuts it first (or fails too), then reopens it.
      try {
        await f.truncate(size);
        await f.syncData();
      } catch {
        f.close();
        this.#file = undefined;
        this.#fileSegment = -1;
        this.#cut = { segment, size };
      }
      throw namedWriteError(e, path);
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
