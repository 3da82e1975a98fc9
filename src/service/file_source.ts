/**
 * Reads an NDJSON file line by line from a byte offset, optionally following it like `tail -F`:
 * waits for appended lines, starts again from the beginning when the file is truncated or
 * replaced (a new inode at the path: after the rest of the file it had open, whose last line
 * counts even without a newline). The byte offset after each complete line is reported so
 * the learner can checkpoint it and resume there.
 *
 * A file truncated and written again past the position read between two looks (copy-truncate
 * rotation, `logrotate copytruncate`) keeps its inode and size check: it is recognised by the
 * last bytes read before the position (up to 64, compared again before each read, and saved
 * with the position as {@linkcode FileFollower.tail} so that a resume checks them too), and read
 * again from its start. What was written to it after the last read and before the truncation is
 * only in the copy, as with any copy-truncate reader.
 *
 * A read takes up to 1 MiB; {@linkcode FileFollower.next} can hand its lines out a few at a time
 * (`maxLines`), so that a caller learning them slowly can stop, or save its position, between
 * two calls without a read's worth of lines in between.
 *
 * @module
 */
import { lineTooLong } from "./event_limits.ts";
import { startsWithBom } from "../data/bom.ts";
import { FINGERPRINT, fromHex, lastBytes, sameBytes, toHex } from "../data/fingerprint.ts";

/**
 * One line read from the file: its text, or why it cannot be used.
 *
 * @example
 * ```ts
 * import type { FileLine } from "./file_source.ts";
 * const l: FileLine = { line: 3, offset: 120, text: "{}" };
 * console.log(l.offset); // 120
 * ```
 */
export interface FileLine {
  /** 1-based line number in the file. */
  line: number;
  /** Byte offset just after this line (where reading resumes). */
  offset: number;
  /** The line (without newline), when it is valid UTF-8 and not too long. */
  text?: string;
  /** Why the line was skipped (too long, not UTF-8). */
  error?: string;
}

/**
 * Options of {@linkcode FileFollower}.
 *
 * @example
 * ```ts
 * import type { FollowOptions } from "./file_source.ts";
 * const o: FollowOptions = { follow: true, pollMs: 100 };
 * console.log(o.follow); // true
 * ```
 */
export interface FollowOptions {
  /** Keep waiting for new lines at the end of the file (default false: stop at its end). */
  follow?: boolean;
  /** Wait between two looks at a file that did not grow, in milliseconds (default 100). */
  pollMs?: number;
  /** Longest line kept, in bytes (default 65536); longer lines are skipped and reported. */
  maxLineBytes?: number;
  /** Called with a message when the file was truncated or replaced. */
  log?: (message: string) => void;
}

/**
 * A line reader over a (possibly growing) file.
 *
 * @example
 * ```ts
 * import { FileFollower } from "./file_source.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n');
 * const f = new FileFollower(path, { offset: 8, line: 1 });
 * console.log(await f.next()); // [ { line: 2, offset: 16, text: '{"b":2}' } ]
 * console.log(await f.next()); // null
 * f.close();
 * await Deno.remove(path);
 * ```
 */
export class FileFollower {
  /** The file. */
  readonly path: string;
  /** Byte offset after the last complete line returned. */
  offset: number;
  /** Number of the last line returned. */
  line: number;
  readonly #follow: boolean;
  readonly #pollMs: number;
  readonly #maxLine: number;
  readonly #log: (m: string) => void;
  readonly #buf = new Uint8Array(1 << 20);
  /** Keeps a BOM (one at the file's start is dropped by `#split`; elsewhere it is data). */
  readonly #decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  #file: Deno.FsFile | undefined;
  #ino: number | null = null;
  /** The inode the start offset belongs to (a resumed position), checked at the first open. */
  #startIno: number | null | undefined;
  #carry = new Uint8Array(0);
  #skipping = false;
  /** The path names another file now: the open one is read to its end, then the new one. */
  #replaced = false;
  #closed = false;
  /** Bytes read from the open file so far (where the next read starts). */
  #pos = 0;
  /** The last bytes read (up to `FINGERPRINT`, ending at `#pos`): compared before each read. */
  #recent: Uint8Array = new Uint8Array(0);
  /** The bytes of the last read (in `#buf`); `[#chunkAt, end)` is not split into lines yet. */
  #chunk: Uint8Array = new Uint8Array(0);
  #chunkAt = 0;
  /** The last bytes before `#chunk` (up to `FINGERPRINT`), for the tails of its lines. */
  #chunkBefore: Uint8Array = new Uint8Array(0);
  /** The last bytes up to the end of the last complete line split (see `tail`). */
  #lineTail: Uint8Array | undefined;
  /** The saved position's `tail`, checked at the first open. */
  #startTail: Uint8Array | undefined;

  constructor(
    path: string,
    start: { offset: number; line: number; ino?: number | null; tail?: string } = {
      offset: 0,
      line: 0,
    },
    options: FollowOptions = {},
  ) {
    this.path = path;
    this.offset = start.offset;
    this.line = start.line;
    this.#startIno = start.ino;
    this.#startTail = fromHex(start.tail);
    this.#follow = options.follow ?? false;
    this.#pollMs = options.pollMs ?? 100;
    this.#maxLine = options.maxLineBytes ?? 65536;
    this.#log = options.log ?? (() => {});
  }

  /**
   * The next complete lines. Returns `[]` after waiting `pollMs` when nothing new arrived
   * (follow mode, or while the file does not exist yet), and `null` at the end of the file
   * when not following (a last line without newline is then returned too).
   *
   * @param maxLines at most this many lines (default: all those of a read, up to 1 MiB); the
   *   others of the same read come at the next calls, without reading the file again
   *
   * @example
   * ```ts
   * import { FileFollower } from "./file_source.ts";
   * const path = await Deno.makeTempFile();
   * await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n{"c":3}\n');
   * const f = new FileFollower(path);
   * console.log((await f.next(2))!.map((l) => l.line), f.offset); // [ 1, 2 ] 16
   * console.log((await f.next(2))!.map((l) => l.line), f.offset); // [ 3 ] 24
   * f.close();
   * await Deno.remove(path);
   * ```
   */
  async next(maxLines = Infinity): Promise<FileLine[] | null> {
    if (this.#closed) return null;
    // lines of the last read not handed out yet: no look at the file before they are
    if (this.#chunkAt < this.#chunk.length) return this.#split(maxLines);
    if (this.#file === undefined) {
      try {
        this.#file = await Deno.open(this.path, { read: true });
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound) || !this.#follow) {
          throw new TypeError(`Cannot read ${this.path}: ${(e as Error).message}`);
        }
        await this.#sleep();
        return [];
      }
      this.#ino = (await this.#file.stat()).ino;
      const was = this.#startIno;
      this.#startIno = undefined;
      if (was !== undefined && was !== null && this.#ino !== null && this.#ino !== was) {
        // the offset was in another file (replaced while nobody read it): this one from its start
        if (this.offset > 0) {
          this.#log(
            `${this.path} was replaced since its position was saved: reading it from its start`,
          );
        }
        this.offset = 0;
        this.line = 0;
      }
      const saved = this.#startTail;
      this.#startTail = undefined;
      this.#carry = new Uint8Array(0);
      this.#skipping = false;
      // the bytes before the offset: checked against the saved ones, kept to check later reads
      this.#recent = new Uint8Array(0);
      if (this.offset > 0) {
        const n = Math.min(this.offset, saved?.length ?? FINGERPRINT);
        const before = await this.#readAt(this.offset - n, n);
        if (saved !== undefined && !sameBytes(before, saved)) {
          this.#log(
            `${this.path} was rewritten since its position was saved (truncated and written again, as a copy-truncate rotation does): reading it from its start`,
          );
          this.offset = 0;
          this.line = 0;
        } else if (before.length === n) this.#recent = before;
      }
      await this.#file.seek(this.offset, Deno.SeekMode.Start);
      this.#pos = this.offset;
    } else if (this.#recent.length > 0) {
      // truncated and written again past the position read since the last look (copy-truncate):
      // the bytes before it changed, or the file is shorter now
      const n = this.#recent.length;
      const now = await this.#readAt(this.#pos - n, n);
      if (!sameBytes(now, this.#recent)) {
        this.#log(
          now.length < n
            ? `${this.path} was truncated: reading it again from its start`
            : `${this.path} was truncated and written again past the position read (a copy-truncate rotation?): reading it again from its start`,
        );
        this.#restart();
        return [];
      }
    }
    const n = await this.#file.read(this.#buf);
    if (n === null || n === 0) return await this.#atEnd();
    this.#chunk = this.#buf.subarray(0, n);
    this.#chunkAt = 0;
    this.#chunkBefore = this.#recent;
    this.#recent = lastBytes(this.#recent, this.#chunk, n);
    this.#pos += n;
    return this.#split(maxLines);
  }

  async #atEnd(): Promise<FileLine[] | null> {
    if (!this.#follow) {
      if (this.#carry.length === 0 && !this.#skipping) return null;
      // The file ends without a newline: its last line is complete.
      const out = this.#endLastLine();
      return out.length > 0 ? out : null;
    }
    if (this.#replaced) {
      // the old file read to its end once more: its last line is complete even without a
      // newline (as at the end of a file read once), then the new file
      const out = this.#carry.length > 0 || this.#skipping ? this.#endLastLine() : [];
      this.#restart();
      return out;
    }
    let st: Deno.FileInfo | undefined;
    try {
      st = await Deno.stat(this.path);
    } catch {
      st = undefined; // deleted: wait for it to come back
    }
    if (st !== undefined && st.ino !== this.#ino) {
      this.#log(`${this.path} was replaced: reading the new file from its start`);
      // what was written to the old file since it was last read comes first
      this.#replaced = true;
    } else if (st !== undefined && st.size < this.offset + this.#carry.length) {
      this.#log(`${this.path} was truncated: reading it again from its start`);
      this.#restart();
    } else {
      await this.#sleep();
    }
    return [];
  }

  /**
   * The inode of the file the lines returned last came from (null before the first open, or
   * where the platform has none): saved with the position, so that a resume can tell the file
   * was replaced meanwhile.
   */
  get ino(): number | null {
    return this.#ino;
  }

  /**
   * The last bytes (up to 64, hex) before the offset of the last line returned, where there is
   * one in the file (not after a last line without newline): saved with the position, so that a
   * resume can tell the file was truncated and written again meanwhile (it then reads it from
   * its start). Undefined before any line.
   *
   * @example
   * ```ts
   * import { FileFollower } from "./file_source.ts";
   * const path = await Deno.makeTempFile();
   * await Deno.writeTextFile(path, '{"a":1}\n');
   * const f = new FileFollower(path);
   * await f.next();
   * console.log(f.tail); // 7b2261223a317d0a
   * f.close();
   * await Deno.remove(path);
   * ```
   */
  get tail(): string | undefined {
    return this.#lineTail === undefined ? undefined : toHex(this.#lineTail);
  }

  /** Up to `n` bytes of the open file from `at` (fewer at its end); the file is left after them. */
  async #readAt(at: number, n: number): Promise<Uint8Array> {
    const f = this.#file!;
    await f.seek(at, Deno.SeekMode.Start);
    const out = new Uint8Array(n);
    let have = 0;
    while (have < n) {
      const k = await f.read(out.subarray(have));
      if (k === null || k === 0) break;
      have += k;
    }
    return out.subarray(0, have);
  }

  #restart(): void {
    this.#replaced = false;
    this.#file?.close();
    this.#file = undefined;
    this.offset = 0;
    this.line = 0;
    this.#pos = 0;
    this.#recent = new Uint8Array(0);
    this.#lineTail = undefined;
    this.#chunk = new Uint8Array(0);
    this.#chunkAt = 0;
  }

  #sleep(): Promise<void> {
    return new Promise((r) => setTimeout(r, this.#pollMs));
  }

  /** The last line of a file that ends without a newline (it has none in the file). */
  #endLastLine(): FileLine[] {
    const chunk = this.#chunk, at = this.#chunkAt;
    this.#chunk = Uint8Array.of(10);
    this.#chunkAt = 0;
    try {
      return this.#split(Infinity, false);
    } finally {
      this.#chunk = chunk;
      this.#chunkAt = at;
    }
  }

  /**
   * Splits up to `maxLines` lines of the last read, from `#chunkAt` (`read` false: `#chunk` is a
   * newline ending the last line, not in the file). The bytes after the last complete line are
   * carried to the next read once the whole read is split.
   */
  #split(maxLines: number, read = true): FileLine[] {
    const chunk = this.#chunk;
    const out: FileLine[] = [];
    let start = this.#chunkAt, lastEnd = -1;
    for (let i = start; i < chunk.length; i++) {
      if (chunk[i] !== 10) continue;
      lastEnd = i;
      const piece = chunk.subarray(start, i);
      const len = this.#carry.length + piece.length;
      const atFileStart = this.offset === 0;
      this.line++;
      this.offset += len + 1;
      if (this.#skipping || len > this.#maxLine) {
        out.push({
          line: this.line,
          offset: this.offset,
          error: lineTooLong(this.#maxLine),
        });
      } else {
        let bytes = piece;
        if (this.#carry.length > 0) {
          bytes = new Uint8Array(len);
          bytes.set(this.#carry, 0);
          bytes.set(piece, this.#carry.length);
        }
        let end = bytes.length;
        if (end > 0 && bytes[end - 1] === 13) end--;
        // a UTF-8 BOM is dropped at the start of the file only
        const from = atFileStart && startsWithBom(bytes, 0, end) ? 3 : 0;
        try {
          out.push({
            line: this.line,
            offset: this.offset,
            text: this.#decoder.decode(bytes.subarray(from, end)),
          });
        } catch {
          out.push({ line: this.line, offset: this.offset, error: "line is not valid UTF-8" });
        }
      }
      this.#carry = new Uint8Array(0);
      this.#skipping = false;
      start = i + 1;
      if (out.length >= maxLines) break;
    }
    this.#chunkAt = start;
    if (lastEnd >= 0) {
      this.#lineTail = read ? lastBytes(this.#chunkBefore, chunk, lastEnd + 1) : undefined;
    }
    if (out.length >= maxLines && start < chunk.length) return out; // the rest at the next call
    this.#chunkAt = chunk.length;
    const rest = chunk.subarray(start);
    if (this.#skipping || this.#carry.length + rest.length > this.#maxLine) {
      // Too long already: keep counting its bytes but not its content.
      this.#skipping = true;
      this.offset += this.#carry.length + rest.length;
      this.#carry = new Uint8Array(0);
    } else if (rest.length > 0) {
      const c = new Uint8Array(this.#carry.length + rest.length);
      c.set(this.#carry, 0);
      c.set(rest, this.#carry.length);
      this.#carry = c;
    }
    return out;
  }

  /** Closes the file. */
  close(): void {
    this.#closed = true;
    this.#file?.close();
    this.#file = undefined;
  }
}

/**
 * Tells a user tailing a file (`--follow`) about the lines refused in it, on the service's log,
 * without flooding it: the first `first` refused lines one by one (the file, the line number and
 * the reason), then at most one log line every `everyMs` with how many more were refused since
 * the last (their line numbers, and the last one's reason), and at {@linkcode RefusedLineLog.end}
 * what was still held back and the total. Why so: the first lines show what is wrong (usually
 * one cause, repeated), and a producer writing nothing but bad lines costs one log line per
 * interval instead of one per line; a bad line long after the last report is shown at once (as a
 * count of 1, with its line number and reason). Refused lines are only reported: the lines
 * around them are learnt as before.
 *
 * @example
 * ```ts
 * import { RefusedLineLog } from "./file_source.ts";
 * let t = 0;
 * const r = new RefusedLineLog("e.ndjson", (m) => console.log(m), { first: 1, everyMs: 10_000, now: () => t });
 * r.refused(2, "invalid JSON"); // e.ndjson: line 2 refused: invalid JSON (...)
 * r.refused(5, "labels missing"); // held back: less than 10 s since the last report
 * t = 10_000;
 * r.tick(); // e.ndjson: 1 more line refused (line 5): line 5: labels missing
 * r.end(); // e.ndjson: 2 lines refused in all (lines 2..5), reported above
 * ```
 */
export class RefusedLineLog {
  readonly #path: string;
  readonly #log: (message: string) => void;
  readonly #first: number;
  readonly #everyMs: number;
  readonly #now: () => number;
  #total = 0;
  #firstLine = 0;
  #lastLine = 0;
  /** Refused lines not reported yet (after the first ones): how many, the first and last. */
  #held = 0;
  #heldFrom = 0;
  #heldLast: { line: number; reason: string } | undefined;
  #reportedAt = 0;

  /**
   * @param path the file, as the user named it
   * @param log where the reports go (the service's log)
   * @param options `first` lines reported one by one (default 10), then one report per
   *   `everyMs` (default 10,000); `now` the clock in milliseconds (default `performance.now`)
   */
  constructor(
    path: string,
    log: (message: string) => void,
    options: { first?: number; everyMs?: number; now?: () => number } = {},
  ) {
    this.#path = path;
    this.#log = log;
    this.#first = options.first ?? 10;
    this.#everyMs = options.everyMs ?? 10_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Lines refused so far. */
  get total(): number {
    return this.#total;
  }

  /** Line `line` of the file was refused for `reason`: reported now, or counted for later. */
  refused(line: number, reason: string): void {
    this.#total++;
    if (this.#total === 1) this.#firstLine = line;
    this.#lastLine = line;
    if (this.#total <= this.#first) {
      const more = this.#total === this.#first
        ? ` (further refused lines are counted: one report every ${this.#everyMs / 1000} s)`
        : "";
      this.#log(`${this.#path}: line ${line} refused: ${reason}${more}`);
      this.#reportedAt = this.#now();
      return;
    }
    if (this.#held === 0) this.#heldFrom = line;
    this.#held++;
    this.#heldLast = { line, reason };
    this.tick();
  }

  /** Reports the refused lines held back, once `everyMs` passed since the last report. */
  tick(): void {
    if (this.#held > 0 && this.#now() - this.#reportedAt >= this.#everyMs) this.#report();
  }

  /** Reports what is still held back, and the total (nothing when no line was refused). */
  end(): void {
    if (this.#held > 0) this.#report();
    if (this.#total === 0) return;
    const lines = this.#total === 1
      ? `line ${this.#firstLine}`
      : `lines ${this.#firstLine}..${this.#lastLine}`;
    this.#log(
      `${this.#path}: ${this.#total} line${
        this.#total === 1 ? "" : "s"
      } refused in all (${lines}), reported above`,
    );
  }

  #report(): void {
    const n = this.#held, last = this.#heldLast!;
    const lines = n === 1 ? `line ${last.line}` : `lines ${this.#heldFrom}..${last.line}`;
    this.#log(
      `${this.#path}: ${n} more line${n === 1 ? "" : "s"} refused (${lines}): ${
        n === 1 ? "" : "the last, "
      }line ${last.line}: ${last.reason}`,
    );
    this.#held = 0;
    this.#heldLast = undefined;
    this.#reportedAt = this.#now();
  }
}
