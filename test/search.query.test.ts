import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeOllama } from './helpers/fake-ollama-server.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const search = (req: ReturnType<typeof http>, key: string, json: Record<string, unknown>) => req('POST', '/api/v1/search/', { key, json });

describe('POST /api/v1/search/', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  let colA: any;
  let colA2: any;
  let colB: any;
  const ids: Record<string, string> = {};
  before(async () => {
    d = await startTestDaemon({ label: 'search', worker: true });
    req = http(d.url);
    a = await createTenant(d, 'sa');
    b = await createTenant(d, 'sb');
    colA = await makeCollection(req, a.key, 'Animals');
    colA2 = await makeCollection(req, a.key, 'Finance');
    colB = await makeCollection(req, b.key, 'Secret B');
    const docs: [string, any, string, string, string?][] = [
      ['cat', colA, 'Cats', 'The cat sat on the mat and purred. Felines sleep a lot.', 'pets, Mammals'],
      ['dog', colA, 'Dogs', 'Dogs love to play fetch in the park with their owners.', 'pets'],
      ['zebra', colA, 'Zebras', 'Zebras have black and white stripes and live on the savanna.', 'wild'],
      ['stocks', colA2, 'Stocks', 'Stock markets fell sharply on Monday amid inflation fears.', 'finance'],
      ['bonds', colA2, 'Bonds', 'Bond yields rose while stock markets stayed flat.', 'finance'],
      ['secret', colB, 'Secret', 'The cat of tenant B is called quillfeather and sleeps on the mat.', 'pets'],
    ];
    for (const [k, col, title, content, tags] of docs)
      ids[k] = (await addText(req, k === 'secret' ? b.key : a.key, col.uuid, title, content, tags)).uuid;
    await waitSettled(
      req,
      a.key,
      Object.entries(ids)
        .filter(([k]) => k !== 'secret')
        .map(([, v]) => v),
    );
    await waitSettled(req, b.key, [ids.secret!]);
  });
  after(async () => d?.close());

  it('answers {query, count, results} with the spec fields, scores in [0,1] sorted', async () => {
    const r = await search(req, a.key, { query: '  cat on the mat  ' });
    assert.equal(r.status, 200);
    assert.equal(r.body.query, 'cat on the mat');
    assert.equal(r.body.count, r.body.results.length);
    assert.ok(r.body.count >= 1 && r.body.count <= 5);
    const top = r.body.results[0];
    for (const f of [
      'content',
      'title',
      'document_id',
      'collection_name',
      'tags',
      'score',
      'chunk_index',
      'page',
      'collection_slug',
      'chunk_id',
    ])
      assert.ok(f in top, f);
    assert.equal(top.document_id, ids.cat);
    assert.equal(top.title, 'Cats');
    assert.deepEqual(top.tags, ['pets', 'Mammals']);
    assert.equal(top.collection_name, 'Animals');
    const scores = r.body.results.map((x: any) => x.score);
    assert.deepEqual(
      [...scores].sort((x, y) => y - x),
      scores,
    );
    assert.ok(scores.every((s: number) => s >= 0 && s <= 1));
    assert.equal(r.body.mode, 'hybrid');
    assert.equal(r.body.fallback, null);
  });

  it('never returns another tenant’s chunks', async () => {
    for (const mode of ['hybrid', 'text', 'vector']) {
      const r = await search(req, a.key, { query: 'quillfeather cat mat', mode, limit: 50 });
      assert.equal(r.status, 200);
      assert.ok(!JSON.stringify(r.body.results).includes('quillfeather'), `leak in ${mode}`);
      assert.ok(!r.body.results.some((x: any) => x.document_id === ids.secret));
    }
    const own = await search(req, b.key, { query: 'quillfeather', mode: 'text' });
    assert.equal(own.body.results[0].document_id, ids.secret);
  });

  it('validates query and limit', async () => {
    for (const body of [{}, { query: '' }, { query: '   ' }, { query: 'x'.repeat(1001) }, { query: 5 }]) {
      const r = await search(req, a.key, body);
      assert.equal(r.status, 400, JSON.stringify(body).slice(0, 40));
      assert.equal(r.body.code, 'VALIDATION_FAILED');
      assert.ok(r.body.fields.query);
    }
    assert.equal((await search(req, a.key, { query: 'x'.repeat(1000) })).status, 200);
    for (const limit of [0, 51, 2.5, 'ten', -1]) {
      const r = await search(req, a.key, { query: 'cat', limit });
      assert.equal(r.status, 400, String(limit));
      assert.ok(r.body.fields.limit);
    }
    assert.equal((await search(req, a.key, { query: 'markets', limit: 1 })).body.results.length, 1);
    const unknown = await search(req, a.key, { query: 'cat', bogus: true });
    assert.equal(unknown.status, 400);
    assert.ok(unknown.body.fields.bogus);
  });

  it('filters by collection (slug, or the legacy collection_id) and 404s for invisible ones', async () => {
    const r = await search(req, a.key, { query: 'markets', collection: colA2.slug, mode: 'text' });
    assert.ok(r.body.results.length >= 1 && r.body.results.every((x: any) => x.collection_slug === colA2.slug));
    const legacy = await search(req, a.key, { query: 'markets', collection_id: colA2.uuid, mode: 'text' });
    assert.deepEqual(
      legacy.body.results.map((x: any) => x.chunk_id),
      r.body.results.map((x: any) => x.chunk_id),
    );
    for (const collection of [colB.slug, 'no-such-collection']) {
      const nf = await search(req, a.key, { query: 'cat', collection });
      assert.equal(nf.status, 404);
      assert.equal(nf.body.code, 'COLLECTION_NOT_FOUND');
    }
  });

  it('supports modes, tags, max_chunks_per_document and explain', async () => {
    const text = await search(req, a.key, { query: 'stripes savanna', mode: 'text', explain: true });
    assert.equal(text.body.results[0].document_id, ids.zebra);
    assert.equal(text.body.results[0].explain.vector, null);
    assert.equal(text.body.results[0].explain.text.rank, 1);
    const vector = await search(req, a.key, { query: 'feline resting', mode: 'vector', explain: true });
    assert.ok(vector.body.results.length >= 1);
    assert.equal(vector.body.results[0].explain.text, null);
    const hybrid = await search(req, a.key, { query: 'cat', explain: true, fusion: 'rrf' });
    assert.equal(hybrid.body.fusion.method, 'rrf');
    assert.ok(hybrid.body.results.some((x: any) => x.explain.text && x.explain.vector));
    const tagged = await search(req, a.key, { query: 'animals markets stripes cat dog', tags: ['FINANCE', 'wild'], limit: 50 });
    assert.ok(tagged.body.results.length >= 1);
    assert.ok(tagged.body.results.every((x: any) => x.tags.some((t: string) => ['finance', 'wild'].includes(t.toLowerCase()))));
    const capped = await search(req, a.key, { query: 'markets stock bond', max_chunks_per_document: 1, limit: 50 });
    const docIds = capped.body.results.map((x: any) => x.document_id);
    assert.equal(new Set(docIds).size, docIds.length);
  });

  it('accepts any user input: quotes and -exclusions work, odd syntax never errors', async () => {
    const phrase = await search(req, a.key, { query: '"stock markets fell"', mode: 'text' });
    assert.deepEqual(
      phrase.body.results.map((x: any) => x.document_id),
      [ids.stocks],
    );
    const excl = await search(req, a.key, { query: 'markets -inflation', mode: 'text' });
    assert.ok(excl.body.results.length >= 1);
    assert.ok(!excl.body.results.some((x: any) => x.document_id === ids.stocks));
    for (const q of ['"unbalanced', '((( OR AND -', ':*&|!', "'; drop table chunks; --", '\\', '-', '""', 'the a an of']) {
      const r = await search(req, a.key, { query: q });
      assert.equal(r.status, 200, q);
    }
  });

  it('drops deleted and replaced documents from results at once', async () => {
    const col = await makeCollection(req, a.key, 'Volatile');
    const doc = await addText(req, a.key, col.uuid, 'Temp', 'The ephemeral glimmerstone appears here.');
    await waitSettled(req, a.key, [doc.uuid]);
    assert.equal((await search(req, a.key, { query: 'glimmerstone', mode: 'text' })).body.count, 1);
    const fd = new FormData();
    fd.append('file', new Blob(['A completely different text about marmalade.'], { type: 'text/plain' }), 'new.txt');
    assert.equal((await req('POST', `/api/v1/documents/${doc.uuid}/replace/`, { key: a.key, body: fd })).status, 200);
    assert.equal((await search(req, a.key, { query: 'glimmerstone', mode: 'text' })).body.count, 0, 'old chunks gone immediately');
    await waitSettled(req, a.key, [doc.uuid]);
    assert.equal((await search(req, a.key, { query: 'marmalade', mode: 'text' })).body.results[0].document_id, doc.uuid);
    assert.equal((await req('DELETE', `/api/v1/documents/${doc.uuid}/`, { key: a.key })).status, 204);
    assert.equal((await search(req, a.key, { query: 'marmalade', mode: 'text' })).body.count, 0);
    assert.equal((await req('DELETE', `/api/v1/collections/${colA2.uuid}/`, { key: a.key })).status, 204);
    assert.equal((await search(req, a.key, { query: 'markets', mode: 'text' })).body.count, 0);
  });

  it('scoped keys search only granted collections; subscriptions follow visibility', async () => {
    const scoped = (await req('POST', '/api/v1/keys/', { key: a.key, json: { name: 's', collections: [colA.slug] } })).body.key;
    const r = await search(req, scoped, { query: 'cat dog zebra markets', limit: 50 });
    assert.ok(r.body.results.length >= 1 && r.body.results.every((x: any) => x.collection_slug === colA.slug));
    const pub = await makeCollection(req, b.key, 'Public B', { is_public: true });
    const pdoc = await addText(req, b.key, pub.uuid, 'Open', 'Public knowledge about heliotropes.');
    await waitSettled(req, b.key, [pdoc.uuid]);
    assert.equal((await search(req, a.key, { query: 'heliotropes', mode: 'text' })).body.count, 0, 'not subscribed');
    assert.equal((await req('POST', `/api/v1/collections/${pub.slug}/subscribe/`, { key: a.key })).status, 200);
    assert.equal((await search(req, a.key, { query: 'heliotropes', mode: 'text' })).body.count, 1);
    assert.equal((await req('PATCH', `/api/v1/collections/${pub.uuid}/`, { key: b.key, json: { is_public: false } })).status, 200);
    assert.equal((await search(req, a.key, { query: 'heliotropes', mode: 'text' })).body.count, 0, 'made private');
  });

  it('500 SEARCH_UNAVAILABLE when the backend fails', async () => {
    await d.deps.sql`alter table chunks rename to chunks_moved`;
    try {
      const r = await search(req, a.key, { query: 'cat' });
      assert.equal(r.status, 500);
      assert.equal(r.body.code, 'SEARCH_UNAVAILABLE');
      assert.ok(!r.text.includes('chunks_moved'), 'no internals leak');
    } finally {
      await d.deps.sql`alter table chunks_moved rename to chunks`;
    }
  });
});

describe('search when the embedding provider is down', () => {
  let d: TestDaemon;
  let ollama: Awaited<ReturnType<typeof startFakeOllama>>;
  before(async () => {
    ollama = await startFakeOllama({ dimension: 64 });
    d = await startTestDaemon({ label: 'fallback', worker: true, env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url } });
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  it('hybrid falls back to text-only with a flag; vector-only answers SEARCH_UNAVAILABLE', async () => {
    const req = http(d.url);
    const t = await createTenant(d);
    const col = await makeCollection(req, t.key, 'Fallback');
    const doc = await addText(req, t.key, col.uuid, 'Doc', 'Resilient search keeps answering with full-text.');
    await waitSettled(req, t.key, [doc.uuid]);
    const ok = await search(req, t.key, { query: 'resilient answering' });
    assert.equal(ok.body.fallback, null);
    ollama.setDown(true);
    const r = await search(req, t.key, { query: 'resilient full-text' });
    assert.equal(r.status, 200);
    assert.equal(r.body.fallback, 'text_only');
    assert.equal(r.body.results[0].document_id, doc.uuid);
    const v = await search(req, t.key, { query: 'something new', mode: 'vector' });
    assert.equal(v.status, 500);
    assert.equal(v.body.code, 'SEARCH_UNAVAILABLE');
    ollama.setDown(false);
    assert.equal((await search(req, t.key, { query: 'brand new query' })).body.fallback, null);
  });
});
