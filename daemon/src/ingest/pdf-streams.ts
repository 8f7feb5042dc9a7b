// A PDF's FlateDecode streams inflate inside pdf.js into ArrayBuffers, outside the thread's V8 heap,
// so EXTRACT_MEMORY_MB never stops them: 1.2 MB of deflated page content grew to 400 MB of buffers
// (2.27 GB RSS, 121 s to the timeout). Before pdf.js sees the file, every zlib stream in it is
// inflated here through a counting stream whose output is discarded (memory stays at zlib's 16 KB
// chunks plus its window); their total counts against EXTRACT_MAX_UNPACKED_MB as a zip's entries do.
// LZWDecode streams (pdf.js decodes them into buffers too, up to ~2,600:1) are counted by replaying
// the decoder's dictionary lengths, never its output.
import { createInflate, type Inflate } from 'node:zlib';

/** Which bound a PDF passed: its text-bearing streams' or its images'. */
export class PdfUnpackLimitError extends Error {
  constructor(readonly images: boolean) {
    super(images ? 'PDF images unpack past the limit' : 'PDF streams unpack past the limit');
  }
}

/** pdf.js only inflates data with a valid zlib header (deflate, no preset dictionary, FCHECK): so do we. */
function zlibHeaderAt(data: Uint8Array, at: number): boolean {
  const cmf = data[at];
  const flg = data[at + 1];
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) + flg) % 31 === 0 && (flg & 0x20) === 0;
}

/** A stream's dictionary: the text between its object's `obj` keyword and `stream` (at most 4 KB back). */
function dictionaryBefore(text: string, streamAt: number): string {
  const from = Math.max(0, streamAt - 4096);
  const obj = text.lastIndexOf('obj', streamAt);
  return text.slice(Math.max(obj, from), streamAt);
}

/**
 * Inflates `chunk` counting output bytes into `budget` (for a chain of FlateDecode filters, the
 * output of each level in turn, up to `levels`); rejects with PdfUnpackLimitError once the total
 * passes `budget.max`. Corrupt data just ends the count: pdf.js reports it in its own words.
 */
interface Budget {
  used: number;
  max: number;
  images: boolean;
}

function inflateCounting(chunk: Uint8Array, budget: Budget, levels: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const stages: Inflate[] = [];
    let open = 0;
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      for (const z of stages) z.destroy();
      if (err) reject(err);
      else resolve();
    };
    const stage = (level: number): Inflate => {
      const z = createInflate();
      stages.push(z);
      open++;
      let next: Inflate | undefined;
      let first = true;
      z.on('data', (out: Buffer) => {
        budget.used += out.length;
        if (budget.used > budget.max) return finish(new PdfUnpackLimitError(budget.images));
        if (first && level < levels && zlibHeaderAt(out, 0)) {
          next = stage(level + 1);
          next.write(out);
          z.pipe(next);
        }
        first = false;
      });
      const closed = () => {
        next?.end();
        if (--open === 0) finish();
      };
      z.once('end', closed);
      z.once('error', closed);
      return z;
    };
    stage(1).end(chunk);
  });
}

/**
 * The decoded length of an LZW stream as pdf.js's LZWStream decodes it (9-12 bit codes, most
 * significant bit first, 256 clear, 257 end, EarlyChange), into `budget`: only each dictionary
 * entry's length is kept (4,096 of them), so the count costs nothing per output byte.
 */
function countLzw(data: Uint8Array, budget: Budget, earlyChange: number): void {
  const lengths = new Uint16Array(4096).fill(1);
  let codeLength = 9;
  let nextCode = 258;
  let seqLength = 0;
  let prevCode = 0;
  let bits = 0;
  let held = 0;
  for (let at = 0; ; ) {
    while (held < codeLength) {
      if (at >= data.length) return;
      bits = ((bits << 8) | data[at++]!) >>> 0;
      held += 8;
    }
    held -= codeLength;
    const code = (bits >>> held) & ((1 << codeLength) - 1);
    bits &= (1 << held) - 1;
    const hasPrev = seqLength > 0;
    if (code < 256) seqLength = 1;
    else if (code >= 258) seqLength = code < nextCode ? lengths[code]! : seqLength + 1;
    else if (code === 256) {
      codeLength = 9;
      nextCode = 258;
      seqLength = 0;
      continue;
    } else return;
    if (hasPrev) {
      if (nextCode < 4096) lengths[nextCode] = Math.min(lengths[prevCode]! + 1, 65535);
      nextCode++;
      const n = nextCode + earlyChange;
      if (!(n & (n - 1))) codeLength = Math.min(Math.floor(Math.log2(n)) + 1, 12);
    }
    prevCode = code;
    budget.used += seqLength;
    if (budget.used > budget.max) throw new PdfUnpackLimitError(budget.images);
  }
}

/**
 * Refuses (PdfUnpackLimitError) a PDF whose zlib streams inflate to more than `maxBytes` in all.
 * Image XObjects count apart, against `maxImageBytes` (the thread's memory bound): text extraction
 * does not decode them, and a document of screenshots may legitimately inflate to hundreds of MB,
 * but a bomb labelled as an image and used as page content is still bounded.
 */
export async function assertPdfStreamsWithin(data: Uint8Array, maxBytes: number, maxImageBytes: number): Promise<void> {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
  const content: Budget = { used: 0, max: maxBytes, images: false };
  const images: Budget = { used: 0, max: maxImageBytes, images: true };
  // pdf.js takes a stream's data from after `stream` and its end of line, and a lenient reader may
  // skip more blanks: any `stream` followed by up to 8 blanks and a zlib header is inflated. The
  // whole rest of the file is fed (inflate stops at the stream's end), so neither /Length nor a
  // forged `endstream` inside the data can hide bytes.
  const keyword = /stream[\0\t\n\f\r ]{0,8}/g;
  let m: RegExpExecArray | null;
  while ((m = keyword.exec(text))) {
    const start = m.index + m[0].length;
    if (text.startsWith('end', m.index - 3)) continue; // `endstream` closes a stream
    const dict = dictionaryBefore(text, m.index);
    const budget = /\/Subtype\s*\/Image\b/.test(dict) ? images : content;
    if (/\/(LZWDecode|LZW)\b/.test(dict) && !zlibHeaderAt(data, start)) {
      countLzw(data.subarray(start), budget, /\/EarlyChange\s+0\b/.test(dict) ? 0 : 1);
      continue;
    }
    if (!zlibHeaderAt(data, start)) continue;
    const chained = (dict.match(/\/(FlateDecode|Fl)\b/g) ?? []).length;
    await inflateCounting(data.subarray(start), budget, Math.min(4, Math.max(1, chained)));
  }
}
