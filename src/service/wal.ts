/**
 * A write-ahead log of accepted HTTP events: numbered segment files in a directory, one record
 * per event line. Appends are group-committed (one write and one fdatasync for everything
 * queued meanwhile); `append` resolves once its bytes are durable, and a failed write (a full
 * disk) is cut back off the file, so that the segment never holds a partial record in its
 * middle. At each checkpoint the service rotates to a new segment and, once the checkpoint is
 * durable, releases the older ones; on start it replays the segments the checkpoint does not
 * cover, so an event answered with 200 survives `kill -9`.
 *
 * Format 2 (`NNNNNNNNNN.wal`): every record is one line `CCCCCCCC SEQ PAYLOAD\n`, where `SEQ`
 * is the record's sequence number (consecutive across segments and restarts), `PAYLOAD` the
 * event line as received and `CCCCCCCC` the CRC-32 (hex) of `SEQ PAYLOAD`. Replay
 * ({@linkcode readWal}) verifies every record: bytes after the last newline of the last segment
 * (a write cut short by a crash, never acknowledged) are a torn tail, truncated with a log
 * line; anything else — a checksum mismatch, a malformed record, a missing record (a gap in the
 * sequence: a truncated or deleted segment, a deleted line), an incomplete record in the middle
 * of the log — is damage: a {@linkcode WalDamageError} naming the file and the byte offset,
 * unless `repair` is set, when the damaged records are dropped and reported one by one.
 *
 * Format 1 (`NNNNNNNNNN.ndjson`, written before checksums): plain event lines. They are still
 * replayed (unverified, as before) so that a state directory of an older version migrates: the
 * service checkpoints right after replaying them, which releases them.
 *
 * The log is split by concept: `wal_segments.ts` (segment file names and listing),
 * `wal_record.ts` (the format-2 record and its checksum), `wal_writer.ts` (the group-committing
 * {@linkcode WriteAheadLog}), `wal_reader.ts` (replay and verification: {@linkcode readWal})
 * and `wal_tidy.ts` (truncating a torn tail: {@linkcode tidyWal}). This module re-exports them.
 *
 * @module
 */
export {
  listSegmentFiles,
  listSegments,
  type SegmentFile,
  segmentName,
  type WalPosition,
} from "./wal_segments.ts";
export {
  readWal,
  replaySegments,
  WalDamageError,
  type WalLine,
  type WalLoss,
  type WalReadResult,
} from "./wal_reader.ts";
export { type WalOpenOptions, WriteAheadLog } from "./wal_writer.ts";
export { tidyWal } from "./wal_tidy.ts";
