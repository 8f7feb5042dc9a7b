/**
 * Counts the parts of a multipart body from its raw bytes (RFC 2046 §5.1.1): each delimiter
 * `CRLF--boundary` opens a part, until the closing one (`CRLF--boundary--`); the epilogue after it
 * holds none. busboy skips without a word a part whose Content-Disposition it cannot read
 * (`name=`, a bare `name`, none at all, not form-data); the receiver holds this count against the
 * parts busboy reported, so such a part is refused like any part without a name.
 */
export class PartCounter {
  private readonly delimiter: Buffer;
  /** The end of the bytes seen so far that may begin a delimiter the next chunk completes. */
  private tail: Buffer;
  /** Parts opened so far. */
  parts = 0;
  /** The closing delimiter was seen. */
  private closed = false;

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
    // A body may open with its first delimiter, without the CRLF before it.
    this.tail = Buffer.from('\r\n');
  }

  push(chunk: Buffer): void {
    if (this.closed) return;
    const bytes = Buffer.concat([this.tail, chunk]);
    const d = this.delimiter.length;
    let from = 0;
    let keep: number;
    for (;;) {
      const at = bytes.indexOf(this.delimiter, from);
      if (at < 0) {
        keep = Math.max(from, bytes.length - (d - 1));
        break;
      }
      // The two bytes after a delimiter tell the closing one (`--`) from one that opens a part.
      if (at + d + 2 > bytes.length) {
        keep = at;
        break;
      }
      if (bytes[at + d] === 0x2d && bytes[at + d + 1] === 0x2d) {
        this.closed = true;
        return;
      }
      this.parts++;
      from = at + d;
    }
    this.tail = Buffer.from(bytes.subarray(keep));
  }
}
