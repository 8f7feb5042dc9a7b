import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { admin } from './helpers/browser.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { webSession } from './helpers/web-session.js';

// The failure this file guards against: a query with nothing relevant got padding (10 unrelated
// chunks at score ~0.1), or a bare empty list; and the threshold a person could set (min_score, a
// cosine) was not in the units results show. Now every transport says "nothing relevant" with a
// next step, and score_threshold (CLI --min-score) filters on the score as displayed. A model
// outside the defaults table, no setting.
const PASSWORD = 'zero answer passphrase';
const NONSENSE = 'xqzzv blorpt fnargle';
type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

describe('zero is an answer; one score scale', () => {
  let ollama: FakeOllama;
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  let req: ReturnType<typeof http>;
  const api = (json: Record<string, unknown>, key = t.key) => req('POST', '/api/v1/search/', { key, json });

  before(async () => {
    ollama = await startFakeOllama({ dimension: 128, dense: true });
    d = await startTestDaemon({
      label: 'zero_answer',
      worker: true,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: 'stand-in-dense' },
    });
    req = http(d.url);
    [t, other] = await Promise.all([createTenant(d, 'zero'), createTenant(d, 'zero_other')]);
    const col = await makeCollection(req, t.key, 'Notes');
    const ids = [];
    for (let i = 0; i < 20; i++)
      ids.push((await addText(req, t.key, col.uuid, `Note ${i}`, `Meeting note ${i}: the budget review moved to week ${i + 1}.`)).uuid);
    await waitSettled(req, t.key, ids);
    const oc = await makeCollection(req, other.key, 'Theirs');
    await waitSettled(req, other.key, [(await addText(req, other.key, oc.uuid, 'Theirs', `${NONSENSE} appears here`)).uuid]);
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    e = await cliEnv();
    assert.equal((await runCli(['login', '--url', d.url, '--api-key-stdin'], { env: e.env, input: t.key })).code, 0);
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  it('API: nonsense gets 0 results under the background floor; another tenant’s match stays theirs', async () => {
    const r = await api({ query: NONSENSE, limit: 50, explain: true });
    assert.equal(r.body.count, 0, JSON.stringify(r.body.results));
    assert.equal(r.body.explain.min_score.source, 'background');
    assert.equal((await api({ query: NONSENSE }, other.key)).body.count, 1);
  });

  it('CLI, MCP and the web UI say nothing relevant was found and suggest a next step', async () => {
    const cli = await runCli(['search', NONSENSE], { env: e.env });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /No results for "xqzzv blorpt fnargle"\. Nothing relevant was found/);
    assert.match(cli.stdout, /Next: rephrase/);
    const scoped = await runCli(['search', NONSENSE, '--collection', 'notes', '--mode', 'text'], { env: e.env });
    assert.match(scoped.stdout, /drop --collection\/--tag[\s\S]*--mode hybrid/);

    const client = new Client({ name: 'docsift-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(d.url + '/mcp'), { requestInit: { headers: { authorization: `Bearer ${t.key}` } } }),
    );
    try {
      const tools = await client.listTools();
      const desc = tools.tools.find((x) => x.name === 'search_documents')!.description!;
      assert.match(desc, /score is in \[0, 1\]/);
      assert.match(desc, /cosine similarity/);
      const r = (await client.callTool({ name: 'search_documents', arguments: { query: NONSENSE } })) as ToolResult;
      assert.equal(r.structuredContent.count, 0);
      assert.match(r.content[0]!.text, /^No results for "xqzzv blorpt fnargle"\. Nothing relevant was found[\s\S]*Next: /);
      const hi = (await client.callTool({
        name: 'search_documents',
        arguments: { query: 'budget review week 3', score_threshold: 0.9 },
      })) as ToolResult;
      assert.ok(hi.structuredContent.results.every((x: { score: number }) => x.score >= 0.9));
    } finally {
      await client.close();
    }

    const { cookie } = await webSession(d, t.email, PASSWORD);
    const html = await (await fetch(`${d.url}/app/search?q=${encodeURIComponent(NONSENSE)}`, { headers: { cookie } })).text();
    assert.match(html, /Nothing matched\. No results for (&quot;|")xqzzv blorpt fnargle(&quot;|")\. Nothing relevant was found/);
    assert.match(html, /Next: rephrase/);
  });

  it('score_threshold and CLI --min-score filter on the score as displayed; bad values are refused', async () => {
    const all = await api({ query: 'budget review week 3', limit: 50 });
    assert.ok(all.body.count >= 3);
    const mid = all.body.results[1].score as number;
    const cut = await api({ query: 'budget review week 3', limit: 50, score_threshold: mid });
    assert.ok(cut.body.count >= 2 && cut.body.count < all.body.count, `${cut.body.count} of ${all.body.count}`);
    assert.ok(
      cut.body.results.every((x: { score: number }) => x.score >= mid),
      'a score copied from a result keeps that result',
    );
    for (const score_threshold of [1.5, -1, 'high']) {
      const r = await api({ query: 'budget', score_threshold });
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 'VALIDATION_FAILED');
      assert.ok(r.body.fields.score_threshold);
    }
    const cli = await runCli(['search', 'budget review week 3', '--limit', '50', '--min-score', String(mid), '--json'], { env: e.env });
    assert.equal(JSON.parse(cli.stdout).count, cut.body.count);
    const bad = await runCli(['search', 'budget', '--min-score', '2'], { env: e.env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--min-score must be a number between 0 and 1/);
  });
});
