// pdf.js's PredictorStream (PNG predictors 10-15, TIFF predictor 2) over chunks, for the stream
// pre-count (pdf-streams.ts): the rows pdf.js allocates, and their bytes when a filter reads them.
import { type Chunks, OUT } from './pdf-decoders.js';

export interface PredictorParams {
  predictor: number;
  colors: number;
  bits: number;
  columns: number;
}

/**
 * pdf.js's PredictorStream: rows of `rowBytes` (a PNG row after its filter-type byte). pdf.js
 * allocates a whole row for any part of one (a TIFF row even for none), so each row is `charge`d
 * (which throws past the budget) before it is built: two bytes of input can be a row of 100 MB.
 * Its output is charged here, row by row, not by the caller.
 */
export async function* predictor(input: Chunks, p: PredictorParams, charge: (bytes: number) => void): Chunks {
  const png = p.predictor !== 2;
  const rowBytes = (p.columns * p.colors * p.bits + 7) >> 3;
  const pixBytes = (p.colors * p.bits + 7) >> 3;
  if (rowBytes <= 0) return;
  let prev: Uint8Array | undefined;
  let row: Uint8Array | undefined;
  let filled = 0;
  let type = -1;
  const finish = function* (this: void): Generator<Uint8Array> {
    // Missing bytes of a short last row read as zero.
    const r = row!;
    if (png) unfilterPng(r, prev, type, pixBytes);
    else unfilterTiff(r, p, pixBytes);
    for (let at = 0; at < r.length; at += OUT) yield r.slice(at, at + OUT);
    prev = r;
    row = undefined;
    filled = 0;
    type = -1;
  };
  for await (const chunk of input) {
    for (let at = 0; at < chunk.length; ) {
      if (png && type < 0) {
        type = chunk[at++]!;
        continue;
      }
      if (!row) {
        charge(rowBytes);
        if (png && type > 4) return;
        row = new Uint8Array(rowBytes);
      }
      const n = Math.min(rowBytes - filled, chunk.length - at);
      row.set(chunk.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === rowBytes) yield* finish();
    }
  }
  if (row) yield* finish();
  // A TIFF row is allocated before its input is read: once more when there is none left.
  if (!png) charge(rowBytes);
}

function unfilterPng(r: Uint8Array, prevRow: Uint8Array | undefined, type: number, pix: number): void {
  const up = (i: number) => prevRow?.[i] ?? 0;
  for (let i = 0; i < r.length; i++) {
    const raw = r[i]!;
    const left = i >= pix ? r[i - pix]! : 0;
    if (type === 1) r[i] = (left + raw) & 0xff;
    else if (type === 2) r[i] = (up(i) + raw) & 0xff;
    else if (type === 3) r[i] = (((up(i) + left) >> 1) + raw) & 0xff;
    else if (type === 4) {
      const ul = i >= pix ? up(i - pix) : 0;
      const pp = left + up(i) - ul;
      const pa = Math.abs(pp - left);
      const pb = Math.abs(pp - up(i));
      const pc = Math.abs(pp - ul);
      r[i] = ((pa <= pb && pa <= pc ? left : pb <= pc ? up(i) : ul) + raw) & 0xff;
    }
  }
}

/** TIFF predictor 2 for 8-bit components (other depths pass unchanged: their size is what counts). */
function unfilterTiff(r: Uint8Array, p: PredictorParams, pix: number): void {
  if (p.bits !== 8) return;
  for (let i = pix; i < r.length; i++) r[i] = (r[i]! + r[i - p.colors]!) & 0xff;
}
