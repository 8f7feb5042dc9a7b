// A stream's filter chain as pdf.js builds it (Parser.filter and Parser.makeFilter in
// pdf.worker.mjs), as a pipeline of decoders over chunks: zlib's own for FlateDecode and
// BrotliDecode, pdf-decoders.ts for the others pdf.js decodes in JavaScript.
import { Readable } from 'node:stream';
import { createBrotliDecompress, createInflate, type BrotliDecompress, type Inflate } from 'node:zlib';
import { type Chunks, ascii85, asciiHex, lzw, runLength } from './pdf-decoders.js';
import { predictor } from './pdf-predictor.js';
import { Name, Ref, type PdfDict, type PdfObjects, type PdfValue } from './pdf-objects.js';

/**
 * One decoding stage: its input's chunks to its output's; `charge` is for a stage that counts its
 * own output; `last`: only the output's length matters (no filter reads it).
 */
export interface Stage {
  decode: (input: Chunks, charge: (bytes: number) => void, last: boolean) => Chunks;
  /** Whether `decode` charges its output itself (else the caller counts what it yields). */
  selfCharged?: boolean;
}

/**
 * The stages pdf.js decodes `dict`'s stream through, in order. The chain stops at a filter whose
 * output cannot be computed here (image codecs: DCT, JPX, JBIG2, CCITT) or that pdf.js refuses
 * (its stream then reads as empty); filters pdf.js passes through (Crypt, unknown names) add none.
 */
export function filterStages(objects: PdfObjects, dict: PdfDict): Stage[] {
  const filter = objects.get(dict, 'F', 'Filter');
  const params = objects.get(dict, 'DP', 'DecodeParms');
  const chain: { name: string; params: PdfValue | undefined }[] = [];
  if (filter instanceof Name) chain.push({ name: filter.name, params });
  else if (Array.isArray(filter)) {
    for (let i = 0; i < filter.length; i++) {
      const f = fetchIfRef(objects, filter[i]);
      // pdf.js throws "Bad filter name": the stream is never read.
      if (!(f instanceof Name)) return [];
      chain.push({ name: f.name, params: Array.isArray(params) && i in params ? fetchIfRef(objects, params[i]) : null });
    }
  }
  const stages: Stage[] = [];
  for (const f of chain) {
    const made = makeStages(objects, f.name, f.params);
    if (made === 'end') break;
    stages.push(...made);
  }
  return stages;
}

const fetchIfRef = (objects: PdfObjects, v: PdfValue | undefined) => (v instanceof Ref ? objects.fetch(v) : v);

/** pdf.js's makeFilter: the stages of one filter, or 'end' when nothing past it can be counted. */
function makeStages(objects: PdfObjects, name: string, params: PdfValue | undefined): Stage[] | 'end' {
  switch (name) {
    case 'Fl':
    case 'FlateDecode':
      return withPredictor(objects, { decode: (input) => flate(input) }, params);
    case 'LZW':
    case 'LZWDecode': {
      let earlyChange: unknown = 1;
      if (params) {
        // pdf.js calls params.has(): a parameter that is not a dictionary throws, and the stream reads as empty.
        if (!(params instanceof Map)) return 'end';
        if (params.has('EarlyChange')) earlyChange = arithmeticValue(objects.get(params, 'EarlyChange'));
      }
      return withPredictor(objects, { decode: (input, _charge, last) => lzw(input, earlyChange, last) }, params);
    }
    case 'A85':
    case 'ASCII85Decode':
      return [{ decode: (input) => ascii85(input) }];
    case 'AHx':
    case 'ASCIIHexDecode':
      return [{ decode: (input) => asciiHex(input) }];
    case 'RL':
    case 'RunLengthDecode':
      return [{ decode: (input) => runLength(input) }];
    case 'BrotliDecode':
      return [{ decode: (input) => zlibStage(input, createBrotliDecompress()) }];
    case 'DCT':
    case 'DCTDecode':
    case 'JPX':
    case 'JPXDecode':
    case 'CCF':
    case 'CCITTFaxDecode':
    case 'JBIG2Decode':
      return 'end';
    default:
      return [];
  }
}

/**
 * A value as pdf.js's arithmetic sees it: numbers, strings, booleans and null as they are, an
 * array as an array (`[5] * 1` is 5), a name or a dictionary as an object (NaN).
 */
function arithmeticValue(v: PdfValue | undefined): unknown {
  return v instanceof Name || v instanceof Map ? {} : v;
}

/** pdf.js's PredictorStream around a Flate or LZW stage: only with a dictionary whose /Predictor is above 1. */
function withPredictor(objects: PdfObjects, stage: Stage, params: PdfValue | undefined): Stage[] | 'end' {
  if (!params || !(params instanceof Map)) return [stage];
  const get = (key: string, alt?: string) => arithmeticValue(alt ? objects.get(params, key, alt) : objects.get(params, key)) as number;
  const p = get('Predictor') || 1;
  if (p <= 1) return [stage];
  // pdf.js throws "Unsupported predictor": the stream reads as empty.
  if (p !== 2 && (p < 10 || p > 15)) return 'end';
  const prediction = { predictor: p, colors: get('Colors') || 1, bits: get('BPC', 'BitsPerComponent') || 8, columns: get('Columns') || 1 };
  return [stage, { decode: (input, charge) => predictor(input, prediction, charge), selfCharged: true }];
}

/** pdf.js's FlateStream reads only data with a valid zlib header (deflate, no preset dictionary, FCHECK). */
export function zlibHeaderAt(data: Uint8Array, at: number): boolean {
  const cmf = data[at];
  const flg = data[at + 1];
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) + flg) % 31 === 0 && (flg & 0x20) === 0;
}

async function* flate(input: Chunks): Chunks {
  const it = input[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let have = 0;
  while (have < 2) {
    const r = await it.next();
    if (r.done) return;
    head.push(r.value);
    have += r.value.length;
  }
  const first = head.length === 1 ? head[0]! : Buffer.concat(head);
  if (!zlibHeaderAt(first, 0)) {
    await it.return?.();
    return;
  }
  async function* rest(): Chunks {
    yield first;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  }
  yield* zlibStage(rest(), createInflate());
}

/**
 * Runs `input` through a zlib stream. Data zlib finds corrupt ends the stage (pdf.js reports it
 * in its own words); an error from upstream (the budget) goes on up.
 */
async function* zlibStage(input: Chunks, z: Inflate | BrotliDecompress): Chunks {
  let upstream: unknown;
  const source = Readable.from(
    (async function* () {
      try {
        yield* input;
      } catch (err) {
        upstream = err;
        throw err;
      }
    })(),
    { objectMode: false },
  );
  source.on('error', (err) => z.destroy(err));
  source.pipe(z);
  try {
    for await (const out of z) yield out as Buffer;
  } catch {
    if (upstream !== undefined) throw upstream;
  } finally {
    source.destroy();
    z.destroy();
  }
}
