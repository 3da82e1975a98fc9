/**
 * Joining byte chunks (stream reads, log runs, protocol frames) into one buffer.
 *
 * @module
 */

/**
 * The concatenation of `parts`: `parts[0]` itself when there is exactly one part, else a new
 * array. `total` is their summed length when the caller already knows it.
 *
 * @example
 * ```ts
 * import { concatBytes } from "./bytes.ts";
 * const a = Uint8Array.of(1, 2);
 * console.log([...concatBytes([a, Uint8Array.of(3)])], concatBytes([a]) === a); // [ 1, 2, 3 ] true
 * ```
 */
export function concatBytes(parts: readonly Uint8Array[], total?: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  let n = total ?? 0;
  if (total === undefined) { for (const p of parts) n += p.length; }
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
