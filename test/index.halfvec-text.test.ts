// The chunk writer sends embeddings in a short text form (daemon/src/indexing/halfvec-text.ts): what
// PostgreSQL stores from it must be the very halfvec the full text (pgvector's toSql) gives,
// rounding ties, subnormals and the range's edges included, and what a halfvec refuses must still
// be refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toSql } from 'pgvector';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { halfBits, halfValue, halfvecText } from '../daemon/src/indexing/halfvec-text.js';
import { vectorText } from '../daemon/src/indexing/write-chunks.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

let db: TestDatabase;
let sql: Sql;

before(async () => {
  db = await createTestDatabase('halfvec_text');
  sql = createSql(db.url, { max: 1 });
});
after(async () => {
  await sql?.end();
  await db?.drop();
});

function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Each pair as PostgreSQL stores it: halfvec_out of the full text and of the short one. */
async function stored(vectors: number[][]): Promise<{ full: string; short: string }[]> {
  return sql<{ full: string; short: string }[]>`
    select f::halfvec::text as full, s::halfvec::text as short
      from unnest(${vectors.map((v) => toSql(v) as string)}::text[], ${vectors.map((v) => vectorText(v))}::text[]) as t(f, s)`;
}

describe('halfvec text of embeddings', () => {
  it('stores the same halfvec as the full text for unit vectors, at about a third of the text', async () => {
    const rand = seeded(7);
    const vectors = Array.from({ length: 200 }, () => {
      const v = Array.from({ length: 512 }, () => rand() * 2 - 1);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    });
    for (const r of await stored(vectors)) assert.equal(r.short, r.full);
    const fullChars = vectors.reduce((s, v) => s + (toSql(v) as string).length, 0);
    const shortChars = vectors.reduce((s, v) => s + vectorText(v).length, 0);
    assert.ok(shortChars < fullChars / 2.5, `short text ${shortChars} chars, full ${fullChars}`);
  });

  it('rounds exactly as halfvec_in does: ties to even, subnormals, the largest half, signed zero', async () => {
    const edges = [
      0,
      -0,
      1,
      -1,
      1 + 2 ** -11, // tie between 1 and 1 + 2^-10: to even (1)
      1 + 3 * 2 ** -11, // tie: to even (1 + 2^-9)
      1 + 2 ** -11 + 2 ** -20, // just past the tie
      2048 + 1, // tie at a coarser spacing
      65504, // largest half
      65519.99, // still rounds down to 65504
      -65504,
      2 ** -14, // smallest normal
      2 ** -14 - 2 ** -25, // rounds up to the smallest normal
      2 ** -24, // smallest subnormal
      2 ** -25, // tie between 0 and the smallest subnormal: to even (0)
      2 ** -25 + 2 ** -40,
      3 * 2 ** -25, // tie between two subnormals
      -1e-9, // rounds to -0
      1e-8,
      0.1,
      1 / 3,
      -Math.SQRT1_2,
      123.456,
      0.000123456789,
    ];
    const rows = await stored(edges.map((x) => [x, 1]));
    for (const [i, r] of rows.entries()) assert.equal(r.short, r.full, `value ${Object.is(edges[i], -0) ? '-0' : edges[i]}`);
  });

  it('reads every finite half back as itself', () => {
    for (let h = 0; h < 0x10000; h++) {
      if (((h >> 10) & 0x1f) === 0x1f) continue; // infinities and NaNs
      assert.equal(halfBits(halfValue(h)), h);
    }
  });

  it('still lets PostgreSQL refuse what a halfvec cannot hold', async () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -Number.POSITIVE_INFINITY, 65520, -1e6, 1e39]) {
      const v = [0.5, bad, 0.25];
      assert.equal(halfvecText(v), toSql(v));
      await assert.rejects(sql`select ${vectorText(v)}::halfvec`, /halfvec|out of range|NaN|infinite/i, `value ${bad}`);
    }
  });
});
