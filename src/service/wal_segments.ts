/**
 * The segment files of a write-ahead-log directory: their names (`NNNNNNNNNN.wal`, format 2;
 * `NNNNNNNNNN.ndjson`, format 1), listing them in order, the checkpoint's position in them, and
 * syncing the directory after a segment is created. See `wal.ts` for the log as a whole.
 *
 * @module
 */

const SEGMENT_RE = /^(\d{10})\.(wal|ndjson)$/;

/**
 * The write-ahead-log position saved in the checkpoint: the first segment it does not cover and
 * that segment's first record's sequence number (`StreamPosition.wal` plus `seq`).
 *
 * @example
 * ```ts
 * import type { WalPosition } from "./wal_segments.ts";
 * const p: WalPosition = { segment: 3, seq: 120 };
 * console.log(p.segment); // 3
 * ```
 */
export interface WalPosition {
  /** The first segment the checkpoint does not cover. */
  segment: number;
  /** The sequence number of that segment's first record (absent: unknown). */
  seq?: number;
}

/**
 * The file name of a segment (`format` 2: `.wal`; 1: `.ndjson`).
 *
 * @example
 * ```ts
 * import { segmentName } from "./wal_segments.ts";
 * console.log(segmentName(7)); // "0000000007.wal"
 * ```
 */
export function segmentName(n: number, format: 1 | 2 = 2): string {
  return `${String(n).padStart(10, "0")}.${format === 2 ? "wal" : "ndjson"}`;
}

/**
 * Syncs a directory so that a file created in it survives a crash (ignored where a directory
 * cannot be synced).
 *
 * @example
 * ```ts
 * import { syncDir } from "./wal_segments.ts";
 * const dir = await Deno.makeTempDir();
 * await syncDir(dir);
 * await Deno.remove(dir);
 * ```
 */
export async function syncDir(dir: string): Promise<void> {
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
 * One segment file found in a WAL directory.
 *
 * @example
 * ```ts
 * import type { SegmentFile } from "./wal_segments.ts";
 * const s: SegmentFile = { segment: 3, format: 2, name: "0000000003.wal" };
 * console.log(s.format); // 2
 * ```
 */
export interface SegmentFile {
  /** Segment number. */
  segment: number;
  /** 2: checksummed records; 1: plain lines (older versions). */
  format: 1 | 2;
  /** File name in the directory. */
  name: string;
}

/**
 * The segment files of a WAL directory, by increasing number (empty when the directory is
 * missing).
 *
 * @example
 * ```ts
 * import { listSegmentFiles } from "./wal_segments.ts";
 * console.log(await listSegmentFiles("/nonexistent/tagstream/wal")); // []
 * ```
 */
export async function listSegmentFiles(dir: string): Promise<SegmentFile[]> {
  const out: SegmentFile[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      const m = e.isFile ? SEGMENT_RE.exec(e.name) : null;
      if (m) out.push({ segment: Number(m[1]), format: m[2] === "wal" ? 2 : 1, name: e.name });
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  return out.sort((a, b) => a.segment - b.segment || a.format - b.format);
}

/**
 * Segment numbers present in a WAL directory, increasing (empty when the directory is missing).
 *
 * @example
 * ```ts
 * import { listSegments } from "./wal_segments.ts";
 * console.log(await listSegments("/nonexistent/tagstream/wal")); // []
 * ```
 */
export async function listSegments(dir: string): Promise<number[]> {
  return [...new Set((await listSegmentFiles(dir)).map((s) => s.segment))];
}
