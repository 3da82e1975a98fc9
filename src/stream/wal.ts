/**
 * A write-ahead log of accepted HTTP events: numbered NDJSON segment files in a directory.
 * Appends are group-committed (one write and one fdatasync for everything queued meanwhile);
 * `append` resolves once its bytes are durable. At each checkpoint the service rotates to a new
 * segment and, once the checkpoint is durable, releases the older ones; on start it replays the
 * segments the checkpoint does not cover, so an event answered with 200 survives `kill -9`.
 *
 * @module
 */

type Op =
  | {
    kind: "write";
    segment: number;
    bytes: Uint8Array;
    resolve: () => void;
    reject: (e: Error) => void;
  }
  | { kind: "release"; before: number; resolve: () => void; reject: (e: Error) => void };

const SEGMENT_RE = /^(\d{10})\.ndjson$/;

function segmentName(n: number): string {
  return `${String(n).padStart(10, "0")}.ndjson`;
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
 * Segment numbers present in a WAL directory, increasing (empty when the directory is missing).
 *
 * @example
 * ```ts
 * import { listSegments } from "./wal.ts";
 * console.log(await listSegments("/nonexistent/tagstream/wal")); // []
 * ```
 */
export async function listSegments(dir: string): Promise<number[]> {
  const out: number[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      const m = e.isFile ? SEGMENT_RE.exec(e.name) : null;
      if (m) out.push(Number(m[1]));
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  return out.sort((a, b) => a - b);
}

/**
 * One complete line of a WAL segment, as replayed.
 *
 * @example
 * ```ts
 * import type { WalLine } from "./wal.ts";
 * const l: WalLine = { segment: 0, line: 1, bytes: new Uint8Array(0) };
 * console.log(l.line); // 1
 * ```
 */
export interface WalLine {
  /** Segment number. */
  segment: number;
  /** 1-based line number in the segment. */
  line: number;
  /** The line without its newline. */
  bytes: Uint8Array;
}

/**
 * The complete lines of every segment numbered `from` or more, in order. A last line without
 * its newline (a write cut short by a crash, never acknowledged) is skipped.
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
  for (const segment of await listSegments(dir)) {
    if (segment < from) continue;
    const bytes = await Deno.readFile(`${dir}/${segmentName(segment)}`);
    let start = 0, line = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] !== 10) continue;
      line++;
      yield { segment, line, bytes: bytes.subarray(start, i) };
      start = i + 1;
    }
  }
}

/**
 * The write-ahead log (see the module doc). Appends go to the current segment; `rotate()`
 * starts the next one; `release(n)` deletes segments below `n` after their writes finished.
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
  #closed = false;
  /** Bytes appended by this process. */
  bytesWritten = 0;
  /** fdatasync calls made (one per group commit). */
  syncs = 0;

  private constructor(dir: string, segment: number) {
    this.dir = dir;
    this.#segment = segment;
  }

  /**
   * Opens (creating) the directory; new appends go to a fresh segment numbered after every
   * existing one and at least `minSegment`.
   */
  static async open(dir: string, minSegment: number): Promise<WriteAheadLog> {
    await Deno.mkdir(dir, { recursive: true });
    const existing = await listSegments(dir);
    const last = existing.length > 0 ? existing[existing.length - 1] + 1 : 0;
    return new WriteAheadLog(dir, Math.max(minSegment, last));
  }

  /** The segment appends currently go to. */
  get segment(): number {
    return this.#segment;
  }

  /** Queues `bytes` (whole lines) on the current segment; resolves once they are durable. */
  append(bytes: Uint8Array): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("write-ahead log is closed"));
    if (bytes.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ kind: "write", segment: this.#segment, bytes, resolve, reject });
      this.#kick();
    });
  }

  /** Starts a new segment for the following appends; returns its number. */
  rotate(): number {
    return ++this.#segment;
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
        let j = i, n = 0;
        while (j < ops.length) {
          const o = ops[j];
          if (o.kind !== "write" || o.segment !== op.segment) break;
          n += o.bytes.length;
          j++;
        }
        const group = ops.slice(i, j) as Extract<Op, { kind: "write" }>[];
        try {
          const all = new Uint8Array(n);
          let off = 0;
          for (const g of group) {
            all.set(g.bytes, off);
            off += g.bytes.length;
          }
          await this.#write(op.segment, all);
          for (const g of group) g.resolve();
        } catch (e) {
          const err = new Error(`write-ahead log ${this.dir}: ${(e as Error).message}`);
          for (const g of group) g.reject(err);
        }
        i = j;
      }
    }
  }

  async #write(segment: number, bytes: Uint8Array): Promise<void> {
    if (this.#fileSegment !== segment || this.#file === undefined) {
      this.#file?.close();
      this.#file = undefined;
      this.#file = await Deno.open(`${this.dir}/${segmentName(segment)}`, {
        write: true,
        create: true,
        append: true,
      });
      this.#fileSegment = segment;
      await syncDir(this.dir);
    }
    let off = 0;
    while (off < bytes.length) off += await this.#file.write(bytes.subarray(off));
    await this.#file.syncData();
    this.bytesWritten += bytes.length;
    this.syncs++;
  }

  async #removeBefore(before: number): Promise<void> {
    for (const s of await listSegments(this.dir)) {
      if (s >= before) continue;
      if (s === this.#fileSegment) {
        this.#file?.close();
        this.#file = undefined;
        this.#fileSegment = -1;
      }
      await Deno.remove(`${this.dir}/${segmentName(s)}`).catch((e) => {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      });
    }
  }
}
