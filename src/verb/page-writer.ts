/**
 * The bytes of a page, gathered as a list of pieces and copied once, into the
 * reply: building an answer allocates its reply and nothing else per entry
 * (no joined strings, no encoded copy, no scratch copy of the entries).
 *
 * A piece is a byte range of a buffer that stays as it is until `finish`
 * (an entry's record in the store's arena), or of the writer's own scratch
 * buffer (texts and single bytes written here). Pages are built
 * synchronously, one at a time, so one writer serves them all.
 */
const INITIAL_BYTES = 16 * 1024;
const INITIAL_PIECES = 256;

export class PageWriter {
  private scratch = Buffer.allocUnsafeSlow(INITIAL_BYTES);
  /** Bytes of `scratch` in use. */
  private used = 0;
  private srcs: (Buffer | undefined)[] = new Array<Buffer | undefined>(INITIAL_PIECES).fill(undefined);
  private starts = new Int32Array(INITIAL_PIECES);
  private ends = new Int32Array(INITIAL_PIECES);
  private pieces = 0;
  /** Bytes written so far (the page without its head and tail). */
  length = 0;

  /** Append `text` as UTF-8; returns how many bytes it took. */
  write(text: string): number {
    // A UTF-16 code unit is at most 3 UTF-8 bytes: when that much room is
    // left the text surely fits, and its length need not be measured first.
    if (this.scratch.length - this.used < text.length * 3) this.reserve(Buffer.byteLength(text));
    const at = this.used;
    const n = this.scratch.write(text, at);
    this.used += n;
    this.addScratch(at, n);
    return n;
  }

  /** Append one byte (a comma between entries). */
  byte(b: number): void {
    if (this.used === this.scratch.length) this.reserve(1);
    const at = this.used;
    this.scratch[this.used++] = b;
    this.addScratch(at, 1);
  }

  /** Append bytes `start` to `end` of `src`, which must not change until `finish`; returns how many. */
  copy(src: Buffer, start: number, end: number): number {
    const n = end - start;
    if (n <= 0) return 0;
    const last = this.pieces - 1;
    if (last >= 0 && this.srcs[last] === src && this.ends[last] === start) this.ends[last] = end;
    else this.push(src, start, end);
    this.length += n;
    return n;
  }

  /** Drop everything after `length` (undo the last writes). */
  truncate(length: number): void {
    let drop = this.length - length;
    while (drop > 0 && this.pieces > 0) {
      const i = this.pieces - 1;
      const n = (this.ends[i] as number) - (this.starts[i] as number);
      if (n > drop) {
        this.ends[i] = (this.ends[i] as number) - drop;
        break;
      }
      drop -= n;
      this.srcs[i] = undefined;
      this.pieces--;
    }
    this.length = Math.min(this.length, length);
    if (this.pieces === 0) this.used = 0;
  }

  /** `head`, what was written, then `tail`, into a buffer of exactly that size from `alloc`. */
  finish<B extends Buffer>(head: string, tail: string, alloc: (bytes: number) => B): B {
    const headBytes = Buffer.byteLength(head);
    const out = alloc(headBytes + this.length + Buffer.byteLength(tail));
    let at = out.write(head, 0);
    const { srcs, starts, ends } = this;
    for (let i = 0; i < this.pieces; i++) {
      const src = srcs[i] as Buffer;
      const start = starts[i] as number;
      const end = ends[i] as number;
      // A comma alone: a store, not a call.
      if (end - start === 1) out[at] = src[start] as number;
      else src.copy(out, at, start, end);
      at += end - start;
      srcs[i] = undefined;
    }
    out.write(tail, at);
    this.pieces = 0;
    this.used = 0;
    this.length = 0;
    return out;
  }

  /** A scratch range just written: it extends the last piece when that piece ends where it starts. */
  private addScratch(at: number, n: number): void {
    this.length += n;
    const last = this.pieces - 1;
    if (last >= 0 && this.srcs[last] === this.scratch && this.ends[last] === at) this.ends[last] = at + n;
    else this.push(this.scratch, at, at + n);
  }

  private push(src: Buffer, start: number, end: number): void {
    if (this.pieces === this.starts.length) {
      const grow = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
      this.srcs.length = this.starts.length;
    }
    this.srcs[this.pieces] = src;
    this.starts[this.pieces] = start;
    this.ends[this.pieces] = end;
    this.pieces++;
  }

  /**
   * Room for `bytes` more in the scratch buffer. A new, larger one: the
   * pieces written so far keep pointing at the old one, which stays as it is.
   */
  private reserve(bytes: number): void {
    if (this.used + bytes <= this.scratch.length) return;
    this.scratch = Buffer.allocUnsafeSlow(Math.max(bytes, this.scratch.length * 2));
    this.used = 0;
  }
}
