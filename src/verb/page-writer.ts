/**
 * The bytes of a page, written straight from each entry's JSON text into one
 * reusable scratch buffer and copied out once: building an answer allocates
 * its reply and nothing else per entry (no joined strings, no encoded copy).
 * Pages are built synchronously, one at a time, so one writer serves them all.
 */
const INITIAL_BYTES = 64 * 1024;

export class PageWriter {
  private buf = Buffer.allocUnsafeSlow(INITIAL_BYTES);
  /** Bytes written so far. */
  length = 0;

  /** Append `text` as UTF-8; returns how many bytes it took. */
  write(text: string): number {
    // A UTF-16 code unit is at most 3 UTF-8 bytes: when that much room is
    // left the text surely fits, and its length need not be measured first.
    if (this.buf.length - this.length < text.length * 3) this.reserve(Buffer.byteLength(text));
    const n = this.buf.write(text, this.length);
    this.length += n;
    return n;
  }

  /** Append one byte (a comma between entries). */
  byte(b: number): void {
    if (this.length === this.buf.length) this.reserve(1);
    this.buf[this.length++] = b;
  }

  /** Append `end - start` bytes of `src`; returns how many. */
  copy(src: Buffer, start: number, end: number): number {
    const n = end - start;
    if (this.buf.length - this.length < n) this.reserve(n);
    src.copy(this.buf, this.length, start, end);
    this.length += n;
    return n;
  }

  /** Drop everything after `length` (undo the last writes). */
  truncate(length: number): void {
    this.length = length;
  }

  /** `head`, what was written, then `tail`, into a buffer of exactly that size from `alloc`. */
  finish<B extends Buffer>(head: string, tail: string, alloc: (bytes: number) => B): B {
    const headBytes = Buffer.byteLength(head);
    const out = alloc(headBytes + this.length + Buffer.byteLength(tail));
    out.write(head, 0);
    this.buf.copy(out, headBytes, 0, this.length);
    out.write(tail, headBytes + this.length);
    this.length = 0;
    return out;
  }

  private reserve(bytes: number): void {
    const need = this.length + bytes;
    if (need <= this.buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }
}
