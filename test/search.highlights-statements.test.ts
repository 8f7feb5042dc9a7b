import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tx } from '../daemon/src/db/client.js';
import { type ExtraLexeme, highlightSpans, type HighlightInput } from '../daemon/src/search/highlights.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// Highlights with the configurations hydrate read (search/highlights.ts): the same spans as when
// highlights read them, and no statement at all for a query and page seen before.

describe('search highlights: statements', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  const chunks: (HighlightInput & { textConfig: string | null })[] = [];
  const extra: ExtraLexeme[] = [];
  const opts = { textConfig: 'english', timeoutMs: 5000 };
  /** A connection that fails the test if any statement runs on it. */
  const noStatement = (() => {
    throw new Error('a statement ran');
  }) as unknown as Tx;

  before(async () => {
    d = await startTestDaemon({ label: 'hlstmts', worker: true });
    req = http(d.url);
    [a, b] = await Promise.all([createTenant(d, 'hls-a'), createTenant(d, 'hls-b')]);
    const en = await makeCollection(req, a.key, 'english');
    const fr = await makeCollection(req, a.key, 'french', { language: 'french' });
    const zh = await makeCollection(req, b.key, 'chinese', { language: 'chinese' });
    const ids = [
      (await addText(req, a.key, en.uuid, 'En', 'She runs daily, and running keeps her fit. The ledgers hold routes.')).uuid,
      (await addText(req, a.key, fr.uuid, 'Fr', 'Elle court chaque jour; les coureurs courent vite.')).uuid,
    ];
    const zhId = (await addText(req, b.key, zh.uuid, 'Zh', '墨尔本是州首府, running too.')).uuid;
    await waitSettled(req, a.key, ids);
    await waitSettled(req, b.key, [zhId]);
    const rows = await d.deps.sql<{ id: string; content: string; text_config: string | null; no: number }[]>`
      select c.id, c.content, col.text_config, col.no from chunks c join collections col on col.id = c.collection_id
       where c.document_id = any(${[...ids, zhId]}::uuid[]) order by c.document_id, c.chunk_index`;
    for (const r of rows) chunks.push({ chunkId: r.id, content: r.content, textConfig: r.text_config, collectionNo: r.no });
    extra.push({ lexeme: 'ledger', nos: [rows.find((r) => r.content.includes('ledgers'))!.no] });
  });
  after(async () => d?.close());

  const queries = ['running', 'courir coureurs', 'the ledgers -fit', '墨尔本 首府', 'runs "keeps her"', 'zzzz'];

  it('marks the same spans with the configurations given as when it reads them', async () => {
    for (const q of queries) {
      // Given first: each query is parsed by the statement of the configurations given, then by the reading one.
      const given = await highlightSpans(d.deps.sql, opts, q, chunks, extra);
      const read = await highlightSpans(
        d.deps.sql,
        opts,
        q,
        chunks.map(({ chunkId, content }) => ({ chunkId, content })),
        extra,
      );
      assert.deepEqual([...given], [...read], q);
      assert.ok(q === 'zzzz' || [...given.values()].some((s) => s.length), `${q}: something is marked`);
    }
  });

  it('runs no statement for a query and page seen before', async () => {
    const q = 'running routes';
    const first = await highlightSpans(d.deps.sql, opts, q, chunks);
    assert.deepEqual(await highlightSpans(noStatement, opts, q, chunks), first);
    await assert.rejects(highlightSpans(noStatement, opts, 'a query never seen', chunks), /a statement ran/);
  });

  it('reads a chunk without a configuration given, and a chunk no longer there marks nothing', async () => {
    const gone = { chunkId: '00000000-0000-4000-8000-000000000000', content: 'running running' };
    const spans = await highlightSpans(d.deps.sql, opts, 'running', [...chunks, gone]);
    assert.deepEqual(spans.get(gone.chunkId), []);
    assert.ok(spans.get(chunks.find((c) => c.content.startsWith('She runs'))!.chunkId)!.length > 0);
  });
});
