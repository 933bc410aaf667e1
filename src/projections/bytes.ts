/**
 * Strings into and out of Buffers on the hot paths, through Node's own
 * per-encoding Buffer methods (`utf8Write`, `latin1Write`, `latin1Slice`,
 * `utf8Slice`). They are what `buf.write(s, at, enc)` and `buf.toString(enc,
 * a, b)` call after checking their arguments, and those checks cost 4-5x the
 * copy itself for the short keys and heads a store writes by the million.
 * They are not in Node's typings, hence this one typed door.
 */
interface NodeBufferCodecs {
  utf8Write(s: string, offset: number): number;
  latin1Write(s: string, offset: number): number;
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

const codecs = (buf: Buffer): NodeBufferCodecs => buf as unknown as NodeBufferCodecs;

/** Write `s` as UTF-8 at `at` (room checked by the caller); returns the bytes written. */
export const writeUtf8 = (buf: Buffer, s: string, at: number): number => codecs(buf).utf8Write(s, at);

/** Write `s`, known to be ASCII, at `at`; returns the bytes written. */
export const writeAscii = (buf: Buffer, s: string, at: number): number => codecs(buf).latin1Write(s, at);

export const readUtf8 = (buf: Buffer, start: number, end: number): string => codecs(buf).utf8Slice(start, end);

/** Read bytes known to be ASCII as a string. */
export const readAscii = (buf: Buffer, start: number, end: number): string => codecs(buf).latin1Slice(start, end);
