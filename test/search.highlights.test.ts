// Each search result's `highlights`: the spans of its `content` that match the query, as UTF-16
// offsets (daemon/src/search/highlights.ts), through REST and MCP: stemmed matches, non-ASCII and
// emoji text, segmented languages, excluded words, extra (typo-corrected) lexemes, and tenants
// kept apart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { highlightSpans } from '../daemon/src/search/highlights.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const TEXTS = {
  runs: '🎉 Ünïcode first: she runs daily, and running keeps her fit. Ran once.',
  plain: 'The archive holds ledgers about shipping routes.',
  zh: '维多利亚州的经济以服务业为主导，墨尔本是州首府。',
  simple: 'A ledger of shipping routes, kept by hand.',
};

type Result = { content: string; chunk_id: string; document_id: string; highlights: { start: number; end: number }[] };
const marked = (r: Result) => r.highlights.map((h) => r.content.slice(h.start, h.end));

describe('search result highlights', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let req: ReturnType<typeof http>;
  const ids: Record<string, string> = {};

  const search = async (query: string, extra: Record<string, unknown> = {}, key = a.key): Promise<Result[]> => {
    const r = await req('POST', '/api/v1/search/', { key, json: { query, mode: 'text', limit: 10, ...extra } });
    assert.equal(r.status, 200, r.text);
    return r.body.results;
  };
  const resultFor = async (query: string, doc: string, extra: Record<string, unknown> = {}) => {
    const r = (await search(query, extra)).find((x) => x.document_id === ids[doc]);
    assert.ok(r, `${doc} found for ${query}`);
    return r;
  };

  before(async () => {
    d = await startTestDaemon({ label: 'highlights', worker: true });
    req = http(d.url);
    [a, b] = await Promise.all([createTenant(d, 'hl-a'), createTenant(d, 'hl-b')]);
    const en = await makeCollection(req, a.key, 'english');
    const zh = await makeCollection(req, a.key, 'chinese', { language: 'chinese' });
    const simple = await makeCollection(req, a.key, 'simple', { language: 'simple' });
    const other = await makeCollection(req, b.key, 'b english');
    ids.runs = (await addText(req, a.key, en.uuid, 'Runs', TEXTS.runs)).uuid;
    ids.plain = (await addText(req, a.key, en.uuid, 'Plain', TEXTS.plain)).uuid;
    ids.zh = (await addText(req, a.key, zh.uuid, 'Zh', TEXTS.zh)).uuid;
    ids.simple = (await addText(req, a.key, simple.uuid, 'Simple', TEXTS.simple)).uuid;
    ids.b = (await addText(req, b.key, other.uuid, 'B', 'running running running everywhere')).uuid;
    await waitSettled(req, a.key, [ids.runs!, ids.plain!, ids.zh!, ids.simple!]);
    await waitSettled(req, b.key, [ids.b!]);
  });
  after(async () => d?.close());

  it('marks stemmed forms of the query words, at UTF-16 offsets past emoji and accents', async () => {
    const r = await resultFor('running', 'runs');
    assert.deepEqual(marked(r), ['runs', 'running']);
    // The emoji is two UTF-16 code units: "runs" starts at 22 as JavaScript counts (21 code points).
    assert.equal(r.highlights[0]!.start, r.content.indexOf('runs'));
    assert.equal(r.highlights[0]!.start, 22);
    const first = await resultFor('unicode ünïcode', 'runs');
    assert.deepEqual(marked(first), ['Ünïcode']);
  });

  it('never marks excluded words or stop words, and sorts spans without overlap', async () => {
    const r = await resultFor('the running -fit', 'runs', { mode: 'hybrid' }).catch(() => undefined);
    // "-fit" excludes the only document holding "running": nothing to mark, nothing found.
    assert.equal(r, undefined);
    const s = await resultFor('the ledgers shipping', 'plain');
    assert.deepEqual(marked(s), ['ledgers', 'shipping']);
    for (const x of await search('running runs run')) {
      for (let i = 1; i < x.highlights.length; i++) assert.ok(x.highlights[i]!.start > x.highlights[i - 1]!.end);
    }
  });

  it('marks the query’s words where they occur in a segmented language', async () => {
    const r = await resultFor('维多利亚州', 'zh');
    assert.deepEqual(marked(r), ['维多利亚州']);
    const two = await resultFor('服务业 墨尔本', 'zh');
    assert.deepEqual(marked(two), ['服务业', '墨尔本']);
  });

  it('marks extra lexemes (typo corrections) beside the query’s own', async () => {
    const chunk = (await resultFor('ledgers', 'plain')).chunk_id;
    const content = TEXTS.plain;
    const [row] = await d.deps.sql<
      { no: number }[]
    >`select col.no from chunks c join collections col on col.id = c.collection_id where c.id = ${chunk}`;
    const no = row!.no;
    const spans = await highlightSpans(
      d.deps.sql,
      { textConfig: 'english', timeoutMs: 5000 },
      'ledgrs',
      [{ chunkId: chunk, content }],
      [{ lexeme: 'ledger', nos: [no] }],
    );
    assert.deepEqual(
      spans.get(chunk)!.map((h) => content.slice(h.start, h.end)),
      ['ledgers'],
    );
    // A correction found in other collections only marks nothing here.
    const elsewhere = await highlightSpans(
      d.deps.sql,
      { textConfig: 'english', timeoutMs: 5000 },
      'ledgrs',
      [{ chunkId: chunk, content }],
      [{ lexeme: 'ledger', nos: [no + 1000] }],
    );
    assert.deepEqual(elsewhere.get(chunk), []);
    const none = await highlightSpans(d.deps.sql, { textConfig: 'english', timeoutMs: 5000 }, 'ledgrs', [{ chunkId: chunk, content }]);
    assert.deepEqual(none.get(chunk), []);
  });

  it('marks the word a typo was corrected to, through REST', async () => {
    const r = await resultFor('ledgres', 'plain', { typo_tolerance: true });
    assert.deepEqual(marked(r), ['ledgers']);
  });

  it('marks a correction only in the collections it was found in, not where another language has its lexeme', async () => {
    // "ledgres" is read as "ledger" (English: ledgers) in the English collection; in the `simple`
    // one its word "ledger" is two edits away, so it is not corrected there and only "shipping" matches.
    const english = await resultFor('ledgres shipping', 'plain');
    assert.deepEqual(marked(english), ['ledgers', 'shipping']);
    const simple = await resultFor('ledgres shipping', 'simple');
    assert.deepEqual(marked(simple), ['shipping']);
  });

  it('gives every result the field, empty when nothing matches, and never another tenant’s text', async () => {
    const all = await search('running', { mode: 'hybrid', limit: 50 });
    assert.ok(all.every((x) => Array.isArray(x.highlights)));
    assert.ok(!all.some((x) => x.document_id === ids.b));
    const theirs = await search('running', {}, b.key);
    assert.deepEqual(
      theirs.map((x) => x.document_id),
      [ids.b],
    );
    assert.deepEqual(marked(theirs[0]!), ['running', 'running', 'running']);
  });

  it('carries highlights in MCP search_documents structuredContent, as its outputSchema declares', async () => {
    const mcp = new Client({ name: 'docsift-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${a.key}` } } }),
    );
    try {
      const tools = await mcp.listTools();
      const tool = tools.tools.find((t) => t.name === 'search_documents')!;
      const item = (tool.outputSchema as any).properties.results.items;
      assert.ok(item.properties.highlights, 'outputSchema declares highlights');
      const r: any = await mcp.callTool({ name: 'search_documents', arguments: { query: 'running', mode: 'text' } });
      assert.ok(!r.isError, JSON.stringify(r));
      const hit = r.structuredContent.results.find((x: Result) => x.document_id === ids.runs);
      assert.deepEqual(marked(hit), ['runs', 'running']);
      assert.match(r.content[0].text, /\*\*runs\*\*/);
    } finally {
      await mcp.close();
    }
  });
});
