import { toSql } from 'pgvector';

/**
 * pgvector's text form of an embedding that is stored as `halfvec`, written short.
 *
 * Chunks keep their embeddings as halfvec (11 significant bits, about 3.3 decimal digits), but an
 * embedder's numbers printed in full (`toSql`: up to 17 digits each, about 10 KB per 512-d vector)
 * cost the worker the formatting, the socket, and PostgreSQL the parsing of every digit, only for
 * halfvec_in to round them away. Here each number is rounded as halfvec_in rounds it (to float4,
 * then to the nearest half, ties to even) and written as the shortest decimal that reads back as
 * that same half: the stored halfvec is the same, from a third of the text. Numbers a halfvec
 * refuses (NaN, ±Infinity, beyond ±65,504) make the whole vector fall back to the full text, so
 * PostgreSQL refuses it exactly as it refuses the full text.
 */
export function halfvecText(v: readonly number[]): string {
  const parts = new Array<string>(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    const h = halfBits(x);
    if (h < 0) return toSql(v as number[]) as string;
    // A negative zero prints as "0" in the full text (a positive zero), a tiny negative number
    // as itself (a negative zero): the same here.
    parts[i] = x === 0 ? '0' : halfDecimal(h);
  }
  return `[${parts.join(',')}]`;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * IEEE binary16 bits of `x` rounded as PostgreSQL reads it into a halfvec (strtof to float4, then
 * to the nearest half, ties to even), or -1 when a halfvec cannot hold it. Bit arithmetic on the
 * float4: this runs for every number of every embedding.
 */
export function halfBits(x: number): number {
  f32[0] = x;
  const u = u32[0]!;
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  if (exp === 0xff) return -1; // NaN or infinite (as float4)
  const e = exp - 112; // the half's biased exponent
  if (e <= 0) {
    // a half subnormal (or zero): the 24-bit significand shifted right, rounded to even
    const shift = 14 - e;
    if (shift > 24) return sign;
    const m = (u & 0x7fffff) | 0x800000;
    let q = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (q & 1) === 1)) q++;
    return sign | q;
  }
  let q = (u & 0x7fffff) >>> 13;
  const rem = u & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (q & 1) === 1)) q++;
  const bits = (e << 10) + q; // a carry out of the significand moves into the exponent
  return bits >= 0x7c00 ? -1 : sign | bits; // past 65,504: halfvec_in refuses it
}

/** The value of finite half bits. */
export function halfValue(h: number): number {
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  const a = e === 0 ? m * 2 ** -24 : (1024 + m) * 2 ** (e - 25);
  return h & 0x8000 ? -a : a;
}

let table: string[] | undefined;

/** Shortest decimal (at most 5 significant digits suffice for binary16) that reads back as half `h`. */
function halfDecimal(h: number): string {
  table ??= new Array<string>(0x10000);
  let s = table[h];
  if (s === undefined) {
    const value = halfValue(h);
    // "-0" keeps a negative zero's sign (the full text's "-1e-9" gives one too).
    s = h === 0x8000 ? '-0' : String(value);
    for (let p = 1; p <= 5 && h !== 0x8000; p++) {
      const t = value.toPrecision(p);
      if (halfBits(Number(t)) === h) {
        s = String(Number(t)); // "1.0e-5" style and trailing zeros normalised
        if (s.length > t.length) s = t;
        break;
      }
    }
    table[h] = s;
  }
  return s;
}
