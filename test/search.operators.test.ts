import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '../sdk/src/node.js';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { admin } from './helpers/browser.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { webSession } from './helpers/web-session.js';

// The failure this file guards against: `vacation -carry` returned chunks containing "carry" in
// hybrid mode, and quoted phrases held only for text matches: vector-only hits ignored both. The
// same search() serves the API, SDK, CLI, MCP and the web UI; each is checked here. The floor is 0
// (HYBRID_MIN_SIMILARITY) so the vector channel hands back every chunk sharing a word with the
// query, operators or not.
const PASSWORD = 'operators page passphrase';
const DOCS: [string, string][] = [
  ['Leave policy', 'Unused vacation days carry over to the next year.'],
  ['Vacation requests', 'Vacation requests need two weeks notice from the employee.'],
  ['Luggage', 'Carry-on luggage must fit the overhead bin.'],
  ['Notice periods', 'Weeks of notice: two are required before a vacation starts.'],
  ['Kitchen', 'The office kitchen closes at six.'],
];
type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

describe('query operators hold in every mode and transport', () => {
  let ollama: FakeOllama;
  let d: TestDaemon;
  let t: Tenant;
  let other: Tenant;
  let e: CliEnv;
  let req: ReturnType<typeof http>;
  const api = (json: Record<string, unknown>, key = t.key) => req('POST', '/api/v1/search/', { key, json });
  const contents = (r: { body: { results: { content: string }[] } }) => r.body.results.map((x) => x.content);

  before(async () => {
    ollama = await startFakeOllama({ dimension: 64 });
    d = await startTestDaemon({
      label: 'operators',
      worker: true,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, HYBRID_MIN_SIMILARITY: '0' },
    });
    req = http(d.url);
    [t, other] = await Promise.all([createTenant(d, 'operators'), createTenant(d, 'operators_other')]);
    const col = await makeCollection(req, t.key, 'HR');
    const ids = [];
    for (const [title, content] of DOCS) ids.push((await addText(req, t.key, col.uuid, title, content)).uuid);
    await waitSettled(req, t.key, ids);
    // Another tenant's chunk without the excluded word must never show up for anyone else.
    const oc = await makeCollection(req, other.key, 'Theirs');
    await waitSettled(req, other.key, [(await addText(req, other.key, oc.uuid, 'Their vacation', 'Their vacation rules.')).uuid]);
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    e = await cliEnv();
    const login = await runCli(['login', '--url', d.url, '--api-key-stdin'], { env: e.env, input: t.key });
    assert.equal(login.code, 0, login.stderr);
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  it('API: an excluded word removes every chunk containing it; a quoted phrase is required, in every mode', async () => {
    for (const mode of ['hybrid', 'vector', 'text'] as const) {
      const ex = await api({ query: 'vacation -carry', mode, limit: 50, explain: true });
      assert.equal(ex.status, 200);
      assert.ok(ex.body.count >= 1, `${mode}: something without "carry" is found`);
      assert.ok(
        contents(ex).every((c) => !/carry/i.test(c)),
        `${mode}: ${JSON.stringify(contents(ex))}`,
      );
      const ph = await api({ query: '"two weeks" notice', mode, limit: 50 });
      assert.deepEqual(contents(ph), [DOCS[1]![1]], `${mode}: ${JSON.stringify(contents(ph))}`);
    }
    // Without operators the vector channel does bring those chunks (the exclusion is what removed them).
    const plain = await api({ query: 'vacation carry', mode: 'vector', limit: 50 });
    assert.ok(contents(plain).some((c) => /carry/i.test(c)));
    // A stop-word-only exclusion excludes nothing, as in the text channel.
    assert.ok((await api({ query: 'vacation -the', mode: 'vector', limit: 50 })).body.count >= 3);
  });

  it('SDK, CLI, MCP and the web UI give the same filtered answers', async () => {
    const sdk = await createClient({ baseUrl: d.url, apiKey: t.key }).search({ query: 'vacation -carry', limit: 50 });
    assert.ok(sdk.results.length >= 1 && sdk.results.every((x) => !/carry/i.test(x.content)));

    const cli = await runCli(['search', 'vacation -carry', '--limit', '50', '--json'], { env: e.env });
    assert.equal(cli.code, 0, cli.stderr);
    const cliResults = JSON.parse(cli.stdout).results as { content: string }[];
    assert.ok(cliResults.length >= 1 && cliResults.every((x) => !/carry/i.test(x.content)), cli.stdout);
    const cliPhrase = await runCli(['search', '"two weeks" notice', '--mode', 'vector', '--json'], { env: e.env });
    assert.deepEqual(
      (JSON.parse(cliPhrase.stdout).results as { content: string }[]).map((x) => x.content),
      [DOCS[1]![1]],
    );

    const client = new Client({ name: 'docsift-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(d.url + '/mcp'), { requestInit: { headers: { authorization: `Bearer ${t.key}` } } }),
    );
    try {
      const r = (await client.callTool({ name: 'search_documents', arguments: { query: 'vacation -carry', limit: 50 } })) as ToolResult;
      assert.ok(!r.isError);
      const mcpResults = r.structuredContent.results as { content: string }[];
      assert.ok(mcpResults.length >= 1 && mcpResults.every((x) => !/carry/i.test(x.content)));
      assert.doesNotMatch(r.content[0]!.text, /Luggage|Leave policy/);
    } finally {
      await client.close();
    }

    const { cookie } = await webSession(d, t.email, PASSWORD);
    const page = await fetch(`${d.url}/app/search?q=${encodeURIComponent('vacation -carry')}&mode=vector`, { headers: { cookie } });
    assert.equal(page.status, 200);
    const titles = [...(await page.text()).matchAll(/class="doc-title">([^<]+)</g)].map((m) => m[1]);
    assert.ok(titles.length >= 1, 'the page lists results');
    assert.ok(!titles.includes('Luggage') && !titles.includes('Leave policy'), JSON.stringify(titles));
  });

  it('an excluded word or a phrase never reaches another tenant’s chunks, and bad input is refused', async () => {
    const r = await api({ query: 'vacation -carry', mode: 'vector', limit: 50 }, other.key);
    assert.deepEqual(contents(r), ['Their vacation rules.']);
    const bad = await api({ query: '-carry', mode: 'hybrid', limit: 0 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_FAILED');
  });
});
