// The POSIX ustar format (what `tar` reads and writes), streamed both ways: entries are written as
// their bytes come and read one at a time, so neither side holds an archive in memory. Names are at
// most 100 bytes (docsift's own are under 50); a pax or GNU long name from another tool is read.
import { Readable } from 'node:stream';

const BLOCK = 512;
const END = Buffer.alloc(BLOCK * 2);

export class TarFormatError extends Error {}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** A header block for a regular file. */
export function tarHeader(name: string, size: number, mtime: Date): Buffer {
  const h = Buffer.alloc(BLOCK);
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > 100) throw new Error(`tar entry name longer than 100 bytes: ${name}`);
  nameBytes.copy(h, 0);
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** Zeros that bring an entry of `size` bytes to a block boundary. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The two zero blocks that end an archive. */
export function tarEnd(): Buffer {
  return END;
}

export interface TarEntry {
  name: string;
  size: number;
  /** The entry's bytes: read it to its end (or not at all) before asking for the next entry. */
  body: Readable;
}

/** Reads exact byte counts from a stream of chunks. */
class ByteReader {
  private buf = Buffer.alloc(0);
  private done = false;
  constructor(private readonly it: AsyncIterator<Buffer | Uint8Array | string>) {}

  private async fill(n: number): Promise<boolean> {
    while (this.buf.length < n && !this.done) {
      const r = await this.it.next();
      if (r.done) this.done = true;
      else this.buf = Buffer.concat([this.buf, Buffer.from(r.value as Uint8Array)]);
    }
    return this.buf.length >= n;
  }

  /** Exactly n bytes, or null at the very end of the input (nothing left). */
  async read(n: number): Promise<Buffer | null> {
    if (!(await this.fill(n))) {
      if (this.buf.length === 0) return null;
      throw new TarFormatError('the archive is truncated');
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** The next n bytes as they arrive, without gathering them. */
  async *take(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.buf.length === 0 && !(await this.fill(1))) throw new TarFormatError('the archive is truncated');
      const part = this.buf.subarray(0, Math.min(left, this.buf.length));
      this.buf = this.buf.subarray(part.length);
      left -= part.length;
      yield part;
    }
  }
}

function parseOctal(b: Buffer): number {
  // GNU base-256 for sizes over 8 GiB: the high bit of the first byte.
  if (b[0]! & 0x80) {
    let v = 0;
    for (let i = 1; i < b.length; i++) v = v * 256 + b[i]!;
    return v;
  }
  const text = b.toString('ascii').replace(/\0.*$/s, '').trim();
  return text ? Number.parseInt(text, 8) : 0;
}

const field = (h: Buffer, at: number, len: number) =>
  h
    .subarray(at, at + len)
    .toString('utf8')
    .replace(/\0.*$/s, '');

function checkHeader(h: Buffer): void {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  if (sum !== parseOctal(h.subarray(148, 156))) throw new TarFormatError('not a tar archive (a header checksum does not match)');
}

/** The `path` record of a pax extended header. */
function paxPath(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const m = /^\d+ path=(.*)$/s.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/** The regular files of a tar stream, in order; directories and links are skipped. */
export async function* readTar(source: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<TarEntry> {
  const r = new ByteReader(source[Symbol.asyncIterator]());
  let longName: string | undefined;
  for (;;) {
    const h = await r.read(BLOCK);
    if (!h) throw new TarFormatError('the archive is truncated (no end-of-archive blocks)');
    if (h.every((b) => b === 0)) return;
    checkHeader(h);
    const size = parseOctal(h.subarray(124, 136));
    const type = String.fromCharCode(h[156]!);
    const prefix = h.subarray(257, 262).toString('ascii') === 'ustar' ? field(h, 345, 155) : '';
    const name = longName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
    longName = undefined;
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (type === 'x' || type === 'L') {
      if (size > 1024 * 1024) throw new TarFormatError('an extended header over 1 MiB');
      const text = (await r.read(size + padding))!.subarray(0, size).toString('utf8');
      longName = type === 'L' ? text.replace(/\0.*$/s, '') : paxPath(text);
      continue;
    }
    const body = Readable.from(r.take(size), { objectMode: false });
    if (type === '0' || type === '\0') yield { name, size, body };
    // Whatever the consumer left unread is skipped, then the padding.
    for await (const _ of body) {
      /* drain */
    }
    if (padding) await r.read(padding);
  }
}
