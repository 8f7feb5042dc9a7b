import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Sql } from '../daemon/src/db/client.js';
import { reindexText } from '../daemon/src/indexing/reindex.js';
import { insertIndexedTexts } from './helpers/bm25.js';
import { makeCollection } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// text_vocabulary (migration 121): every lexeme some list holds, once, for typo tolerance to find
// near words in. The fold adds the lexemes of lists it creates and drops those whose last list is
// gone, so it follows the postings as documents come and go.

async function vocabulary(sql: Sql, words: string[]): Promise<string[]> {
  const rows = await sql<{ lexeme: string }[]>`select lexeme from text_vocabulary where lexeme = any(${words}::text[]) order by 1`;
  return rows.map((r) => r.lexeme);
}

describe('the text vocabulary', () => {
  let d: TestDaemon;
  let t: Tenant;
  let a: string;
  let b: string;
  const fold = () => d.deps.sql`select fold_text_stats()`;
  before(async () => {
    d = await startTestDaemon({ label: 'vocab' });
    t = await createTenant(d, 'vocab');
    a = (await makeCollection(http(d.url), t.key, 'Vocab A')).uuid;
    b = (await makeCollection(http(d.url), t.key, 'Vocab B')).uuid;
  });
  after(async () => d?.close());

  it('gains the lexemes of new lists at the fold, not before', async () => {
    await insertIndexedTexts(d.deps.sql, t.userId, a, ['quokka marsupial island', 'wombat burrow']);
    await insertIndexedTexts(d.deps.sql, t.userId, b, ['wombat marsupial']);
    assert.deepEqual(await vocabulary(d.deps.sql, ['quokka', 'wombat', 'marsupi', 'burrow']), [], 'fresh rows are not in it yet');
    await fold();
    assert.deepEqual(await vocabulary(d.deps.sql, ['quokka', 'wombat', 'marsupi', 'burrow', 'island']), [
      'burrow',
      'island',
      'marsupi',
      'quokka',
      'wombat',
    ]);
    const [dup] = await d.deps.sql<{ n: number }[]>`select count(*)::int as n from text_vocabulary where lexeme = 'wombat'`;
    assert.equal(dup!.n, 1, 'a lexeme held by two collections is there once');
  });

  it('loses a lexeme when its last list is emptied, keeps one another collection still holds', async () => {
    const sql = d.deps.sql;
    await sql`delete from chunks where collection_id = ${a} and content = 'wombat burrow'`;
    await fold();
    // "burrow" was only in that chunk; "wombat" is still in collection B.
    assert.deepEqual(await vocabulary(sql, ['burrow', 'wombat', 'quokka']), ['quokka', 'wombat']);
  });

  it('loses the lexemes of a collection left without chunks', async () => {
    const sql = d.deps.sql;
    await sql`delete from chunks where collection_id = ${a}`;
    await fold();
    assert.deepEqual(await vocabulary(sql, ['quokka', 'island', 'marsupi', 'wombat']), ['marsupi', 'wombat']);
  });

  it('is rebuilt with the index by reindex', async () => {
    const sql = d.deps.sql;
    await sql`insert into text_vocabulary (lexeme) values ('stale') on conflict do nothing`;
    await reindexText(sql, { k1: 1.2, b: 0.75 });
    assert.deepEqual(await vocabulary(sql, ['stale', 'marsupi', 'wombat']), ['marsupi', 'wombat']);
  });

  it('finds near lexemes by trigram similarity at the threshold asked, and leaves the setting as it was', async () => {
    const sql = d.deps.sql;
    const rows = await sql<
      { term: string; lexeme: string }[]
    >`select term, lexeme from text_vocabulary_similar(${['wombta', 'marsupail']}::text[], 0.2) order by 1, 2`;
    assert.deepEqual(
      rows.map((r) => `${r.term}:${r.lexeme}`),
      ['marsupail:marsupi', 'wombta:wombat'],
    );
    const [s] = await sql<{ v: string }[]>`select current_setting('pg_trgm.similarity_threshold') as v`;
    assert.equal(s!.v, '0.3');
  });
});
