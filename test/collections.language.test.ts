// A text search configuration per collection (README, "Language per collection"): set on create, changed by PATCH
// with a background reindex, French and German stemming, a query parsed once per language, tenants
// kept apart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { reindexCollectionLanguage } from '../daemon/src/collections/language.js';
import { replaceDocumentsChunks } from '../daemon/src/indexing/write-chunks.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const HORSE = 'Le cheval galope dans la prairie verte.';
const HOUSE = 'Die Häuser stehen am Fluss.';

describe('collections: a language per collection', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  let fr: any;
  let en: any;
  let de: any;
  let bFr: any;
  const ids: Record<string, string> = {};

  const search = async (key: string, json: Record<string, unknown>) => {
    const r = await req('POST', '/api/v1/search/', { key, json: { mode: 'text', limit: 20, ...json } });
    assert.equal(r.status, 200, r.text);
    return r.body.results.map((x: any) => x.document_id as string);
  };
  const textConfig = async (id: string) =>
    (await d.deps.sql<{ c: string | null }[]>`select text_config as c from collections where id = ${id}`)[0]!.c;

  before(async () => {
    d = await startTestDaemon({ label: 'language', worker: true });
    req = http(d.url);
    a = await createTenant(d, 'lang-a');
    b = await createTenant(d, 'lang-b');
    fr = await makeCollection(req, a.key, 'Manuel', { language: 'french' });
    en = await makeCollection(req, a.key, 'Handbook');
    de = await makeCollection(req, a.key, 'Vertrag', { language: 'german' });
    bFr = await makeCollection(req, b.key, 'Secret FR', { language: 'french' });
    ids.frHorse = (await addText(req, a.key, fr.uuid, 'Doc', HORSE)).uuid;
    ids.enHorse = (await addText(req, a.key, en.uuid, 'Doc', HORSE)).uuid;
    ids.deHouse = (await addText(req, a.key, de.uuid, 'Doc', HOUSE)).uuid;
    ids.enHouse = (await addText(req, a.key, en.uuid, 'Doc', HOUSE)).uuid;
    ids.bHorse = (await addText(req, b.key, bFr.uuid, 'Doc', `${HORSE} quillfeather`)).uuid;
    await waitSettled(req, a.key, [ids.frHorse!, ids.enHorse!, ids.deHouse!, ids.enHouse!]);
    await waitSettled(req, b.key, [ids.bHorse!]);
  });
  after(async () => d?.close());

  it('is set at creation, defaults to english, and shows on get and list', async () => {
    assert.equal(fr.language, 'french');
    assert.equal(en.language, 'english');
    const g = await req('GET', `/api/v1/collections/${de.uuid}/`, { key: a.key });
    assert.equal(g.body.language, 'german');
    const l = await req('GET', '/api/v1/collections/', { key: a.key });
    assert.deepEqual(
      l.body.map((c: any) => c.language),
      ['french', 'english', 'german'],
    );
    const s = await makeCollection(req, a.key, 'Code', { language: 'simple' });
    assert.equal(s.language, 'simple');
  });

  it('refuses an unknown configuration with 400 VALIDATION_FAILED on language, create and update alike', async () => {
    for (const language of ['klingon', 'English', "english'; drop table chunks; --", '', 'pg_catalog.english']) {
      const c = await req('POST', '/api/v1/collections/', { key: a.key, json: { name: 'Bad', language } });
      assert.equal(c.status, 400, `${language}: ${c.text}`);
      assert.equal(c.body.code, 'VALIDATION_FAILED');
      assert.ok(c.body.fields.language, c.text);
      const u = await req('PATCH', `/api/v1/collections/${en.uuid}/`, { key: a.key, json: { language } });
      assert.equal(u.status, 400, u.text);
      assert.ok(u.body.fields.language, u.text);
    }
    // docsift's own index variants (migration 119) are not languages: refused, and not offered.
    const internal = await req('POST', '/api/v1/collections/', { key: a.key, json: { name: 'Bad', language: 'docsift_english' } });
    assert.equal(internal.status, 400, internal.text);
    assert.doesNotMatch(internal.body.fields.language[0].split('One of:')[1] ?? '', /docsift_/, 'the choices name no internal variant');
    const n = await req('POST', '/api/v1/collections/', { key: a.key, json: { name: 'Bad', language: 7 } });
    assert.equal(n.status, 400);
    assert.ok(n.body.fields.language);
    assert.equal((await req('GET', `/api/v1/collections/${en.uuid}/`, { key: a.key })).body.language, 'english');
  });

  it('indexes a hyphenated compound as its parts and splits slash-joined words, in every mode (migration 119)', async () => {
    const c = await makeCollection(req, a.key, 'Tokens', { language: 'french' });
    const ta = (await addText(req, a.key, c.uuid, 'Doc', 'Le taux de TNF-alpha a doublé.')).uuid;
    const tb = (await addText(req, a.key, c.uuid, 'Doc', 'La voie TNF alpha et 5 cellules/ml.')).uuid;
    await waitSettled(req, a.key, [ta, tb]);
    assert.equal(await textConfig(c.uuid), 'docsift_french', 'indexed with docsift’s variant of its language');
    for (const mode of ['text', 'hybrid']) {
      const got = async (query: string) => (await search(a.key, { query, mode, collection: c.uuid })).sort();
      assert.deepEqual(await got('TNF-alpha'), [ta, tb].sort(), `${mode}: either spelling of the compound`);
      assert.deepEqual(await got('ml'), [tb], `${mode}: the word after the slash`);
      assert.deepEqual(await got('taux -TNF-alpha'), [], `${mode}: excluding the compound excludes its spelled-apart form`);
    }
  });

  it('stems French in a french collection and not in an english one', async () => {
    assert.deepEqual(await search(a.key, { query: 'chevaux', collection: fr.uuid }), [ids.frHorse]);
    assert.deepEqual(await search(a.key, { query: 'chevaux', collection: en.uuid }), []);
    // The English collection still matches the word as English parses it.
    assert.deepEqual(await search(a.key, { query: 'cheval', collection: en.uuid }), [ids.enHorse]);
  });

  it('stems German in a german collection and not in an english one', async () => {
    assert.deepEqual(await search(a.key, { query: 'Haus', collection: de.uuid }), [ids.deHouse]);
    assert.deepEqual(await search(a.key, { query: 'Haus', collection: en.uuid }), []);
  });

  it('parses the query once per language across collections: each collection matches its own lexemes', async () => {
    // french: cheval; english: chevaux. The english copy holds "cheval" but is searched for "chevaux" only.
    assert.deepEqual(await search(a.key, { query: 'chevaux' }), [ids.frHorse]);
    // german: haus; english: "haus" matches no English chunk ("häuser" there).
    assert.deepEqual(await search(a.key, { query: 'Haus' }), [ids.deHouse]);
    const both = await search(a.key, { query: 'chevaux Haus' });
    assert.deepEqual(both.sort(), [ids.frHorse, ids.deHouse].sort());
  });

  it('applies phrases and negations with each collection’s language', async () => {
    assert.deepEqual(await search(a.key, { query: '"chevaux galope"', collection: fr.uuid }), [ids.frHorse]);
    assert.deepEqual(await search(a.key, { query: 'chevaux -prairies', collection: fr.uuid }), []);
    assert.deepEqual(await search(a.key, { query: '"Häusern" -fluss' }), []);
    assert.deepEqual(await search(a.key, { query: '"Häusern"' }), [ids.deHouse]);
  });

  it('keeps tenants apart: no cross-tenant update, search or leak of stems', async () => {
    const u = await req('PATCH', `/api/v1/collections/${fr.uuid}/`, { key: b.key, json: { language: 'english' } });
    assert.equal(u.status, 404, u.text);
    assert.equal((await req('GET', `/api/v1/collections/${fr.uuid}/`, { key: a.key })).body.language, 'french');
    assert.deepEqual(await search(b.key, { query: 'chevaux' }), [ids.bHorse]);
    assert.deepEqual(await search(a.key, { query: 'chevaux quillfeather' }), [ids.frHorse]);
    const other = await req('POST', '/api/v1/search/', { key: b.key, json: { query: 'chevaux', mode: 'text', collection: fr.uuid } });
    assert.equal(other.status, 404, other.text);
    assert.ok(!other.text.includes('cheval'));
  });

  it('a change reindexes in the background; searches keep the former language until it commits', async () => {
    const c = await makeCollection(req, a.key, 'Switch');
    const doc = (await addText(req, a.key, c.uuid, 'Doc', HORSE)).uuid;
    await waitSettled(req, a.key, [doc]);
    assert.deepEqual(await search(a.key, { query: 'chevaux', collection: c.uuid }), []);
    // As a PATCH leaves it until the job runs: language changed, index still english.
    await d.deps.sql`update collections set language = 'french' where id = ${c.uuid}`;
    assert.equal((await req('GET', `/api/v1/collections/${c.uuid}/`, { key: a.key })).body.language, 'french');
    assert.deepEqual(await search(a.key, { query: 'cheval', collection: c.uuid }), [doc], 'the english lists, parsed as english');
    assert.deepEqual(await search(a.key, { query: 'chevaux', collection: c.uuid }), []);
    assert.deepEqual(await reindexCollectionLanguage(d.deps, c.uuid), { chunks: 1 });
    assert.equal(await textConfig(c.uuid), 'docsift_french');
    assert.deepEqual(await search(a.key, { query: 'chevaux', collection: c.uuid }), [doc]);
    assert.deepEqual(await reindexCollectionLanguage(d.deps, c.uuid), { chunks: 0 }, 'idempotent');
  });

  it('a chunk write waits for a reindex in progress and then uses the new language', async () => {
    const c = await makeCollection(req, a.key, 'Racing');
    const [doc] = await d.deps.sql<{ id: string }[]>`
      insert into documents (collection_id, title, source_type, status) values (${c.uuid}, 'Doc', 'text', 'pending') returning id`;
    const [m] = await d.deps.sql<{ model: string; dim: number }[]>`
      select embedding_model as model, vector_dims(embedding) as dim from chunks where collection_id = ${fr.uuid} limit 1`;
    // What the reindex job holds while it rewrites: the row FOR UPDATE, text_config switched, not yet committed.
    const job = await d.deps.sql.reserve();
    try {
      await job`begin`;
      await job`select 1 from collections where id = ${c.uuid} for update`;
      await job`update collections set language = 'french', text_config = 'french' where id = ${c.uuid}`;
      const write = d.deps.sql.begin((tx) =>
        replaceDocumentsChunks(
          tx,
          [
            {
              documentId: doc!.id,
              collectionId: c.uuid,
              generation: 1,
              title: 'Doc',
              chunks: [{ content: HORSE, chunkIndex: 0, page: null, tokenCount: 10, start: 0, end: HORSE.length }],
              vectors: [Array.from({ length: m!.dim }, (_, i) => (i === 0 ? 1 : 0))],
            },
          ],
          { model: m!.model, textConfig: 'english', now: new Date() },
        ),
      );
      // Until the writer waits on a lock (on the row, or on its FK check without the FOR KEY SHARE).
      const end = Date.now() + 10_000;
      while (
        !(await d.deps.sql`select 1 from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`).length &&
        Date.now() < end
      )
        await new Promise((r) => setTimeout(r, 20));
      await job`commit`;
      await write;
    } finally {
      job.release();
    }
    const [row] = await d.deps.sql<{ ok: boolean }[]>`
      select tsv = to_tsvector('french', 'Doc ' || ${HORSE}) as ok from chunks where document_id = ${doc!.id}`;
    assert.equal(row!.ok, true, 'written with the configuration committed by the reindex');
  });

  it('PATCH language enqueues the reindex job, which the worker runs', async () => {
    const c = await makeCollection(req, a.key, 'Patched');
    const doc = (await addText(req, a.key, c.uuid, 'Doc', HOUSE)).uuid;
    await waitSettled(req, a.key, [doc]);
    assert.deepEqual(await search(a.key, { query: 'Haus', collection: c.uuid }), []);
    const u = await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: a.key, json: { language: 'german' } });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.body.language, 'german');
    const end = Date.now() + 30_000;
    while ((await textConfig(c.uuid)) !== 'docsift_german') {
      assert.ok(Date.now() < end, 'the reindex job did not run');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(await search(a.key, { query: 'Haus', collection: c.uuid }), [doc]);
    // A document added afterwards is indexed with the new language.
    const later = (await addText(req, a.key, c.uuid, 'Neu', 'Mehrere Häuser brennen.')).uuid;
    await waitSettled(req, a.key, [later]);
    assert.deepEqual((await search(a.key, { query: 'Haus', collection: c.uuid })).sort(), [doc, later].sort());
    // A PATCH without language leaves it alone.
    const r = await req('PATCH', `/api/v1/collections/${c.uuid}/`, { key: a.key, json: { description: 'x' } });
    assert.equal(r.body.language, 'german');
  });
});
