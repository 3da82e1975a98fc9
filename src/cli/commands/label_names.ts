/**
 * Label names of an XC file for the `tagstream` commands: the file given with `--labels`, or
 * `NAME.labels.txt` beside `NAME.train.txt` / `NAME.test.txt`.
 *
 * @module
 */
import { loadNames } from "../../data/dataset.ts";

/**
 * Reads a `--labels` file: one name per line (a trailing empty line and `\r` line ends are
 * dropped), exactly `numLabels` of them.
 *
 * @throws {RangeError} when the file does not hold `numLabels` names
 *
 * @example
 * ```ts
 * import { readLabelsFlag } from "./label_names.ts";
 * const file = await Deno.makeTempFile();
 * await Deno.writeTextFile(file, "sports\r\nnews\n");
 * console.log(await readLabelsFlag(file, 2)); // [ "sports", "news" ]
 * await readLabelsFlag(file, 3).catch((e) => console.log(e.message)); // --labels ... has 2 names, the data has 3 labels
 * await Deno.remove(file);
 * ```
 */
export async function readLabelsFlag(flag: string, numLabels: number): Promise<string[]> {
  const names = (await Deno.readTextFile(flag)).split("\n").map((l) => l.replace(/\r$/, ""));
  if (names[names.length - 1] === "") names.pop();
  if (names.length !== numLabels) {
    throw new RangeError(
      `--labels ${flag} has ${names.length} names, the data has ${numLabels} labels`,
    );
  }
  return names;
}

/**
 * The names in `NAME.labels.txt` beside an XC file `DIR/NAME.train.txt` (or `.test.txt`) when
 * that file exists and names exactly `numLabels` labels, else `undefined`.
 *
 * @example
 * ```ts
 * import { labelsBeside } from "./label_names.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/toy.labels.txt`, "a\nb\n");
 * console.log(await labelsBeside(`${dir}/toy.test.txt`, 2)); // [ "a", "b" ]
 * console.log(await labelsBeside(`${dir}/toy.test.txt`, 3)); // undefined
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function labelsBeside(
  path: string,
  numLabels: number,
): Promise<string[] | undefined> {
  const m = /^(.*\/)?([^/]+)\.(train|test)\.txt$/.exec(path);
  if (!m) return undefined;
  const names = await loadNames((m[1] ?? "./").replace(/\/$/, "") || ".", m[2], "labels")
    .catch(() => undefined);
  return names !== undefined && names.length === numLabels ? names : undefined;
}
