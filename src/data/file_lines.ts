/**
 * Reading the lines of a whole file once, plain or gzip (detected by its content, the magic
 * bytes `1f 8b`, not by its name), with the byte offset after each line so a reader can resume
 * there. For gzip input the offsets count decompressed bytes. This is the gzip-aware
 * counterpart of the service's file follower for one pass over an NDJSON event file.
 *
 * @module
 */
import { isGzip } from "./gzip.ts";
import { openSource } from "./sources.ts";
import { LineSplitter } from "./line_splitter.ts";
import { checkOptionKeys, isPlainObject, numberOption, shown } from "./option_check.ts";
import { startsWithBom } from "./bom.ts";
import { FINGERPRINT, fromHex, lastBytes, sameBytes, toHex } from "./fingerprint.ts";

/**
 * True when the file at `path` starts with the gzip magic bytes `1f 8b`; false when it does not
 * or does not exist (yet). Other failures (permissions...) throw.
 *
 * @example
 * ```ts
 * import { isGzipFile } from "./file_lines.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeFile(path, Uint8Array.of(0x1f, 0x8b, 8, 0));
 * console.log(await isGzipFile(path), await isGzipFile(path + ".missing")); // true false
 * await Deno.remove(path);
 * ```
 */
export async function isGzipFile(path: string): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
  try {
    const head = new Uint8Array(2);
    let have = 0;
    while (have < 2) {
      const n = await file.read(head.subarray(have));
      if (n === null || n === 0) break;
      have += n;
    }
    return isGzip(head.subarray(0, have));
  } catch (e) {
    if (e instanceof Deno.errors.IsADirectory) return false;
    throw e;
  } finally {
    file.close();
  }
}

/**
 * One line of a {@linkcode FileLines} read: its text, or why it cannot be used.
 *
 * @example
 * ```ts
 * import type { FileLinesLine } from "./file_lines.ts";
 * const l: FileLinesLine = { line: 2, offset: 14, text: '{"b":2}' };
 * console.log(l.line); // 2
 * ```
 */
export interface FileLinesLine {
  /** 1-based line number in the (decompressed) file. */
  line: number;
  /** Offset just after this line, in (decompressed) bytes: where reading resumes. */
  offset: number;
  /** The line without its newline (and `\r`), when it is valid UTF-8 and not too long. */
  text?: string;
  /** Why the line was skipped (too long, not UTF-8). */
  error?: string;
}

/**
 * Options of {@linkcode FileLines}.
 *
 * @example
 * ```ts
 * import type { FileLinesOptions } from "./file_lines.ts";
 * const o: FileLinesOptions = { maxLineBytes: 1 << 16 };
 * console.log(o.maxLineBytes); // 65536
 * ```
 */
export interface FileLinesOptions {
  /** Longest line kept, in bytes (default 65536); longer lines are reported, not kept. */
  maxLineBytes?: number;
  /** The error of a too-long line (default `line is longer than N bytes`). */
  tooLong?: (maxLineBytes: number) => string;
  /** Told why a resume reads the file from its start (it was replaced or rewritten). */
  log?: (message: string) => void;
}

/**
 * Reads a file's lines once, decompressing gzip (detected by content). The same shape as the
 * service's file follower without follow mode: {@linkcode FileLines.next} returns the next
 * complete lines (all those of a decompressed chunk, or at most `maxLines` of them: the others
 * at the next calls, the position exact after each), `[]` when a chunk completed none, `null` at
 * the end of the file (a last line without newline is returned before). A truncated or corrupt gzip file makes `next` throw a
 * `TypeError` naming the file. A resume (`start` with an offset) checks that it is in the same
 * file: a `start.ino` other than the file's, a `start.tail` (its {@linkcode FileLines.tail}) that
 * the bytes before the offset do not match, or a file shorter than the offset, and the file is
 * read from its start instead (`log` is told why).
 *
 * @example
 * ```ts
 * import { FileLines } from "./file_lines.ts";
 * const path = await Deno.makeTempFile({ suffix: ".ndjson.gz" });
 * const gz = new Blob(['{"a":1}\n{"b":2}\n']).stream().pipeThrough(new CompressionStream("gzip"));
 * await Deno.writeFile(path, gz);
 * const f = new FileLines(path, { offset: 8, line: 1 });
 * const got = [];
 * for (let l = await f.next(); l !== null; l = await f.next()) got.push(...l);
 * console.log(got); // [ { line: 2, offset: 16, text: '{"b":2}' } ]
 * f.close();
 * await Deno.remove(path);
 * ```
 */
export class FileLines {
  /** The file. */
  readonly path: string;
  /** Offset after the last complete line returned (decompressed bytes). */
  offset: number;
  /** Number of the last line returned. */
  line: number;
  readonly #maxLine: number;
  readonly #tooLong: (maxLineBytes: number) => string;
  /** Keeps a BOM (one at the file's start is dropped by `#onLine`; elsewhere it is data). */
  readonly #decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #toSkip: number;
  #splitter: LineSplitter;
  #out: FileLinesLine[] = [];
  #ended = false;
  #closed = false;
  /**
   * The last bytes up to the end of the last complete line (see `tail`): `#tail[0, #tailLen)`,
   * none when `#tailLen` is -1. The lines of a chunk are added to it once the chunk is split
   * (`#flushTail`), not line by line: `#pending` and `[#pendingStart, #pendingEnd)` are the
   * bytes of the lines since, each line's newline included but the last one's.
   */
  readonly #tail = new Uint8Array(FINGERPRINT);
  #tailLen = -1;
  #pending: Uint8Array | undefined;
  #pendingStart = 0;
  #pendingEnd = 0;
  /** The part of a chunk being split: a line in another buffer is in the splitter's carry. */
  #chunk: Uint8Array | undefined;
  /**
   * The last chunk read, `[#restAt, end)` not split yet (its lines beyond a call's `maxLines`,
   * handed out at the next calls); undefined once it is all split.
   */
  #rest: Uint8Array | undefined;
  #restAt = 0;
  /** The resume's checks, done at the first read: its inode and the bytes before its offset. */
  #startIno: number | null | undefined;
  #startTail: Uint8Array | undefined;
  /** The last bytes skipped on the way to the resume's offset. */
  #skipped: Uint8Array = new Uint8Array(0);
  #ino: number | null = null;
  readonly #log: (message: string) => void;

  /**
   * @param path the file (plain or gzip)
   * @param start where to resume: byte offset (decompressed) and the number of the line before
   * @param options line-length limit and its message
   * @throws {TypeError} for a `start` that is not an object, an unknown option or a value of the
   *   wrong type
   * @throws {RangeError} for an offset or line that is not a non-negative safe integer (a
   *   negative or NaN offset read from the start and reported wrong offsets), a limit that is not
   *   an integer >= 1
   */
  constructor(
    path: string,
    start: { offset: number; line: number; ino?: number | null; tail?: string } = {
      offset: 0,
      line: 0,
    },
    options: FileLinesOptions = {},
  ) {
    const where = "FileLines";
    if (!isPlainObject(start)) {
      throw new TypeError(`${where}: start must be {offset, line}, got ${shown(start)}`);
    }
    const safe = Number.MAX_SAFE_INTEGER;
    const offset = numberOption(where, "start.offset", start.offset, 0, 0, safe, true);
    const line = numberOption(where, "start.line", start.line, 0, 0, safe, true);
    checkOptionKeys(where, options, ["maxLineBytes", "tooLong", "log"]);
    const maxLine = numberOption(
      where,
      "maxLineBytes",
      options.maxLineBytes,
      65536,
      1,
      safe,
      true,
    );
    if (options.tooLong !== undefined && typeof options.tooLong !== "function") {
      throw new TypeError(
        `${where}: option tooLong must be a function, got ${shown(options.tooLong)}`,
      );
    }
    this.path = path;
    this.offset = offset;
    this.line = line;
    this.#toSkip = offset;
    this.#maxLine = maxLine;
    this.#tooLong = options.tooLong ?? ((n) => `line is longer than ${n} bytes`);
    this.#log = options.log ?? (() => {});
    this.#startIno = start.ino;
    this.#startTail = offset > 0 ? fromHex(start.tail) : undefined;
    this.#splitter = new LineSplitter((buf, s, e) => this.#onLine(buf, s, e), {
      maxLineBytes: this.#maxLine,
      onTooLong: (_lineNo, length) => {
        this.offset += length + 1;
        // its bytes are not kept: the tail starts again after it
        this.#pending = undefined;
        this.#tailLen = 0;
        this.#out.push({
          line: ++this.line,
          offset: this.offset,
          error: this.#tooLong(this.#maxLine),
        });
      },
    });
  }

  #onLine(buf: Uint8Array, s: number, e: number): void {
    const atFileStart = this.offset === 0;
    // the line and its newline are the last bytes before the new offset: added to the tail with
    // the lines right before it in the same buffer
    if (buf !== this.#pending || s !== this.#pendingEnd + 1) {
      this.#flushTail();
      this.#pending = buf;
      this.#pendingStart = s;
    }
    this.#pendingEnd = e;
    // a line the splitter assembled in its carry buffer: copied now, as the splitter writes the
    // next partial line over it before the chunk's end
    if (buf !== this.#chunk) this.#flushTail();
    this.offset += e - s + 1;
    const line = ++this.line;
    if (e > s && buf[e - 1] === 13) e--;
    // a UTF-8 BOM is dropped at the start of the file only
    if (atFileStart && startsWithBom(buf, s, e)) s += 3;
    try {
      this.#out.push({ line, offset: this.offset, text: this.#decoder.decode(buf.subarray(s, e)) });
    } catch {
      this.#out.push({ line, offset: this.offset, error: "line is not valid UTF-8" });
    }
  }

  /** Adds the pending lines' last bytes (and the last one's newline) to the tail. */
  #flushTail(): void {
    const buf = this.#pending;
    if (buf === undefined) return;
    this.#pending = undefined;
    const t = this.#tail, e = this.#pendingEnd;
    const from = Math.max(this.#pendingStart, e - (FINGERPRINT - 1)), m = e - from + 1;
    const had = Math.max(this.#tailLen, 0), keep = Math.min(had, FINGERPRINT - m);
    t.copyWithin(0, had - keep, had);
    t.set(buf.subarray(from, e), keep);
    t[keep + m - 1] = 10;
    this.#tailLen = keep + m;
  }

  /**
   * The next complete lines; `[]` when a chunk completed none; `null` at the end. The offset,
   * line and tail are those of the last line returned.
   *
   * @param maxLines at most this many lines (default: all those of a decompressed chunk); the
   *   others of the same chunk come at the next calls, before anything more is read
   * @throws {RangeError} for a `maxLines` that is not an integer >= 1 (nor Infinity)
   * @throws {TypeError} for a truncated or corrupt gzip file (naming it)
   *
   * @example
   * ```ts
   * import { FileLines } from "./file_lines.ts";
   * const path = await Deno.makeTempFile();
   * await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n{"c":3}\n');
   * const f = new FileLines(path);
   * console.log((await f.next(2))!.map((l) => l.line), f.offset); // [ 1, 2 ] 16
   * console.log((await f.next(2))!.map((l) => l.line), f.offset); // [ 3 ] 24
   * f.close();
   * await Deno.remove(path);
   * ```
   */
  async next(maxLines: number = Infinity): Promise<FileLinesLine[] | null> {
    if (!(maxLines >= 1 && (Number.isInteger(maxLines) || maxLines === Infinity))) {
      throw new RangeError(
        `FileLines.next: maxLines must be an integer >= 1 (or Infinity), got ${shown(maxLines)}`,
      );
    }
    if (this.#closed || this.#ended) return null;
    // lines of the last chunk not handed out yet: before anything more is read
    if (this.#rest !== undefined) return this.#split(maxLines);
    if (this.#reader === undefined) {
      this.#ino = (await Deno.stat(this.path)).ino;
      const was = this.#startIno;
      this.#startIno = undefined;
      if (was !== undefined && was !== null && this.#ino !== null && was !== this.#ino) {
        if (this.offset > 0) return this.#restart("was replaced since its position was saved");
      }
      this.#reader = (await openSource(this.path, { name: this.path })).stream.getReader();
    }
    const r = await this.#reader.read();
    if (r.done && this.#toSkip > 0) return this.#restart("is shorter than its saved position");
    if (r.done) {
      this.#ended = true;
      const partial = this.#splitter.hasPartialLine;
      this.#splitter.end();
      if (partial && this.#out.length > 0) {
        // the last line had no newline: it ends at the end of the data
        const last = this.#out[this.#out.length - 1];
        last.offset--;
        this.offset--;
        this.#pending = undefined;
        this.#tailLen = -1; // its newline is not in the file
      }
      this.#flushTail();
      return this.#take() ?? null;
    }
    let chunk = r.value;
    if (this.#toSkip > 0) {
      const n = Math.min(this.#toSkip, chunk.length);
      this.#toSkip -= n;
      const saved = this.#startTail;
      if (saved !== undefined) this.#skipped = lastBytes(this.#skipped, chunk, n);
      chunk = chunk.subarray(n);
      if (this.#toSkip === 0 && saved !== undefined) {
        this.#startTail = undefined;
        const before = this.#skipped.subarray(Math.max(0, this.#skipped.length - saved.length));
        if (!sameBytes(before, saved)) {
          return this.#restart("was rewritten since its position was saved");
        }
        this.#tail.set(saved);
        this.#tailLen = saved.length;
      }
    }
    if (chunk.length === 0) return [];
    this.#rest = chunk;
    this.#restAt = 0;
    return this.#split(maxLines);
  }

  /**
   * Splits the lines of `#rest` from `#restAt`, up to `maxLines` of them: the bytes up to the
   * end of the last one go to the splitter (the rest stays for the next call, unless it ends no
   * line: then it goes to the splitter's carry at once).
   */
  #split(maxLines: number): FileLinesLine[] {
    const chunk = this.#rest!, from = this.#restAt;
    let end = chunk.length;
    if (maxLines !== Infinity) {
      // each newline ends one line (a too-long one, one begun in an earlier chunk included)
      let e = from - 1, k = 0;
      while (k < maxLines && (e = chunk.indexOf(10, e + 1)) >= 0) k++;
      if (k === maxLines && chunk.indexOf(10, e + 1) >= 0) end = e + 1;
    }
    const part = from === 0 && end === chunk.length ? chunk : chunk.subarray(from, end);
    if (end === chunk.length) this.#rest = undefined;
    else this.#restAt = end;
    this.#chunk = part;
    this.#splitter.push(part);
    this.#chunk = undefined;
    this.#flushTail();
    return this.#take() ?? [];
  }

  /** Reads the file again from its start, telling `log` why (`[]`: nothing read yet). */
  #restart(why: string): FileLinesLine[] {
    this.#log(`${this.path} ${why}: reading it from its start`);
    this.#reader?.cancel().catch(() => {});
    this.#reader = undefined;
    this.offset = 0;
    this.line = 0;
    this.#toSkip = 0;
    this.#startIno = undefined;
    this.#startTail = undefined;
    this.#skipped = new Uint8Array(0);
    this.#pending = undefined;
    this.#tailLen = -1;
    this.#rest = undefined;
    return [];
  }

  /**
   * The inode of the file (null before the first read, or where the platform has none): saved
   * with the position, so that a resume can tell the file was replaced meanwhile.
   */
  get ino(): number | null {
    return this.#ino;
  }

  /**
   * The last bytes (up to 64, hex; decompressed for gzip) before the offset of the last line
   * returned, where there is one in the file: saved with the position, so that a resume can tell
   * the file changed meanwhile. Undefined before any line, and after a last line without newline.
   *
   * @example
   * ```ts
   * import { FileLines } from "./file_lines.ts";
   * const path = await Deno.makeTempFile();
   * await Deno.writeTextFile(path, '{"a":1}\n{"b":2}\n');
   * const f = new FileLines(path);
   * await f.next();
   * console.log(f.tail); // 7b2261223a317d0a7b2262223a327d0a
   * f.close();
   * await Deno.remove(path);
   * ```
   */
  get tail(): string | undefined {
    this.#flushTail();
    return this.#tailLen < 0 ? undefined : toHex(this.#tail.subarray(0, this.#tailLen));
  }

  #take(): FileLinesLine[] | undefined {
    if (this.#out.length === 0) return undefined;
    const out = this.#out;
    this.#out = [];
    return out;
  }

  /** Stops reading and releases the file. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#reader?.cancel().catch(() => {});
  }
}
