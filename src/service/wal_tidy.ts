/**
 * Tidying the write-ahead log after a successful read: truncating the torn tail that
 * `readWal` found (a write cut short by a crash, never acknowledged) and deleting empty segment
 * files.
 *
 * @module
 */
import type { WalReadResult } from "./wal_reader.ts";

/**
 * Truncates a torn tail found by `readWal` (the last segment's bytes after its last
 * newline) and deletes empty segment files; returns a log line, or undefined when there was
 * nothing to do.
 *
 * @example
 * ```ts
 * import { readWal } from "./wal_reader.ts";
 * import { tidyWal } from "./wal_tidy.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/0000000000.wal`, "half a rec");
 * const r = await readWal(dir, 0, 0);
 * console.log(await tidyWal(dir, r)); // truncated 10 bytes (an incomplete record: a write cut short, never acknowledged) at the end of 0000000000.wal
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function tidyWal(dir: string, r: WalReadResult): Promise<string | undefined> {
  const notes: string[] = [];
  if (r.tornTail !== undefined) {
    const t = r.tornTail;
    await Deno.truncate(`${dir}/${t.file}`, t.offset);
    notes.push(
      `truncated ${t.bytes} bytes (an incomplete record: a write cut short, never acknowledged) at the end of ${t.file}`,
    );
  }
  for (const name of r.emptyFiles) {
    await Deno.remove(`${dir}/${name}`).catch(() => {});
  }
  if (r.emptyFiles.length > 0) notes.push(`deleted ${r.emptyFiles.length} empty segment file(s)`);
  return notes.length > 0 ? notes.join("; ") : undefined;
}
