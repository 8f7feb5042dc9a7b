// The decoders pdf.js applies in JavaScript (pdf.worker.mjs: LZWStream, AsciiHexStream,
// Ascii85Stream, RunLengthStream; PredictorStream is pdf-predictor.ts), ported to run over chunks:
// the same bytes out, as the stream pre-count (pdf-streams.ts) needs them to feed a chain's next
// filter, in slices of at most OUT bytes, so nothing is held but a slice. Values from the file keep
// pdf.js's JavaScript arithmetic: a parameter that is not a number computes what it computes there.

export type Chunks = AsyncIterable<Uint8Array>;

/** Output slice size. */
export const OUT = 64 * 1024;

/** Collects output bytes and hands them out in slices of OUT bytes. */
class Output {
  // Room for one LZW sequence past a full slice: a table entry (at most 4,096 bytes) grown by at most
  // one byte per code while codes run ahead of the table (below 4,096).
  private buf = new Uint8Array(OUT + 8192);
  n = 0;
  push(byte: number): void {
    this.buf[this.n++] = byte;
  }
  get full(): boolean {
    return this.n >= OUT;
  }
  /** The first `length` bytes of `seq`, zeros past its end (as pdf.js reads a typed array past its end). */
  pushAll(seq: Uint8Array, length: number): void {
    const copied = Math.min(length, seq.length);
    this.buf.set(seq.subarray(0, copied), this.n);
    this.buf.fill(0, this.n + copied, this.n + length);
    this.n += length;
  }
  /** Empties the slice, for a count only: how many bytes it held. */
  lengthTaken(): number {
    const n = this.n;
    this.n = 0;
    return n;
  }
  take(): Uint8Array {
    const out = this.buf.slice(0, this.n);
    this.n = 0;
    return out;
  }
}

/**
 * pdf.js's LZWStream (9 to 12-bit codes, 256 clear, 257 end, `earlyChange` as given). With
 * `lengthsOnly` (nothing reads the output but a count) it yields zeros of the right lengths and
 * skips building each sequence: a 12-bit code of a bomb is up to 3,839 bytes.
 */
export async function* lzw(input: Chunks, earlyChange: unknown, lengthsOnly = false): Chunks {
  const values = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  const prevCodes = new Uint16Array(4096);
  const sequence = new Uint8Array(4096);
  for (let i = 0; i < 256; i++) {
    values[i] = i;
    lengths[i] = 1;
  }
  const early = earlyChange as number;
  // A parameter whose sum with a code is not a number (a name: "258[object Object]") makes pdf.js
  // compute a code width of 0 once the first entry is added: then it decodes code 0, a zero byte,
  // forever, reading nothing. That output is endless here too, without spinning code by code.
  const endless = typeof early !== 'number' && typeof early !== 'boolean' && early !== null && Number.isNaN(Number(`1${String(early)}`));
  let nextCode = 258;
  let codeLength = 9;
  let prevCode = 0;
  let seqLength = 0;
  let cached = 0;
  let bitsCached = 0;
  const out = new Output();
  const slice = () => (lengthsOnly ? zeros(out.lengthTaken()) : out.take());
  for await (const chunk of input) {
    let at = 0;
    for (;;) {
      while (bitsCached < codeLength && at < chunk.length) {
        cached = (cached << 8) | chunk[at++]!;
        bitsCached += 8;
      }
      if (bitsCached < codeLength) break;
      bitsCached -= codeLength;
      const code = (cached >>> bitsCached) & ((1 << codeLength) - 1);
      const hasPrev = seqLength > 0;
      if (code < 256) {
        sequence[0] = code;
        seqLength = 1;
      } else if (code >= 258) {
        if (code < nextCode) {
          seqLength = lengths[code]!;
          if (!lengthsOnly)
            for (let j = seqLength - 1, q = code; j >= 0; j--) {
              sequence[j] = values[q]!;
              q = prevCodes[q]!;
            }
        } else sequence[seqLength++] = sequence[0]!;
      } else if (code === 256) {
        codeLength = 9;
        nextCode = 258;
        seqLength = 0;
        continue;
      } else {
        if (out.n) yield slice();
        return;
      }
      if (hasPrev) {
        prevCodes[nextCode] = prevCode;
        lengths[nextCode] = lengths[prevCode]! + 1;
        values[nextCode] = sequence[0]!;
        nextCode++;
        if (endless) {
          out.pushAll(sequence, seqLength);
          yield out.take();
          for (;;) yield zeros(OUT);
        }
        // pdf.js's own expression, so a parameter that is not a number widens codes as it does there.
        const n = (nextCode as number) + early;
        codeLength = n & (n - 1) ? codeLength : Math.min(Math.log(n) / Math.LN2 + 1, 12) | 0;
      }
      prevCode = code;
      if (lengthsOnly) out.n += seqLength;
      else out.pushAll(sequence, seqLength);
      if (out.full) yield slice();
    }
  }
  if (out.n) yield slice();
}

const ZEROS = new Uint8Array(OUT + 8192);
const zeros = (n: number) => ZEROS.subarray(0, n);

const hexDigit = (ch: number) =>
  ch >= 0x30 && ch <= 0x39 ? ch & 0x0f : (ch >= 0x41 && ch <= 0x46) || (ch >= 0x61 && ch <= 0x66) ? (ch & 0x0f) + 9 : -1;

/** pdf.js's AsciiHexStream: pairs of hex digits, anything else skipped, `>` ends. */
export async function* asciiHex(input: Chunks): Chunks {
  const out = new Output();
  let first = -1;
  for await (const chunk of input) {
    for (const ch of chunk) {
      if (ch === 0x3e) {
        if (first >= 0) out.push(first << 4);
        if (out.n) yield out.take();
        return;
      }
      const d = hexDigit(ch);
      if (d < 0) continue;
      if (first < 0) first = d;
      else {
        out.push((first << 4) | d);
        first = -1;
        if (out.full) yield out.take();
      }
    }
  }
  if (out.n) yield out.take();
}

const isWhiteSpace = (ch: number) => ch === 0x20 || ch === 0x09 || ch === 0x0d || ch === 0x0a;

/** pdf.js's Ascii85Stream: groups of five, `z` four zeros, `~` ends (a short last group gives fewer bytes). */
export async function* ascii85(input: Chunks): Chunks {
  const out = new Output();
  const group = new Uint8Array(5);
  let n = 0;
  const flush = (count: number) => {
    group.fill(0x21 + 84, count);
    let t = 0;
    for (let i = 0; i < 5; i++) t = t * 85 + (group[i]! - 0x21);
    const bytes = [(t >>> 24) & 0xff, (t >>> 16) & 0xff, (t >>> 8) & 0xff, t & 0xff];
    for (let i = 0; i < count - 1; i++) out.push(bytes[i]!);
  };
  for await (const chunk of input) {
    for (const ch of chunk) {
      if (isWhiteSpace(ch)) continue;
      if (ch === 0x7e) {
        if (n > 0) flush(n);
        if (out.n) yield out.take();
        return;
      }
      if (n === 0 && ch === 0x7a) {
        for (let i = 0; i < 4; i++) out.push(0);
      } else {
        group[n++] = ch;
        if (n === 5) {
          flush(5);
          n = 0;
        }
      }
      if (out.full) yield out.take();
    }
  }
  if (n > 0) flush(n);
  if (out.n) yield out.take();
}

/** pdf.js's RunLengthStream: a length byte, then n + 1 literal bytes (zeros past the end) or one byte 257 - n times; 128 ends. */
export async function* runLength(input: Chunks): Chunks {
  const out = new Output();
  let header = -1;
  let literal = 0;
  for await (const chunk of input) {
    for (const ch of chunk) {
      if (literal > 0) {
        out.push(ch);
        literal--;
      } else if (header < 0) {
        if (ch === 128) {
          if (out.n) yield out.take();
          return;
        }
        header = ch;
        continue;
      } else if (header < 128) {
        out.push(ch);
        literal = header;
        header = -1;
      } else {
        for (let i = 0; i < 257 - header; i++) out.push(ch);
        header = -1;
      }
      if (out.full) yield out.take();
    }
  }
  // A literal run cut short still adds its whole length in pdf.js.
  for (; literal > 0; literal--) {
    out.push(0);
    if (out.full) yield out.take();
  }
  if (out.n) yield out.take();
}
