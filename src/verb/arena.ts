/**
 * Where the verb's replies live: one ring of memory allocated once, carved
 * into replies one after the other and reused when it wraps.
 *
 * Why: V8 counts external memory allocated since its last full collection
 * against the old generation's limit, so a fresh ArrayBuffer per reply would
 * make a steady stream of answers set off mark-compacts, whose pauses land in
 * put -> visible's tail (docs/benchmarks.md). Replies carved from a ring cost
 * no external allocation at all.
 *
 * Why it is safe: the NATS client copies a published payload into its own
 * outbound buffer when it flushes, in the same turn of the event loop while
 * connected. A region is written again only after a whole ring's worth of
 * later replies, and replies are only built for requests the connection
 * delivered, so a reply still queued for a connection that just dropped is
 * not overwritten unless a full ring (16 MiB by default) of answers is built
 * before the client reconnects. Replies larger than an eighth of the ring get
 * their own buffer.
 *
 * A reply taken at stream position `at` stays intact while `intact(at)`: the
 * answer cache keeps such views and drops them once the ring has moved past.
 *
 * A cached reply sent again must also outlive the send: it waits in the
 * client's outbound buffer (uncopied) until the client writes, which it does
 * once the burst of work ends or the buffer holds `PENDING_LIMIT_BYTES`
 * (src/connect.ts), so at most that much plus one reply (max_payload) more
 * can be carved before it is copied. `fresh(at)` says a reply has at least
 * FRESH_MARGIN of the ring left before it is written over; one that is intact
 * but not fresh is copied forward (`again`) instead of being sent from where
 * it is. (Sent from where it is, a cached answer carved almost a ring
 * earlier could be written over by the answers built in the same burst
 * before the client copies it, and go out as bytes that are not JSON.)
 */
export const DEFAULT_ARENA_BYTES = 16 * 1024 * 1024;

/** What may be carved between handing a reply out and the client copying it, with room to spare: a quarter of the ring. */
export const freshMargin = (size: number): number => size >>> 2;

export interface Carved {
  readonly bytes: Buffer;
  /** Its position in the stream of everything carved (undefined: its own buffer, always intact). */
  readonly at: number | undefined;
}

export class AnswerArena {
  private ring: Buffer | undefined;
  /** Where the next reply starts in the ring. */
  private offset = 0;
  /** Bytes consumed since the start, skipped tails included: ring position = stream position mod size. */
  private written = 0;

  constructor(readonly size = DEFAULT_ARENA_BYTES) {}

  /** `n` bytes for a reply, to be filled by the caller. */
  take(n: number): Carved {
    if (n > this.size / 8) return { bytes: Buffer.allocUnsafeSlow(n), at: undefined };
    // Allocated on first use: an instance that never answers keeps no ring.
    const ring = (this.ring ??= Buffer.allocUnsafeSlow(this.size));
    if (this.offset + n > this.size) {
      this.written += this.size - this.offset;
      this.offset = 0;
    }
    const at = this.written;
    const bytes = ring.subarray(this.offset, this.offset + n);
    this.offset += n;
    this.written += n;
    return { bytes, at };
  }

  /** Whether the reply carved at `at` has not been written over yet. */
  intact(at: number | undefined): boolean {
    return at === undefined || this.written <= at + this.size;
  }

  /** Whether the reply carved at `at` will stay intact for at least a quarter of the ring more: safe to send again. */
  fresh(at: number | undefined): boolean {
    return at === undefined || this.written + freshMargin(this.size) <= at + this.size;
  }

  /** A copy of an intact reply in a new place at the ring's head (for a reply that is intact but not fresh). */
  again(reply: Carved): Carved {
    const copy = this.take(reply.bytes.length);
    reply.bytes.copy(copy.bytes);
    return copy;
  }
}
