/**
 * Bytes that arrive in chunks of any size, read as runs that each sit in one
 * buffer (pure, but for awaiting the next chunk). A run that lies within a
 * chunk is that chunk, read in place; one that straddles chunks is copied
 * into a scratch buffer the cursor reuses. Either way a run is valid until
 * the next `next`.
 */

/** `n` bytes at `buf[at, at + n)`. */
export interface Run {
  buf: Buffer;
  at: number;
}

const EMPTY = Buffer.alloc(0);

export class ChunkCursor {
  private chunk: Buffer = EMPTY;
  private at = 0;
  private scratch: Buffer = EMPTY;
  private done = false;
  private readonly run: Run = { buf: EMPTY, at: 0 };
  /** Bytes taken so far (to say where a checkpoint stopped making sense). */
  taken = 0;

  constructor(private readonly chunks: AsyncIterator<Uint8Array>) {}

  /** The next `n` bytes when the current chunk holds them, else undefined. */
  private inChunk(n: number): Run | undefined {
    if (this.at + n > this.chunk.length) return undefined;
    this.run.buf = this.chunk;
    this.run.at = this.at;
    this.at += n;
    this.taken += n;
    return this.run;
  }

  /** The next `n` bytes, waiting for chunks as needed; undefined when the bytes end first. */
  async next(n: number): Promise<Run | undefined> {
    const here = this.inChunk(n);
    if (here !== undefined) return here;
    if (this.scratch.length < n) this.scratch = Buffer.allocUnsafe(Math.max(n, this.scratch.length * 2));
    let have = this.chunk.copy(this.scratch, 0, this.at);
    while (have < n) {
      const c = await this.pull();
      if (c === undefined) return undefined;
      const part = Math.min(c.length, n - have);
      c.copy(this.scratch, have, 0, part);
      have += part;
      this.chunk = c;
      this.at = part;
    }
    this.taken += n;
    this.run.buf = this.scratch;
    this.run.at = 0;
    return this.run;
  }

  /** Whether the bytes have ended (reads the source to its end, which is where its own checks run). */
  async atEnd(): Promise<boolean> {
    while (this.at === this.chunk.length) {
      const c = await this.pull();
      if (c === undefined) return true;
      this.chunk = c;
      this.at = 0;
    }
    return false;
  }

  private async pull(): Promise<Buffer | undefined> {
    for (;;) {
      if (this.done) return undefined;
      const r = await this.chunks.next();
      if (r.done === true) {
        this.done = true;
        return undefined;
      }
      const v = r.value;
      if (v.length > 0) return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    }
  }
}
