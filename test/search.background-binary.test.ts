import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { halfvecValues } from '../daemon/src/search/background.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

// The background sample (search/background.ts) reads chunk vectors in pgvector's binary form: the
// values must be exactly those of the text form the sample was read from before.

describe('search background sample: halfvec read in binary', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ label: 'bgbinary' });
  });
  after(async () => d?.close());

  const both = async (literal: string) => {
    const [row] = await d.deps.sql<{ bin: Uint8Array; text: string }[]>`
      select halfvec_send(v) as bin, v::text as text from (select ${literal}::halfvec as v) x`;
    return { bin: halfvecValues(row!.bin), text: Float32Array.from(JSON.parse(row!.text) as number[]) };
  };

  it('gives the text form’s values, edge values included', async () => {
    const { bin, text } = await both('[0,-0,1,-2,0.5,65504,-65504,6e-8,-6e-8,1e-5,0.1,-3.14159,0.33325]');
    assert.deepEqual([...bin], [...text]);
    assert.equal(bin.length, 13);
    assert.ok(Object.is(bin[1], -0), 'negative zero kept');
  });

  it('gives the text form’s values for random 512-dimensional vectors', async () => {
    const rows = await d.deps.sql<{ bin: Uint8Array; text: string }[]>`
      select halfvec_send(v) as bin, v::text as text
        from (select (select array_agg((random() - 0.5) * 4)::halfvec(512) from generate_series(1, 512) where i > 0) as v
                from generate_series(1, 64) i) x`;
    for (const r of rows) assert.deepEqual([...halfvecValues(r.bin)], [...Float32Array.from(JSON.parse(r.text) as number[])]);
  });

  it('reads an empty vector as no values', () => {
    assert.equal(halfvecValues(new Uint8Array([0, 0, 0, 0])).length, 0);
  });
});
