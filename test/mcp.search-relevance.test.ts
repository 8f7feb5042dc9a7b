import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// MCP search_documents: a corrected typo, a typo next to an exclusion, a filter that leaves nothing,
// and an off-topic question in hybrid mode, as an agent sees them (text and structured content), with
// the built-in model.

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

const TEXTS: [string, string, object][] = [
  ['diabetes', 'Diabetes treatment starts with diet and exercise for most patients.', { year: 2024 }],
  ['insulin', 'Insulin therapy for diabetes when diet is not enough.', { year: 2025 }],
  ['hand', 'Hand hygiene compliance reduces hospital acquired infections.', { year: 2023 }],
  ...[
    'Statin therapy lowers cholesterol in older adults.',
    'Vitamin D supplementation and bone fracture risk.',
    'Gut microbiota differs between lean and obese twins.',
    'Sleep deprivation impairs glucose tolerance.',
    'Aspirin use and colorectal cancer incidence.',
    'Air pollution and lung function decline.',
    'Antibiotic resistance genes in hospital wastewater.',
    'Exercise training improves endothelial function.',
    'Telomere length shortens with chronic stress.',
    'Breastfeeding duration and childhood asthma.',
    'Smoking cessation and weight gain.',
    'Coffee consumption is not associated with arrhythmia.',
    'Measles vaccination coverage and outbreak size.',
    'Salt intake and blood pressure in a trial.',
    'Depression screening in primary care.',
  ].map((t, i): [string, string, object] => [`other${i}`, t, { year: 2020 }]),
];

describe('MCP search_documents: typos, exclusions, empty answers, off-topic questions', () => {
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let client: Client;
  const ids: Record<string, string> = {};
  before(async () => {
    d = await startTestDaemon({ label: 'mcprelevance', worker: true });
    const req = http(d.url);
    t = await createTenant(d, 'mcprel');
    other = await createTenant(d, 'mcprel_other');
    const col = await makeCollection(req, t.key, 'Abstracts');
    for (const [name, content, metadata] of TEXTS) {
      const r = await req('POST', `/api/v1/collections/${col.uuid}/documents/`, {
        key: t.key,
        json: { source_type: 'text', title: name, content, metadata },
      });
      assert.equal(r.status, 201, r.text);
      ids[name] = r.body.uuid;
    }
    const theirs = await makeCollection(req, other.key, 'Theirs');
    const r = await req('POST', `/api/v1/collections/${theirs.uuid}/documents/`, {
      key: other.key,
      json: { source_type: 'text', title: 'theirs', content: 'Cardiomyopathy weakens the heart muscle.' },
    });
    await waitSettled(req, t.key, Object.values(ids), 180_000);
    await waitSettled(req, other.key, [r.body.uuid]);
    await d.deps.sql`select fold_text_stats()`;
    client = new Client({ name: 'docsift-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(d.url + '/mcp'), { requestInit: { headers: { authorization: `Bearer ${t.key}` } } }),
    );
  });
  after(async () => {
    await client?.close();
    await d?.close();
  });

  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: 'search_documents', arguments: { limit: 10, ...args } })) as ToolResult;
  const docs = (r: ToolResult) => [...new Set(r.structuredContent.results.map((x: any) => x.document_id))];

  it('reads a misspelled word as the documents write it, and says so first', async () => {
    const r = await call({ query: 'diabetis treatment' });
    assert.equal(r.isError, undefined);
    assert.match(r.content[0]!.text, /^Showing results for "diabetes treatment"\.\n\d+ result\(s\)/);
    assert.deepEqual(r.structuredContent.correction.words, [{ word: 'diabetis', correction: 'diabetes', edits: 1 }]);
    assert.equal(docs(r)[0], ids.diabetes);
    const asIs = await call({ query: 'diabetis treatment', typo_tolerance: false, mode: 'text' });
    assert.equal(asIs.structuredContent.correction, null);
    assert.ok(!docs(asIs).includes(ids.insulin), 'without correction only "treatment" matches');
  });

  it('keeps an exclusion next to a typo', async () => {
    const r = await call({ query: 'diabetis -insulin', mode: 'text' });
    assert.match(r.content[0]!.text, /^Showing results for "diabetes -insulin"\./);
    assert.deepEqual(docs(r), [ids.diabetes]);
  });

  it('never corrects toward another tenant’s word', async () => {
    const r = await call({ query: 'cardiomyopaty', mode: 'text' });
    assert.equal(r.structuredContent.correction, null);
    assert.equal(r.structuredContent.count, 0);
  });

  it('says a filter left nothing to search, and what is wrong with it', async () => {
    const r = await call({ query: 'diabetes treatment', filter: { year: { gt: '2023' } } });
    assert.equal(r.structuredContent.count, 0);
    assert.equal(r.structuredContent.reason.code, 'no_documents_pass_filter');
    const text = r.content[0]!.text;
    assert.match(text, /^No results for "diabetes treatment"\. No document in the searched collections passes the filter/);
    assert.match(text, /Warning: "year" holds only numbers in the searched documents, and "2023" is a string/);
    assert.match(text, /Next: fix the filter as the warnings say/);
  });

  it('says when a phrase or exclusion left nothing its words found, and what to change', async () => {
    const r = await call({ query: 'diabetes -treatment -insulin -diet', mode: 'text' });
    assert.equal(r.structuredContent.count, 0, r.content[0]!.text);
    assert.equal(r.structuredContent.reason.code, 'operators_left_nothing');
    assert.match(
      r.content[0]!.text,
      /none may hold "treatment" or "insulin" or "diet"\. Next: drop or loosen the "quoted phrase" or -excluded word\.$/,
    );
  });

  it('finds nothing for an off-topic question in hybrid mode, and keeps the lexical match in text mode', async () => {
    const query = 'how long should I knead pizza dough by hand';
    const hybrid = await call({ query });
    assert.equal(hybrid.structuredContent.count, 0, hybrid.content[0]!.text);
    assert.equal(hybrid.structuredContent.reason.code, 'no_match');
    assert.match(hybrid.content[0]!.text, /^No results for "how long should I knead pizza dough by hand"\. Nothing relevant was found/);
    const text = await call({ query, mode: 'text' });
    assert.deepEqual(docs(text), [ids.hand]);
  });
});
