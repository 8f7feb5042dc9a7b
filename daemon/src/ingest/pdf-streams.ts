// A PDF's streams decode inside pdf.js into ArrayBuffers, outside the thread's V8 heap, so
// EXTRACT_MEMORY_MB never stops them: 1.2 MB of deflated page content grew to 400 MB of buffers
// (2.27 GB RSS, 121 s to the timeout), and a 7 KB `[/FlateDecode /LZWDecode]` chain to 1.5 GB.
// Before pdf.js sees the file, every stream is decoded here through its whole filter chain, as
// pdf.js would decode it (pdf-objects.ts reads the objects, pdf-filters.ts builds the chain), and
// every stage's output is counted and discarded: pdf.js holds each stage's buffer, so each counts.
// Memory stays at a slice per stage (64 KB, zlib's 16 KB chunks and window, a predictor's row).
// The total counts against EXTRACT_MAX_UNPACKED_MB as a zip's entries do; images apart.
import type { Chunks } from './pdf-decoders.js';
import { filterStages } from './pdf-filters.js';
import { Name, PdfObjects } from './pdf-objects.js';

/** Which bound a PDF passed: its text-bearing streams' or its images'. */
export class PdfUnpackLimitError extends Error {
  constructor(readonly images: boolean) {
    super(images ? 'PDF images unpack past the limit' : 'PDF streams unpack past the limit');
  }
}

class Budget {
  used = 0;
  constructor(
    readonly max: number,
    readonly images: boolean,
  ) {}
  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.max) throw new PdfUnpackLimitError(this.images);
  }
}

async function* counted(input: Chunks, budget: Budget): Chunks {
  for await (const chunk of input) {
    budget.charge(chunk.length);
    yield chunk;
  }
}

/**
 * Refuses (PdfUnpackLimitError) a PDF whose streams decode to more than `maxBytes` in all.
 * Image XObjects count apart, against `maxImageBytes` (the thread's memory bound): text extraction
 * does not decode them, and a document of screenshots may legitimately inflate to hundreds of MB,
 * but a bomb labelled as an image and used as page content is still bounded.
 */
export async function assertPdfStreamsWithin(data: Uint8Array, maxBytes: number, maxImageBytes: number): Promise<void> {
  const objects = new PdfObjects(data);
  const content = new Budget(maxBytes, false);
  const images = new Budget(maxImageBytes, true);
  for (const stream of objects.streams) {
    const stages = filterStages(objects, stream.dict);
    if (!stages.length) continue;
    const subtype = objects.get(stream.dict, 'Subtype');
    const budget = subtype instanceof Name && subtype.name === 'Image' ? images : content;
    // The rest of the file, not /Length's extent: a wrong /Length or a forged `endstream` hides nothing
    // (each filter stops at its own end of data).
    let chunks: Chunks = (async function* () {
      yield data.subarray(stream.start);
    })();
    const charge = (bytes: number) => budget.charge(bytes);
    for (const [i, stage] of stages.entries()) {
      const out = stage.decode(chunks, charge, i === stages.length - 1);
      chunks = stage.selfCharged ? out : counted(out, budget);
    }
    for await (const _ of chunks);
  }
}
