import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// The failure this file guards against: hybrid search answered every query, even `zzqx nonexistent
// term`, with the nearest (unrelated) chunks of the vector channel. Built-in model, real worker and
// database.
const NONSENSE = 'zzqx nonexistent term';
type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

describe('hybrid search keeps vector-only chunks only above the relevance floor', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  const search = (json: Record<string, unknown>, key = t.key) => req('POST', '/api/v1/search/', { key, json });
  const ids: Record<string, string> = {};
  before(async () => {
    d = await startTestDaemon({ label: 'floor', worker: true });
    req = http(d.url);
    t = await createTenant(d, 'floor');
    other = await createTenant(d, 'floor_other');
    const col = await makeCollection(req, t.key, 'Household');
    const docs: [string, string, string][] = [
      ['cat', 'Cats', 'The cat sat on the mat and purred. Felines sleep for most of the day.'],
      ['bread', 'Baking', 'Knead the dough, let it rise overnight and bake the loaf until golden.'],
      ['tax', 'Taxes', 'File your income tax return before April; deductions lower what you owe.'],
    ];
    for (const [k, title, content] of docs) ids[k] = (await addText(req, t.key, col.uuid, title, content)).uuid;
    await waitSettled(req, t.key, Object.values(ids));
    // Another tenant's lookalike text must not count for anyone else's floor either.
    const oc = await makeCollection(req, other.key, 'Other');
    await waitSettled(req, other.key, [(await addText(req, other.key, oc.uuid, 'zzqx', 'zzqx nonexistent term zzqx')).uuid]);
  });
  after(async () => d?.close());

  it('answers 0 results for a query with no lexical match and nothing semantically close', async () => {
    for (const mode of ['hybrid', 'text'] as const) {
      const r = await search({ query: NONSENSE, mode, limit: 50 });
      assert.equal(r.status, 200);
      assert.equal(r.body.count, 0, `${mode}: ${JSON.stringify(r.body.results.map((x: any) => [x.title, x.score]))}`);
      assert.deepEqual(r.body.results, []);
    }
    // Vector mode is nearest-neighbour search: it still lists the nearest chunks unless asked for a floor.
    const v = await search({ query: NONSENSE, mode: 'vector', limit: 50 });
    assert.equal(v.body.count, 3);
    const own = await search({ query: NONSENSE }, other.key);
    assert.equal(own.body.count, 1, 'a real lexical match is still found');
  });

  it('keeps lexical matches and close paraphrases, and reports the floor in explain', async () => {
    const lexical = await search({ query: 'overnight dough', explain: true });
    assert.equal(lexical.body.results[0].document_id, ids.bread);
    assert.ok(lexical.body.results.every((x: any) => x.explain.text || x.explain.vector.score >= lexical.body.explain.min_score.value));
    const ex = lexical.body.explain;
    assert.equal(ex.embedding_model, 'use-lite-512');
    assert.equal(ex.min_score.source, 'model_default');
    assert.equal(ex.min_score.basis, 'measured');
    assert.match(ex.min_score.note, /SciFact/);
    assert.equal(typeof ex.min_score.value, 'number');
    assert.equal(ex.fusion.basis, 'measured');
    assert.equal(ex.fusion.source, 'model_default');
    // No word in common with the cat document, but the same meaning.
    const para = await search({ query: 'kitten napping', explain: true });
    const vectorOnly = para.body.results.filter((x: any) => !x.explain.text);
    assert.ok(vectorOnly.length >= 1 && vectorOnly[0].document_id === ids.cat, JSON.stringify(para.body));
    assert.ok(vectorOnly.every((x: any) => x.explain.vector.score >= ex.min_score.value));
    assert.ok(para.body.explain.min_score.dropped >= 1, 'the unrelated documents were dropped');
  });

  it('min_score sets the caller’s own floor (hybrid: vector-only chunks; vector: every chunk)', async () => {
    const all = await search({ query: NONSENSE, min_score: 0, explain: true, limit: 50 });
    assert.equal(all.body.count, 3, 'with the floor at 0 the nearest chunks come back');
    assert.ok(all.body.results.every((x: any) => x.explain.text === null));
    assert.equal(all.body.explain.min_score.source, 'request');
    assert.equal(all.body.explain.min_score.value, 0);
    const strict = await search({ query: 'kitten napping', min_score: 0.99 });
    assert.equal(strict.body.count, 0);
    const lexicalSurvives = await search({ query: 'income tax', min_score: 1 });
    assert.equal(lexicalSurvives.body.results[0].document_id, ids.tax, 'text matches are never dropped');
    const v = await search({ query: 'kitten napping', mode: 'vector', min_score: 0.99 });
    assert.equal(v.body.count, 0);
    const some = await search({ query: 'kitten napping', mode: 'vector', min_score: 0.2, limit: 50 });
    assert.ok(some.body.results.every((x: any) => x.score >= 0.2));
  });

  it('validates min_score', async () => {
    assert.equal((await search({ query: 'cat', min_score: 0.5 })).status, 200);
    for (const min_score of [1.5, -2, 'high', null]) {
      const r = await search({ query: 'cat', min_score });
      assert.equal(r.status, 400, String(min_score));
      assert.equal(r.body.code, 'VALIDATION_FAILED');
      assert.ok(r.body.fields.min_score, JSON.stringify(r.body));
    }
  });

  it('MCP search_documents says "No results" for the same query, and takes min_score', async () => {
    const client = new Client({ name: 'docsift-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(d.url + '/mcp'), { requestInit: { headers: { authorization: `Bearer ${t.key}` } } }),
    );
    try {
      const none = (await client.callTool({ name: 'search_documents', arguments: { query: NONSENSE } })) as ToolResult;
      assert.ok(!none.isError);
      assert.equal(none.structuredContent.count, 0);
      assert.match(none.content[0]!.text, /^No results for "zzqx nonexistent term"/);
      const floored = (await client.callTool({ name: 'search_documents', arguments: { query: NONSENSE, min_score: 0 } })) as ToolResult;
      assert.equal(floored.structuredContent.count, 3);
    } finally {
      await client.close();
    }
  });
});

describe('HYBRID_MIN_SIMILARITY sets the instance’s floor', () => {
  let d: TestDaemon;
  after(async () => d?.close());

  it('overrides the model default, and min_score overrides it', async () => {
    d = await startTestDaemon({ label: 'floor_setting', worker: true, env: { HYBRID_MIN_SIMILARITY: '0' } });
    const req = http(d.url);
    const t = await createTenant(d, 'floor_setting');
    const col = await makeCollection(req, t.key, 'One');
    await waitSettled(req, t.key, [(await addText(req, t.key, col.uuid, 'Cats', 'The cat sat on the mat.')).uuid]);
    const r = await req('POST', '/api/v1/search/', { key: t.key, json: { query: NONSENSE, explain: true } });
    assert.equal(r.body.count, 1, 'floor 0: the nearest chunk comes back');
    assert.deepEqual(
      { value: r.body.explain.min_score.value, source: r.body.explain.min_score.source, basis: r.body.explain.min_score.basis },
      { value: 0, source: 'setting', basis: null },
    );
    const own = await req('POST', '/api/v1/search/', { key: t.key, json: { query: NONSENSE, min_score: 0.99, explain: true } });
    assert.equal(own.body.count, 0);
    assert.equal(own.body.explain.min_score.source, 'request');
  });
});
