// A bound on what pdf.js decodes, inside pdf.js, for what the pre-count (pdf-streams.ts) cannot
// see: streams of an encrypted file (their bytes are ciphertext until pdf.js decrypts them), streams
// inside object streams, filters whose output it cannot compute. pdf.js's decoders grow their output
// through DecodeStream.ensureBuffer: it is wrapped to charge each stream's growth, before the
// allocation, against the limits of the document being read, and to throw past them. Streams pdf.js
// would inflate whole with the platform's DecompressionStream go through its own decoder instead;
// BrotliDecode (one allocation of the whole output) goes through zlib with the same bound; the image
// codecs (JPEG, JPEG 2000, JBIG2: whole images, sized by their headers) decode nothing, as text
// extraction needs no pixels. Plain .mjs: pdfjs-load.mjs applies it before tsx is registered.
import { brotliDecompressSync } from 'node:zlib';

/** Thrown inside pdf.js past a limit; pdf.js may catch it, so the document's state says it too. */
export class DecodeLimitError extends Error {
  /** @param {'stream' | 'live'} limit */
  constructor(limit) {
    super(limit === 'stream' ? 'a PDF stream decodes past the limit' : 'the PDF streams held at once pass the limit');
    this.limit = limit;
  }
}

/** The document being read: its limits, the bytes its live streams hold, the first limit it passed. */
let current;
const charged = new WeakMap();
const registry = new FinalizationRegistry((held) => {
  if (held.doc === current) current.live -= held.bytes;
});

/** Charges `stream` growing to `capacity` bytes (`requested` of them decoded) before it allocates them. */
function charge(stream, requested, capacity) {
  const doc = current;
  if (!doc) return;
  let held = charged.get(stream);
  if (!held || held.doc !== doc) {
    held = { doc, bytes: 0 };
    charged.set(stream, held);
    registry.register(stream, held);
  }
  if (requested > doc.maxStreamBytes) fail(doc, 'stream');
  const grown = capacity - held.bytes;
  if (doc.live + grown > doc.maxLiveBytes) fail(doc, 'live');
  held.bytes = capacity;
  doc.live += grown;
}

function fail(doc, limit) {
  doc.exceeded ??= limit;
  throw new DecodeLimitError(limit);
}

/** Wraps the decoders of pdf.js's worker module (its classes, exported by pdfjs-load.mjs). */
export function limitPdfJsDecoders({ DecodeStream, BrotliStream, JpegStream, JpxStream, Jbig2Stream }) {
  const ensureBuffer = DecodeStream.prototype.ensureBuffer;
  DecodeStream.prototype.ensureBuffer = function (requested) {
    if (current && requested > this.buffer.byteLength) {
      let size = this.minBufferLength;
      while (size < requested) size *= 2;
      charge(this, requested, size);
    }
    return ensureBuffer.call(this, requested);
  };
  // The platform's DecompressionStream inflates each chunk written to it whole, before anything can
  // be counted: under limits, pdf.js decodes those streams itself, through ensureBuffer.
  const wholeAtOnce = DecodeStream.prototype.asyncGetBytesFromDecompressionStream;
  DecodeStream.prototype.asyncGetBytesFromDecompressionStream = async function (name) {
    if (!current) return wholeAtOnce.call(this, name);
    this.stream.reset();
    const bytes = this.stream.isAsync ? await this.stream.asyncGetBytes() : this.stream.getBytes();
    return { decompressed: null, compressed: bytes };
  };
  BrotliStream.prototype.readBlock = function () {
    const bytes = this.stream.getBytes();
    const doc = current;
    const room = doc ? Math.max(0, Math.min(doc.maxStreamBytes, doc.maxLiveBytes - doc.live)) : Number.POSITIVE_INFINITY;
    let out;
    try {
      out = brotliDecompressSync(bytes, Number.isFinite(room) ? { maxOutputLength: Math.max(1, room) } : {});
    } catch (err) {
      // zlib refuses output past maxOutputLength: the bound, not corrupt data.
      if (err?.code === 'ERR_BUFFER_TOO_LARGE' && doc) fail(doc, room === doc.maxStreamBytes ? 'stream' : 'live');
      throw err;
    }
    charge(this, out.length, out.length);
    this.buffer = new Uint8Array(out.buffer, out.byteOffset, out.length);
    this.bufferLength = out.length;
    this.eof = true;
  };
  for (const Codec of [JpegStream, JpxStream, Jbig2Stream]) {
    Codec.prototype.decodeImage = function () {
      this.eof = true;
      this.buffer = new Uint8Array(0);
      this.bufferLength = 0;
      return this.buffer;
    };
  }
}

/**
 * Sets the limits of the document pdf.js is about to read (one at a time per thread):
 * `maxStreamBytes` for one stream's decoded bytes, `maxLiveBytes` for the buffers of the streams
 * alive at once. Returns how to learn which one it passed, and how to end its accounting.
 */
export function limitDecoding(limits) {
  const doc = { maxStreamBytes: limits.maxStreamBytes, maxLiveBytes: limits.maxLiveBytes, live: 0, exceeded: undefined };
  current = doc;
  return {
    exceeded: () => doc.exceeded,
    end: () => {
      if (current === doc) current = undefined;
    },
  };
}
