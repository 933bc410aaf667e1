/**
 * A checkpoint's bytes (pure): their layout, and what its writer
 * (encode.ts) and its reader (decode.ts) share.
 *
 *   "MPCK" | format version u32 | header length u32 | header (JSON)
 *   blocks:  4 kinds   | count u32 | count x (name length u16 | name)
 *            1 entries | count u32 | record bytes u32 | layout u8
 *                      | count x (key length u16 | JSON length u32 | revision f64 | kind id i32)
 *                      | the records, back to back
 *            2 out of shape | key length u16 | key | revision f64
 *            3 delete marker | key length u16 | key
 *   trailer: 0xff | entries u32 | out of shape u32 | markers u32
 *
 * Numbers are little-endian. A checkpoint is read as it arrives, in chunks
 * of any size (decode.ts). It carries no digest of its own: it is stored
 * gzipped, and gzip's CRC-32 of each member checks every byte unpacked,
 * while the object store's SHA-256 checks every byte stored
 * (src/checkpoints/objects.ts); a reader uses a store only once both have
 * passed at the end of the stream. An entry's record is the store's own (its JSON
 * as answered, then a comma; see ../store.ts), so a start copies records
 * into its arena as they are (../bulk-load.ts): whole (layout 0), or, where
 * the key alone makes the head `{"key":…,<fields>,"value":` (needs, applied:
 * `EntryHead.fromKey`), as the key then the rest of the record after its
 * head (layout 1), and the start writes the head again from the key. A kind id is the writer's: a kinds
 * block names the ids from the count named before it on, ahead of the
 * first entries that use them. The format version changes with the store's
 * record layout and with the key shapes: its entries are records of keys
 * that were in shape when it was written, and are not checked again.
 *
 * Encoding goes a slice of entries at a time, each slice read from the store
 * as it is at that moment, continuing after the last key written: the store
 * may change between slices. Each entry is written with the revision it has
 * then, and the checkpoint's revision R is the store's when encoding began.
 * A replay of the bucket from R + 1 over it converges to the bucket: the
 * bucket keeps one message per key, so every write after R that still
 * matters is in that replay, and a key's last write wins whatever the
 * checkpoint held of it.
 */
/** What the writer of a checkpoint says of the stream it was taken from: carried as it is, compared by the reader. */
export type StreamMark = Readonly<Record<string, unknown>>;

/** What a checkpoint's header records besides its content. */
export interface CheckpointMeta {
  readonly stream: StreamMark;
  /** When the write began (ms since the epoch). */
  readonly writtenAt: number;
}

/** Encodes one store, a slice at a time. */
export interface Encoder {
  /** The store's revision when encoding began: the checkpoint's revision. */
  readonly revision: number;
  /**
   * The next slice of at most `maxEntries` entries (then the rest), or null
   * once all is out. The slice is a view of the encoder's own buffer, valid
   * until the next call, which writes over it: a caller keeping it copies it.
   */
  next(maxEntries: number): Uint8Array | null;
}

export const CHECKPOINT_FORMAT_VERSION = 3;
export const MAGIC = Buffer.from("MPCK", "latin1");
export const PREAMBLE = MAGIC.length + 8;
export const ENTRIES = 1;
export const OUT_OF_SHAPE = 2;
export const MARKER = 3;
export const KINDS = 4;
/** An entries block's records: each whole, or its key then its JSON after the head. */
export const WHOLE = 0;
export const KEYED = 1;
/** An entries block's own bytes before its columns: type, count, record bytes, layout. */
export const BLOCK_HEAD = 1 + 4 + 4 + 1;
/** An entry's columns: key length u16, JSON length u32, revision f64, kind id i32. */
export const COLUMNS = 2 + 4 + 8 + 4;
export const TRAILER = 0xff;
/** The trailer's counts: entries, out of shape, markers. */
export const TRAILER_COUNTS = 12;

export type CheckpointErrorReason = "corrupt" | "format-version" | "foreign";

/** A checkpoint's bytes that cannot be used, and why. */
export class CheckpointError extends Error {
  override readonly name = "CheckpointError";
  constructor(
    readonly reason: CheckpointErrorReason,
    message: string,
  ) {
    super(message);
  }
}

export interface Header {
  what: string;
  bucket: string;
  revision: number;
  stream: StreamMark;
  writtenAt: number;
  /** The store's entries when the write began: room a reader makes ahead, never trusted as a count. */
  entries: number;
}

export function corrupt(message: string): CheckpointError {
  return new CheckpointError("corrupt", `the checkpoint is not whole or not a checkpoint: ${message}`);
}
