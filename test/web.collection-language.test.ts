// The collection form's language select in a real browser: create a French collection, change it
// to German (the worker reindexes it), French stems marked on the search page, an unknown language
// refused beside the field, and
// another user's collection never editable.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { admin, launchBrowser, signIn, type TestBrowser } from './helpers/browser.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const PASSWORD = 'collection language passphrase';

describe('web UI: a collection’s language', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let owner: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let page: Page;
  let context: BrowserContext;
  let uuid = '';

  before(async () => {
    [d, b] = await Promise.all([startTestDaemon({ label: 'web_lang', worker: true }), launchBrowser()]);
    req = http(d.url);
    owner = await createTenant(d, 'web-lang-owner');
    other = await createTenant(d, 'web-lang-other');
    await admin(d, ['set-password', '--email', owner.email, '--password-stdin'], PASSWORD);
    ({ page, context } = await b.newPage());
    await signIn(page, d.url, owner.email, PASSWORD);
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  const post = async (path: string, fields: Record<string, string>) => {
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    return fetch(d.url + path, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: csrf, ...fields }),
      headers: { cookie },
      redirect: 'manual',
    });
  };

  it('creates a collection in the language picked, english by default', async () => {
    await page.goto(`${d.url}/app/collections/new`);
    assert.equal(await page.getByLabel('Language').inputValue(), 'english');
    const options = await page.locator('#coll-language option').allTextContents();
    for (const l of [
      'english',
      'french',
      'german',
      'simple',
      'spanish',
      'chinese',
      'japanese',
      'korean',
      'thai',
      'arabic',
      'greek',
      'hindi',
      'turkish',
    ])
      assert.ok(options.includes(l), l);
    await page.getByLabel('Name', { exact: true }).fill('Manuel');
    await page.getByLabel('Language').selectOption('french');
    await Promise.all([page.waitForURL(/done=created$/), page.getByRole('button', { name: 'Create collection' }).click()]);
    uuid = /collections\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    assert.equal((await req('GET', `/api/v1/collections/${uuid}/`, { key: owner.key })).body.language, 'french');
  });

  it('changes it on the edit form; the worker reindexes it', async () => {
    await page.goto(`${d.url}/app/collections/${uuid}/edit`);
    assert.equal(await page.getByLabel('Language').inputValue(), 'french');
    await page.getByLabel('Language').selectOption('german');
    await Promise.all([page.waitForURL(/done=updated/), page.getByRole('button', { name: 'Save changes' }).click()]);
    assert.equal((await req('GET', `/api/v1/collections/${uuid}/`, { key: owner.key })).body.language, 'german');
    // The worker runs the queued reindex: the collection's index switches to german.
    const end = Date.now() + 30_000;
    while ((await d.deps.sql<{ c: string }[]>`select text_config as c from collections where id = ${uuid}`)[0]!.c !== 'docsift_german') {
      assert.ok(Date.now() < end, 'the reindex job did not run');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('marks the words of a French query stemmed the French way on the search page', async () => {
    const c = await req('POST', '/api/v1/collections/', { key: owner.key, json: { name: 'Chevaux', language: 'french' } });
    const doc = await req('POST', `/api/v1/collections/${c.body.uuid}/documents/`, {
      key: owner.key,
      json: { source_type: 'text', title: 'Doc', content: 'Le cheval galope dans la prairie verte.' },
    });
    const end = Date.now() + 60_000;
    while ((await req('GET', `/api/v1/documents/${doc.body.uuid}/`, { key: owner.key })).body.status === 'pending') {
      assert.ok(Date.now() < end, 'still pending');
      await new Promise((r) => setTimeout(r, 150));
    }
    await page.goto(`${d.url}/app/search?q=chevaux&mode=text&collection=${c.body.slug}`);
    assert.deepEqual(await page.locator('ol.results .snippet mark').allTextContents(), ['cheval']);
  });

  it('refuses an unknown language beside the field; another user cannot edit it', async () => {
    await page.goto(`${d.url}/app/collections/new`);
    const r = await post('/app/collections', { name: 'Bad', language: 'klingon' });
    assert.equal(r.status, 400);
    const html = await r.text();
    assert.match(html, /id="coll-language-error"[^>]*>Unknown text search configuration/);
    const list = await req('GET', '/api/v1/collections/', { key: owner.key });
    assert.deepEqual(
      list.body.map((c: { name: string }) => c.name),
      ['Manuel', 'Chevaux'],
    );
    const u = await req('PATCH', `/api/v1/collections/${uuid}/`, { key: other.key, json: { language: 'english' } });
    assert.equal(u.status, 404);
  });
});
