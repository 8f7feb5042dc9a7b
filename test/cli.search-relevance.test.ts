import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliEnv, runCli, type CliEnv } from '../cli/testing/run-cli.js';
import { admin } from './helpers/browser.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { webSession } from './helpers/web-session.js';

// The CLI and the web UI word what the API answers: the correction typo tolerance made ("Showing
// results for …"), and why an answer is empty, with the filter's warnings.
const PASSWORD = 'search relevance passphrase';

describe('CLI and web UI: corrections and empty answers', () => {
  let ollama: FakeOllama;
  let d: TestDaemon;
  let t: Tenant;
  let e: CliEnv;
  before(async () => {
    ollama = await startFakeOllama({ dimension: 64, random: true });
    d = await startTestDaemon({
      label: 'cli_relevance',
      worker: true,
      env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: 'stand-in-random' },
    });
    const req = http(d.url);
    t = await createTenant(d, 'clirel');
    const col = await makeCollection(req, t.key, 'Clinic');
    const ids: string[] = [];
    for (const [content, year] of [
      ['Diabetes treatment starts with diet and exercise for most patients.', 2024],
      ['Insulin therapy for diabetes when diet is not enough.', 2025],
    ] as const) {
      const r = await req('POST', `/api/v1/collections/${col.uuid}/documents/`, {
        key: t.key,
        json: { source_type: 'text', title: `Note ${year}`, content, metadata: { year } },
      });
      ids.push(r.body.uuid);
    }
    await waitSettled(req, t.key, ids);
    await d.deps.sql`select fold_text_stats()`;
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    e = await cliEnv();
    assert.equal((await runCli(['login', '--url', d.url, '--api-key-stdin'], { env: e.env, input: t.key })).code, 0);
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
  });

  it('CLI: "Showing results for …", and --no-typo-tolerance takes the words as written', async () => {
    const r = await runCli(['search', 'diabetis', 'treatment', '--mode', 'text'], { env: e.env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Showing results for "diabetes treatment"\.\n/);
    const json = await runCli(['search', 'diabetis', '--mode', 'text', '--no-typo-tolerance', '--json'], { env: e.env });
    assert.equal(json.code, 0, json.stderr);
    const body = JSON.parse(json.stdout);
    assert.equal(body.correction, null);
    assert.equal(body.count, 0);
    assert.equal(body.reason.code, 'no_match');
  });

  it('CLI: an empty answer gives its reason, the filter’s warnings and the next step', async () => {
    const r = await runCli(['search', 'diabetes', '--where', 'year > "2023"'], { env: e.env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /No results for "diabetes"\. No document in the searched collections passes the filter/);
    assert.match(r.stdout, /Warning: "year" holds only numbers in the searched documents/);
    assert.match(r.stdout, /Next: fix --where\/--filter as the warnings say/);
  });

  it('CLI: a phrase that no document holds is named, with the next step', async () => {
    const r = await runCli(['search', '"diabetes exercise"', '--mode', 'text'], { env: e.env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /every result must hold "diabetes exercise"\.\nNext: drop or loosen the "quoted phrase" or -excluded word\.\n/);
  });

  it('web UI: the correction above the results, and the reason of an empty answer', async () => {
    const { cookie } = await webSession(d, t.email, PASSWORD);
    const get = async (q: string) =>
      (await fetch(`${d.url}/app/search?q=${encodeURIComponent(q)}&mode=text`, { headers: { cookie } })).text();
    assert.match(
      await get('diabetis treatment'),
      /<p class="correction">Showing results for (&quot;|")diabetes treatment(&quot;|")\.<\/p>/,
    );
    const none = await get('zzqx');
    assert.match(
      none,
      /Nothing matched\. No results for (&quot;|")zzqx(&quot;|")\. Nothing relevant was found in the searched documents: none holds any/,
    );
  });
});
