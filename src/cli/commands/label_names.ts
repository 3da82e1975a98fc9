/**
 * Label names of an XC file for the `tagstream` commands: the file given with `--labels`, or
 * `NAME.labels.txt` beside `NAME.train.txt` / `NAME.test.txt`.
 *
 * @module
 */
import { decodeNameLines } from "../../data/name_lines.ts";
import { Vocabulary, VocabularyError } from "../../data/vocabulary.ts";
import { osReason } from "./path_checks.ts";

/**
 * The names of a label-names file's bytes: one per line (`\r\n` line ends too), a leading UTF-8
 * byte order mark and the newline(s) that end the file dropped. Invalid UTF-8 is a TypeError
 * naming `where` and the line (see {@linkcode decodeNameLines}), an empty name (a blank line
 * before the end) or a repeated one a RangeError naming `where` and the line.
 */
function parseNames(bytes: Uint8Array, where: string): string[] {
  const names = decodeNameLines(bytes, where);
  // the blank lines that end the file are not names
  while (names.length > 0 && names[names.length - 1] === "") names.pop();
  const empty = names.indexOf("");
  if (empty >= 0) {
    throw new RangeError(`${where} line ${empty + 1}: empty label name (one name per line)`);
  }
  // two columns of the data under one name would be learned as one label
  try {
    new Vocabulary(names);
  } catch (e) {
    if (!(e instanceof VocabularyError && e.reason === "duplicate")) throw e;
    throw new RangeError(
      `${where} line ${e.position + 1}: label name ${JSON.stringify(e.entry)} repeats line ${
        e.firstPosition + 1
      }`,
    );
  }
  return names;
}

/**
 * Reads a `--labels` file: one name per line (`\r` line ends and the newlines that end the file
 * are dropped), exactly `numLabels` of them. A file that cannot be read or is not UTF-8, an empty
 * name (a blank line before the end), a repeated name or a wrong count is an error naming
 * `--labels`, the file (and the line).
 *
 * @throws {TypeError} when the file cannot be read, or is not UTF-8
 * @throws {RangeError} for an empty or repeated name, or when the file does not hold `numLabels`
 *   names
 *
 * @example
 * ```ts
 * import { readLabelsFlag } from "./label_names.ts";
 * const file = await Deno.makeTempFile();
 * await Deno.writeTextFile(file, "sports\r\nnews\n\n");
 * console.log(await readLabelsFlag(file, 2)); // [ "sports", "news" ]
 * await readLabelsFlag(file, 3).catch((e) => console.log(e.message)); // --labels ... has 2 names, the data has 3 labels
 * await Deno.writeTextFile(file, "sports\n\nnews\n");
 * await readLabelsFlag(file, 3).catch((e) => console.log(e.message)); // --labels ... line 2: empty label name (one name per line)
 * await Deno.remove(file);
 * ```
 */
export async function readLabelsFlag(flag: string, numLabels: number): Promise<string[]> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(flag);
  } catch (e) {
    throw new TypeError(
      e instanceof Deno.errors.NotFound
        ? `--labels ${flag}: no such file`
        : `--labels ${flag}: cannot read it: ${(e as Error).message}`,
    );
  }
  const names = parseNames(bytes, `--labels ${flag}`);
  if (names.length !== numLabels) {
    throw new RangeError(
      `--labels ${flag} has ${names.length} names, the data has ${numLabels} labels`,
    );
  }
  return names;
}

/**
 * The names in `NAME.labels.txt` beside an XC file `DIR/NAME.train.txt` (or `.test.txt`) when
 * that file exists, else `undefined`. A beside file that does not fit (a wrong count, an empty
 * or repeated name, unreadable, not UTF-8) is not used: `warn` (default: a `[tagstream]` line on
 * stderr) says why and the label indices are used, as without the file. (A warning, not an
 * error: the file was not named on the command line, and runs that worked with the indices keep
 * working.)
 *
 * @example
 * ```ts
 * import { labelsBeside } from "./label_names.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/toy.labels.txt`, "a\nb\n");
 * console.log(await labelsBeside(`${dir}/toy.test.txt`, 2)); // [ "a", "b" ]
 * console.log(await labelsBeside(`${dir}/toy.test.txt`, 3, console.log)); // (a line saying why) undefined
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function labelsBeside(
  path: string,
  numLabels: number,
  warn: (message: string) => void = (m) => console.error(`[tagstream] ${m}`),
): Promise<string[] | undefined> {
  const m = /^(.*\/)?([^/]+)\.(train|test)\.txt$/.exec(path);
  if (!m) return undefined;
  const file = `${m[1] ?? ""}${m[2]}.labels.txt`;
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(file);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      warn(`not using ${file} for label names (${(e as Error).message}): labels are indices`);
    }
    return undefined;
  }
  try {
    const names = parseNames(bytes, file);
    if (names.length === numLabels) return names;
    warn(
      `not using ${file} for label names: it has ${names.length} names, ${path} has ` +
        `${numLabels} labels; labels are indices (give names with --labels FILE)`,
    );
  } catch (e) {
    warn(`not using ${file} for label names: ${(e as Error).message}; labels are indices`);
  }
  return undefined;
}

/**
 * The names in a dataset's own label-names file `file` (`DATA_DIR/NAME.labels.txt`, as prune
 * reads it), or `undefined` when there is no such file. Any other failure is an error naming the
 * file: one that cannot be read (permissions, a directory at its path), text that is not UTF-8,
 * an empty or repeated name. (Unlike {@linkcode labelsBeside}: the file belongs to the dataset
 * named on the command line, and the names go into the model file.)
 *
 * @throws {TypeError} when the file exists but cannot be read, or is not UTF-8
 * @throws {RangeError} for an empty or repeated name
 *
 * @example
 * ```ts
 * import { readDatasetLabels } from "./label_names.ts";
 * const dir = await Deno.makeTempDir();
 * console.log(await readDatasetLabels(`${dir}/toy.labels.txt`)); // undefined
 * await Deno.writeTextFile(`${dir}/toy.labels.txt`, "sports\nnews\n");
 * console.log(await readDatasetLabels(`${dir}/toy.labels.txt`)); // [ "sports", "news" ]
 * await Deno.writeTextFile(`${dir}/toy.labels.txt`, "sports\nsports\n");
 * await readDatasetLabels(`${dir}/toy.labels.txt`).catch((e) => console.log(e.message)); // .../toy.labels.txt line 2: label name "sports" repeats line 1
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readDatasetLabels(file: string): Promise<string[] | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw new TypeError(`Cannot read label names ${file}: ${osReason(e)}`);
  }
  return parseNames(bytes, file);
}
