/**
 * Reads an NDJSON file line by line from a byte offset, optionally following it like `tail -F`:
 * waits for appended lines, starts again from the beginning when the file is truncated or
 * replaced (a new inode at the path: after the rest of the file it had open, whose last line
 * counts even without a newline). The byte offset after each complete line is reported so
 * the learner can checkpoint it and resume there.
 *
 * @module
 */
import { lineTooLong } from "./event_limits.ts";

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
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });
  #file: Deno.FsFile | undefined;
  #ino: number | null = null;
  /** The inode the start offset belongs to (a resumed position), checked at the first open. */
  #startIno: number | null | undefined;
  #carry = new Uint8Array(0);
  #skipping = false;
  /** The path names another file now: the open one is read to its end, then the new one. */
  #replaced = false;
  #closed = false;

  constructor(
    path: string,
    start: { offset: number; line: number; ino?: number | null } = { offset: 0, line: 0 },
    options: FollowOptions = {},
  ) {
    this.path = path;
    this.offset = start.offset;
    this.line = start.line;
    this.#startIno = start.ino;
    this.#follow = options.follow ?? false;
    this.#pollMs = options.pollMs ?? 100;
    this.#maxLine = options.maxLineBytes ?? 65536;
    this.#log = options.log ?? (() => {});
  }

  /**
   * The next complete lines. Returns `[]` after waiting `pollMs` when nothing new arrived
   * (follow mode, or while the file does not exist yet), and `null` at the end of the file
   * when not following (a last line without newline is then returned too).
   */
  async next(): Promise<FileLine[] | null> {
    if (this.#closed) return null;
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
      await this.#file.seek(this.offset, Deno.SeekMode.Start);
      this.#carry = new Uint8Array(0);
      this.#skipping = false;
    }
    const n = await this.#file.read(this.#buf);
    if (n === null || n === 0) return await this.#atEnd();
    return this.#split(this.#buf.subarray(0, n));
  }

  async #atEnd(): Promise<FileLine[] | null> {
    if (!this.#follow) {
      if (this.#carry.length === 0 && !this.#skipping) return null;
      // The file ends without a newline: its last line is complete.
      const out = this.#split(Uint8Array.of(10));
      return out.length > 0 ? out : null;
    }
    if (this.#replaced) {
      // the old file read to its end once more: its last line is complete even without a
      // newline (as at the end of a file read once), then the new file
      const out = this.#carry.length > 0 || this.#skipping ? this.#split(Uint8Array.of(10)) : [];
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

  #restart(): void {
    this.#replaced = false;
    this.#file?.close();
    this.#file = undefined;
    this.offset = 0;
    this.line = 0;
  }

  #sleep(): Promise<void> {
    return new Promise((r) => setTimeout(r, this.#pollMs));
  }

  #split(chunk: Uint8Array): FileLine[] {
    const out: FileLine[] = [];
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] !== 10) continue;
      const piece = chunk.subarray(start, i);
      const len = this.#carry.length + piece.length;
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
        try {
          out.push({
            line: this.line,
            offset: this.offset,
            text: this.#decoder.decode(bytes.subarray(0, end)),
          });
        } catch {
          out.push({ line: this.line, offset: this.offset, error: "line is not valid UTF-8" });
        }
      }
      this.#carry = new Uint8Array(0);
      this.#skipping = false;
      start = i + 1;
    }
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
