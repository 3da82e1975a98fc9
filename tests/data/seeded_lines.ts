/**
 * Seeded files of lines for the `FileLines` tests: lines empty, short, 62 to 65 bytes (about
 * the 64-byte tail), long and too long for {@linkcode MAX_LINE}, some ending in `\r`.
 *
 * @module
 */
import { mulberry32 } from "../mulberry32.ts";

/** The `maxLineBytes` the seeded files are read with: some of their lines are longer. */
export const MAX_LINE = 300;

/**
 * `n` seeded lines (`a`..`z`, some ending in `\r`; `short`: all under 40 bytes, else some long or
 * too long), a newline after each but maybe the last.
 */
export function seededFile(
  seed: number,
  n: number,
  lastNewline: boolean,
  short = false,
): Uint8Array<ArrayBuffer> {
  const rand = mulberry32(seed);
  const lengths = [0, 1, 5, 62, 63, 64, 65, 120, MAX_LINE, MAX_LINE + 1, 2000];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const len = short || rand() < 0.7
      ? Math.floor(rand() * 40)
      : lengths[Math.floor(rand() * lengths.length)];
    for (let k = 0; k < len; k++) out.push(97 + Math.floor(rand() * 26));
    if (len > 0 && rand() < 0.2) out[out.length - 1] = 13;
    if (i < n - 1 || lastNewline) out.push(10);
  }
  return Uint8Array.from(out);
}
