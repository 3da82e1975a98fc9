/**
 * The checks of the paths a command is given, before any work: an output file that may be
 * replaced (only a file of the same kind), an input file, a followed event file, a state
 * directory; and OS errors worded for messages that name the file themselves.
 *
 * @module
 */
import { isGzipFile } from "../../data/file_lines.ts";

/** The directory part of `path` (`.` for a bare name). */
function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  const i = trimmed.lastIndexOf("/");
  return i < 0 ? "." : i === 0 ? "/" : trimmed.slice(0, i);
}

/**
 * `Deno.stat(path)`, or undefined when nothing is there (other errors are thrown as they are).
 *
 * @example
 * ```ts
 * import { statOrUndefined } from "./path_checks.ts";
 * console.log(await statOrUndefined("/no/such/path")); // undefined
 * ```
 */
export async function statOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/**
 * What an existing file at an output path must already be for {@linkcode checkOutFile} to
 * replace it: a Tagstream model file (`"model"`) or an SVG image (`"svg"`).
 *
 * @example
 * ```ts
 * import type { OutKind } from "./path_checks.ts";
 * const kind: OutKind = "model";
 * console.log(kind); // "model"
 * ```
 */
export type OutKind = "model" | "svg";

/** `"magic": "TAGSTREAM"`, the first entry of every model file (two msgpack fixstrs). */
const MODEL_MAGIC = Uint8Array.of(
  0xa5,
  ...new TextEncoder().encode("magic"),
  0xa9,
  ...new TextEncoder().encode("TAGSTREAM"),
);

/** Whether `head` (the first bytes of a file) is the start of a file of `kind`. */
function looksLike(head: Uint8Array, kind: OutKind): boolean {
  if (kind === "svg") {
    const t = new TextDecoder().decode(head).replace(/^\uFEFF/, "").trimStart();
    return t.startsWith("<svg") || t.startsWith("<?xml");
  }
  // after the map tag: 1, 3 or 5 bytes (fixmap, map16, map32)
  return [1, 3, 5].some((at) => MODEL_MAGIC.every((b, i) => head[at + i] === b));
}

/**
 * An OS error's message without its `(os error N)` and the call after it, for messages that name
 * the file themselves.
 *
 * @example
 * ```ts
 * import { osReason } from "./path_checks.ts";
 * const e = new Error("Is a directory (os error 21): read '/tmp'");
 * console.log(osReason(e)); // "Is a directory"
 * ```
 */
export function osReason(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s*\(os error \d+\).*$/s, "");
}

/** The first `n` bytes of the file `path`. */
async function readHead(path: string, n: number): Promise<Uint8Array> {
  const f = await Deno.open(path, { read: true });
  try {
    const buf = new Uint8Array(n);
    let got = 0;
    while (got < n) {
      const r = await f.read(buf.subarray(got));
      if (r === null) break;
      got += r;
    }
    return buf.subarray(0, got);
  } finally {
    f.close();
  }
}

/** Whether `a` and `b` (both existing) are the same file (a hard or symbolic link included). */
async function sameFile(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([statOrUndefined(a), statOrUndefined(b)]);
  if (sa === undefined || sb === undefined) return false;
  if (sa.ino !== null && sb.ino !== null && sa.dev === sb.dev) return sa.ino === sb.ino;
  return await Deno.realPath(a) === await Deno.realPath(b);
}

/**
 * Checks, before any work, that `path` (the value of `--FLAG`) can be written as a file, so that
 * no work is lost to a write that fails at the end: not empty, not `-` (the summary goes to
 * stdout), not a directory or a device, in a directory that exists and where a file can be
 * created (tried, then removed). With `inputs`, it must not be one of the files the run reads
 * (`what` names each: `--out` the same as `--data` would destroy the data); with `kind`, an existing file is only
 * replaced when it already is a file of that kind (a model file, an SVG image) or empty: a data
 * file given as `--out` by mistake is kept. With `kind: "svg"` the path must end in `.svg` (no
 * SVG text in a `.png`). Throws a TypeError naming the flag and the path.
 *
 * @example
 * ```ts
 * import { checkOutFile } from "./path_checks.ts";
 * const dir = await Deno.makeTempDir();
 * await checkOutFile(`${dir}/model.tsm`); // fine
 * await checkOutFile(dir).catch((e) => console.log(e.message)); // --out /tmp/... is a directory: give a file path
 * await checkOutFile(`${dir}/nodir/m.tsm`).catch((e) => console.log(e.message)); // --out /tmp/.../nodir/m.tsm: directory ... does not exist
 * await Deno.writeTextFile(`${dir}/train.txt`, "1 1 1\n0 0:1\n");
 * const data = { what: "--data train.txt", path: `${dir}/train.txt` };
 * await checkOutFile(`${dir}/train.txt`, "out", { inputs: [data] })
 *   .catch((e) => console.log(e.message)); // --out /tmp/.../train.txt is the same file as --data train.txt: ...
 * await checkOutFile(`${dir}/train.txt`, "out", { kind: "model" })
 *   .catch((e) => console.log(e.message)); // --out /tmp/.../train.txt exists and is not a Tagstream model file: ...
 * await checkOutFile(`${dir}/curve.png`, "plot", { kind: "svg" })
 *   .catch((e) => console.log(e.message)); // --plot /tmp/.../curve.png: the plot is written as SVG: give a file name ending in .svg (e.g. /tmp/.../curve.svg)
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkOutFile(
  path: string,
  flag = "out",
  options: { inputs?: readonly { what: string; path: string }[]; kind?: OutKind } = {},
): Promise<void> {
  if (path === "") throw new TypeError(`--${flag} is empty: give the file to write`);
  if (path === "-") {
    throw new TypeError(
      `--${flag} -: the file cannot be written to stdout (the summary goes there): give a file path`,
    );
  }
  // a path under a file (`out/m.tsm`, `out` a file) is reported with its directory below
  const info = await statOrUndefined(path).catch((e) => {
    if (e instanceof Deno.errors.NotADirectory) return undefined;
    throw new TypeError(`--${flag} ${path}: cannot be written (${osReason(e)})`);
  });
  if (info?.isDirectory) {
    throw new TypeError(`--${flag} ${path} is a directory: give a file path`);
  }
  if (info !== undefined && !info.isFile) {
    throw new TypeError(
      `--${flag} ${path} is not a regular file (a device, pipe or socket): give a file path`,
    );
  }
  const parent = parentOf(path);
  const dir = await statOrUndefined(parent).catch((e) => {
    throw new TypeError(`--${flag} ${path}: directory ${parent} cannot be used (${osReason(e)})`);
  });
  if (dir === undefined) {
    throw new TypeError(`--${flag} ${path}: directory ${parent} does not exist`);
  }
  if (!dir.isDirectory) throw new TypeError(`--${flag} ${path}: ${parent} is not a directory`);
  if (info !== undefined) {
    for (const input of options.inputs ?? []) {
      if (input.path === "-" || /^(https?|file):\/\//.test(input.path)) continue;
      if (await sameFile(path, input.path)) {
        throw new TypeError(
          `--${flag} ${path} is the same file as ${input.what}: writing it would destroy the ` +
            `input; give another path`,
        );
      }
    }
    if (options.kind !== undefined && info.size > 0) {
      let head: Uint8Array;
      try {
        head = await readHead(path, 64);
      } catch (e) {
        throw new TypeError(
          `--${flag} ${path}: cannot read the file it would replace (${osReason(e)})`,
        );
      }
      if (!looksLike(head, options.kind)) {
        const what = options.kind === "model" ? "a Tagstream model file" : "an SVG image";
        throw new TypeError(
          `--${flag} ${path} exists and is not ${what}: not replacing it (remove it first, or ` +
            `give another path)`,
        );
      }
    }
  }
  if (options.kind === "svg" && !/\.svg$/i.test(path)) {
    // (an image viewer given x.png would find SVG text in it)
    throw new TypeError(
      `--${flag} ${path}: the plot is written as SVG: give a file name ending in .svg (e.g. ` +
        `${path.replace(/(\.[^./]*)?$/, ".svg")})`,
    );
  }
  // a file can be created there: tried now rather than after the work
  const probe = `${parent}/.tagstream-probe-${crypto.randomUUID()}`;
  try {
    (await Deno.open(probe, { write: true, createNew: true })).close();
  } catch (e) {
    throw new TypeError(`--${flag} ${path}: cannot create a file in ${parent} (${osReason(e)})`);
  }
  await Deno.remove(probe).catch(() => {});
}

/**
 * Checks, before any work, that `path` (the value of `--FLAG`) is a file to read: not empty,
 * not a directory, and existing unless `mayBeMissing` (a followed file may appear later). `-`
 * (stdin) and URLs are not checked. Throws a TypeError naming the flag and the path; resolves
 * with whether the file exists.
 *
 * @example
 * ```ts
 * import { checkInputFile } from "./path_checks.ts";
 * const dir = await Deno.makeTempDir();
 * await checkInputFile(dir, "data").catch((e) => console.log(e.message)); // --data /tmp/... is a directory, not a file
 * console.log(await checkInputFile(`${dir}/later.ndjson`, "follow", true)); // false
 * await Deno.remove(dir);
 * ```
 */
export async function checkInputFile(
  path: string,
  flag: string,
  mayBeMissing = false,
): Promise<boolean> {
  if (path === "") throw new TypeError(`--${flag} is empty: give a file`);
  if (path === "-" || /^(https?|file):\/\//.test(path)) return true;
  let info: Deno.FileInfo | undefined;
  try {
    info = await statOrUndefined(path);
  } catch (e) {
    throw new TypeError(`--${flag} ${path}: ${osReason(e)}`);
  }
  if (info === undefined) {
    if (mayBeMissing) return false;
    throw new TypeError(`--${flag} ${path}: no such file`);
  }
  if (info.isDirectory) throw new TypeError(`--${flag} ${path} is a directory, not a file`);
  return true;
}

/**
 * Checks, before any work, the file of `--follow`: as {@linkcode checkInputFile} (it may not exist
 * yet), and not gzip-compressed (a gzip file is read once, whole; followed, the service would
 * report it and learn nothing from it for ever). Resolves with whether the file exists.
 *
 * @example
 * ```ts
 * import { checkFollowFile } from "./path_checks.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeFile(`${dir}/e.ndjson.gz`, Uint8Array.of(0x1f, 0x8b, 8, 0));
 * await checkFollowFile(`${dir}/e.ndjson.gz`).catch((e) => console.log(e.message.slice(-44))); // a followed file must be plain (uncompressed)
 * console.log(await checkFollowFile(`${dir}/later.ndjson`)); // false
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkFollowFile(path: string): Promise<boolean> {
  const exists = await checkInputFile(path, "follow", true);
  if (exists && path !== "-" && !/^(https?|file):\/\//.test(path) && await isGzipFile(path)) {
    throw new TypeError(
      `--follow ${path} is gzip-compressed: it can be read once (train --data ${path}), not ` +
        "followed; a followed file must be plain (uncompressed)",
    );
  }
  return exists;
}

/**
 * Refuses, before any work, an NDJSON event file (`--data` or `--follow` of `train`, `--follow`
 * of `serve`) that is stdin (`-`), a URL or, when it exists, not a regular file (a pipe such as
 * `<(zcat …)`, a device): the learning service reads events by position and keeps an offset into
 * the file to resume from (and a pipe would block it when it stops). A TypeError naming the flag.
 *
 * @example
 * ```ts
 * import { checkEventFile } from "./path_checks.ts";
 * await checkEventFile("-", "follow").catch((e) => console.log(e.message)); // --follow -: NDJSON events are read from a regular file ...
 * await checkEventFile("/dev/null", "data").catch((e) => console.log(e.message)); // --data /dev/null is not a regular file ...
 * await checkEventFile("/no/such/events.ndjson", "follow"); // fine: a followed file may appear later
 * ```
 */
export async function checkEventFile(path: string, flag: string): Promise<void> {
  const why = "NDJSON events are read from a regular file (the state keeps an offset into it)";
  const fix = "save the events to a file and give its path";
  if (path === "-" || /^(https?|file):\/\//.test(path)) {
    throw new TypeError(`--${flag} ${path}: ${why}; ${fix}`);
  }
  const info = await statOrUndefined(path).catch(() => undefined);
  if (info !== undefined && !info.isFile && !info.isDirectory) {
    throw new TypeError(`--${flag} ${path} is not a regular file (a pipe?): ${why}; ${fix}`);
  }
}

/**
 * Checks, before any work, that `--state-dir` is a directory or does not exist yet (it is then
 * created), and not `-` (no stream is a state directory). Throws a TypeError naming the flag and
 * the path.
 *
 * @example
 * ```ts
 * import { checkStateDir } from "./path_checks.ts";
 * const file = await Deno.makeTempFile();
 * await checkStateDir(file).catch((e) => console.log(e.message)); // --state-dir /tmp/... is not a directory
 * await Deno.remove(file);
 * ```
 */
export async function checkStateDir(path: string): Promise<void> {
  if (path === "") throw new TypeError("--state-dir is empty: give a directory");
  if (path === "-") {
    // no stream: the command would create (or read) a directory named '-' here
    throw new TypeError(
      "--state-dir - is not stdin: give the state directory's path (./- for a directory " +
        "named '-')",
    );
  }
  let info: Deno.FileInfo | undefined;
  try {
    info = await statOrUndefined(path);
  } catch (e) {
    throw new TypeError(`--state-dir ${path}: ${osReason(e)}`);
  }
  if (info !== undefined && !info.isDirectory) {
    throw new TypeError(`--state-dir ${path} is not a directory`);
  }
}
