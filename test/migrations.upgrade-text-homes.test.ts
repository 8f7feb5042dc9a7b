// Upgrading a database whose documents kept text in `documents.content_text` (rows written before
// migrations 080 and 110, and indexed text the chunks did not rebuild) to the two homes of
// migration 118: the chunks when they rebuild the text, else document_texts. Every document reads
// the same text before and after, the column is gone, and the documents are processed and restarted
// from their new home.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import type { Sql } from '../daemon/src/db/client.js';
import { processDocumentTask } from '../daemon/src/documents/process-document.js';
import { http, type TestDaemon } from './helpers/daemon.js';
import { insertTenant } from './helpers/old-schema.js';
import { beforeMigration, insertOldChunk, type Upgrade } from './helpers/upgrade.js';

const TEXTS = {
  indexedInRow: 'Indexed text kept in the row about the canal toll house.',
  pendingInRow: 'Pending text kept in the row about the windmill miller.',
  failedBoth: 'Failed text waiting in its table about the tidal mill.',
  inChunks: 'Indexed text rebuilt from its chunk about the signal box.',
  fileInRow: 'Extracted file text the chunks did not rebuild, about a toll gate.',
};
type Name = keyof typeof TEXTS;

describe('upgrading to one home per document text (migration 118)', () => {
  let up: Upgrade;
  let sql: Sql;
  let d: TestDaemon;
  let key: string;
  let otherKey: string;
  const ids = {} as Record<Name, string>;
  let before118: Record<string, string>;

  const readAll = async (fn: string) =>
    Object.fromEntries(
      (await sql.unsafe<{ id: string; text: string }[]>(`select id::text, ${fn} as text from documents`)).map((r) => [r.id, r.text]),
    );

  before(async () => {
    up = await beforeMigration('document_text_two_homes', 'upgrade_homes');
    sql = up.sql;
    const { applied, version } = up;
    assert.ok(applied.includes(110) && applied.every((v) => v < version), `applied ${applied.join(',')}`);
    const tenant = (label: string) => insertTenant(sql, label);
    const owner = await tenant('uph-owner');
    key = owner.key;
    otherKey = (await tenant('uph-other')).key;
    const doc = async (name: Name, cols: { source_type: string; status: string; content_text: string; text_joins?: number[] }) => {
      const [r] = await sql<{ id: string }[]>`
        insert into documents (collection_id, title, source_type, status, chunks_count, content_text, text_joins, indexed_at)
        values (${owner.collection}, ${name}, ${cols.source_type}, ${cols.status}, ${cols.status === 'indexed' ? 1 : 0},
                ${cols.content_text}, ${cols.text_joins ?? null}, ${cols.status === 'indexed' ? new Date() : null})
        returning id`;
      ids[name] = r!.id;
      if (cols.status === 'indexed')
        await insertOldChunk(sql, {
          document: r!.id,
          collection: owner.collection,
          text: TEXTS[name],
          tsv: sql`to_tsvector('english', ${TEXTS[name]})`,
        });
    };
    await doc('indexedInRow', { source_type: 'text', status: 'indexed', content_text: TEXTS.indexedInRow });
    await doc('pendingInRow', { source_type: 'text', status: 'pending', content_text: TEXTS.pendingInRow });
    await doc('failedBoth', { source_type: 'text', status: 'failed', content_text: 'an older copy the table overrides' });
    await sql`insert into document_texts (document_id, content) values (${ids.failedBoth}, ${TEXTS.failedBoth})`;
    await doc('inChunks', { source_type: 'text', status: 'indexed', content_text: '', text_joins: [] });
    await doc('fileInRow', { source_type: 'file', status: 'indexed', content_text: TEXTS.fileInRow });
    before118 = await readAll('document_text(id, content_text, text_joins)');
    d = await up.finish();
  });
  after(async () => up?.close());

  const waiting = async (id: string) =>
    (await sql<{ content: string }[]>`select content from document_texts where document_id = ${id}`)[0]?.content ?? null;

  it('every document reads the same text before and after, and the column is gone', async () => {
    assert.deepEqual(await readAll('document_text(id, text_joins)'), before118);
    for (const name of Object.keys(TEXTS) as Name[]) assert.equal(before118[ids[name]], TEXTS[name], name);
    const [c] = await sql<{ n: number }[]>`
      select count(*)::int as n from information_schema.columns where table_name = 'documents' and column_name = 'content_text'`;
    assert.equal(c!.n, 0);
  });

  it('text the chunks do not rebuild is in document_texts, text they rebuild is only in the chunks', async () => {
    assert.equal(await waiting(ids.indexedInRow), TEXTS.indexedInRow);
    assert.equal(await waiting(ids.pendingInRow), TEXTS.pendingInRow);
    assert.equal(await waiting(ids.failedBoth), TEXTS.failedBoth, 'the table row won over the older copy');
    assert.equal(await waiting(ids.fileInRow), TEXTS.fileInRow);
    assert.equal(await waiting(ids.inChunks), null);
  });

  it('the API serves each text to its organization only', async () => {
    for (const name of Object.keys(TEXTS) as Name[]) {
      const g = await http(d.url)('GET', `/api/v1/documents/${ids[name]}/`, { key });
      assert.equal(g.status, 200, g.text);
      assert.equal(g.body.content_text, TEXTS[name], name);
      assert.equal((await http(d.url)('GET', `/api/v1/documents/${ids[name]}/`, { key: otherKey })).status, 404);
    }
  });

  it('a pending text document is indexed from its new home, which it then leaves', async () => {
    await processDocumentTask(d.deps)({ documentId: ids.pendingInRow, generation: 1 }, {
      job: { attempts: 1, max_attempts: 5 },
    } as unknown as JobHelpers);
    const [r] = await sql<{ status: string; text_joins: number[] | null }[]>`
      select status, text_joins from documents where id = ${ids.pendingInRow}`;
    assert.deepEqual({ ...r }, { status: 'indexed', text_joins: [] });
    assert.equal(await waiting(ids.pendingInRow), null);
    const g = await http(d.url)('GET', `/api/v1/documents/${ids.pendingInRow}/`, { key });
    assert.equal(g.body.content_text, TEXTS.pendingInRow);
  });

  it("a reprocess keeps a text document's text, and drops a file document's (extracted again)", async () => {
    for (const name of ['indexedInRow', 'fileInRow'] as const) {
      const r = await http(d.url)('POST', `/api/v1/documents/${ids[name]}/reprocess/`, { key });
      assert.equal(r.status, 200, r.text);
    }
    assert.equal(await waiting(ids.indexedInRow), TEXTS.indexedInRow);
    assert.equal(await waiting(ids.fileInRow), null);
  });
});
