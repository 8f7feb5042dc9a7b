import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import { processDocumentTask } from '../daemon/src/documents/process-document.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// Chunk rows keep what searches read for hundreds of candidates (the tsvector and the halfvec) and
// send their text, read only for the chunks a search returns, compressed to TOAST (migration 112):
// three 512-d rows of about 1.3 KB of text share a heap page, where two did.

function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
const rand = seeded(11);
const SYLLABLES = ['ka', 'lo', 'mer', 'tis', 'van', 'dru', 'pel', 'sor', 'qui', 'nat', 'bex', 'hol', 'rim', 'zu', 'fen', 'gar'];
const coined = () => Array.from({ length: 2 + Math.floor(rand() * 2) }, () => SYLLABLES[Math.floor(rand() * SYLLABLES.length)]).join('');
// A vocabulary drawn with a skew, so a chunk repeats its common words as prose does.
const VOCABULARY = Array.from({ length: 400 }, coined);
const STOPWORDS = ['the', 'of', 'and', 'in', 'to', 'a', 'is', 'that', 'for', 'with', 'as', 'by', 'was', 'were', 'on'];
const word = () =>
  rand() < 0.5 ? STOPWORDS[Math.floor(rand() * STOPWORDS.length)]! : VOCABULARY[Math.floor(VOCABULARY.length * rand() ** 2)]!;
// About 1.3 KB of prose per 370-token chunk, with a tsvector of many distinct lexemes, as SciFact's abstracts.
const TEXT = Array.from({ length: 40 }, () => Array.from({ length: 40 }, word).join(' ') + '.').join('\n\n');

describe('index: chunk rows and their text', () => {
  let d: TestDaemon;
  let ollama: FakeOllama;
  let owner: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let doc: string;

  before(async () => {
    ollama = await startFakeOllama({ dimension: 512, dense: true });
    d = await startTestDaemon({
      label: 'chunk_storage',
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, CHUNK_TOKENS: '370' },
    });
    owner = await createTenant(d, 'storage-owner');
    other = await createTenant(d, 'storage-other');
    req = http(d.url);
    const c = await req('POST', '/api/v1/collections/', { key: owner.key, json: { name: 'Storage' } });
    assert.equal(c.status, 201, c.text);
    const up = await req('POST', `/api/v1/collections/${c.body.uuid}/documents/`, {
      key: owner.key,
      json: { source_type: 'text', content: TEXT },
    });
    assert.equal(up.status, 201, up.text);
    doc = up.body.uuid;
    await processDocumentTask(d.deps)({ documentId: doc, generation: 1 }, {
      job: { attempts: 1, max_attempts: 5 },
    } as unknown as JobHelpers);
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  it('three rows share a page: the text is compressed in TOAST, the tsvector and the halfvec stay in the row', async () => {
    const [row] = await d.deps.sql<{ chunks: number; pages: number; bytes: number; compressed: number; inline_tsv: boolean }[]>`
      select count(*)::int as chunks,
             count(distinct (ctid::text::point)[0])::int as pages,
             avg(octet_length(content))::float8 as bytes,
             count(*) filter (where pg_column_compression(content) is not null)::int as compressed,
             bool_and(pg_column_compression(tsv) is null and pg_column_compression(embedding) is null) as inline_tsv
        from chunks where document_id = ${doc}`;
    assert.ok(row!.chunks >= 6, `${row!.chunks} chunks`);
    assert.ok(row!.bytes > 1000 && row!.bytes < 2000, `chunks of ${row!.bytes} B of text, as SciFact's`);
    assert.equal(row!.compressed, row!.chunks, 'every chunk text is compressed');
    assert.ok(row!.chunks / row!.pages >= 2.5, `${row!.chunks} rows on ${row!.pages} pages`);
    // What TOAST holds is exactly the chunk texts: no tsvector or halfvec went out of the row.
    const [toast] = await d.deps.sql.unsafe<{ values: number; bytes: number }[]>(
      `select count(distinct chunk_id)::int as values, coalesce(sum(octet_length(chunk_data)), 0)::int as bytes from ${await toastTable(d)}`,
    );
    const [texts] = await d.deps.sql<{ bytes: number }[]>`select sum(pg_column_size(content))::int as bytes from chunks`;
    assert.equal(toast!.values, row!.chunks);
    assert.equal(toast!.bytes, texts!.bytes);
    assert.ok(row!.inline_tsv);
  });

  it('search and the document read return the texts whole, to their owner only', async () => {
    const chunkTexts = await d.deps.sql<{ content: string }[]>`select content from chunks where document_id = ${doc} order by chunk_index`;
    const probe = chunkTexts[3]!.content.split(' ').slice(5, 8).join(' ');
    const s = await req('POST', '/api/v1/search/', { key: owner.key, json: { query: probe, mode: 'text', limit: 20 } });
    assert.equal(s.status, 200, s.text);
    const hit = s.body.results.find((r: { chunk_index: number }) => r.chunk_index === 3);
    assert.equal(hit?.content, chunkTexts[3]!.content);
    const g = await req('GET', `/api/v1/documents/${doc}/`, { key: owner.key });
    assert.equal(g.body.status, 'indexed');
    assert.equal(g.body.content_text, TEXT);
    const foreign = await req('POST', '/api/v1/search/', { key: other.key, json: { query: probe, mode: 'text' } });
    assert.equal(foreign.status, 200);
    assert.equal(foreign.body.count, 0);
    assert.equal((await req('GET', `/api/v1/documents/${doc}/`, { key: other.key })).status, 404);
  });
});

async function toastTable(d: TestDaemon): Promise<string> {
  const [r] = await d.deps.sql<{ name: string }[]>`
    select 'pg_toast.' || t.relname as name from pg_class c join pg_class t on t.oid = c.reltoastrelid where c.relname = 'chunks'`;
  return r!.name;
}
