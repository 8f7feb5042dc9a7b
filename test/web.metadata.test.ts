// Metadata in the web UI, in a real browser against a daemon with its worker: set on upload (page
// script and plain form) and on text documents, shown and edited on the document page, filtered on
// in search from the keys found in scope, several collections searched at once, the language on a
// collection's page and date fields as tall as their neighbours. Another tenant's metadata never
// shows, and its documents cannot be edited. Each page at 1280 and 390 px, light and dark: no
// horizontal overflow, no console errors.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { samplePath } from './fixtures/samples.js';
import { admin, assertFits, inEveryViewport, launchBrowser, screenshot, signIn, type TestBrowser } from './helpers/browser.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { makeCollection, waitSettled } from './helpers/docs.js';

const PASSWORD = 'metadata page passphrase';

describe('web UI: metadata, several collections, languages and dates', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let t: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let page: Page;
  let context: BrowserContext;
  let contracts: { uuid: string; slug: string };
  let memos: { uuid: string; slug: string };
  let archive: { uuid: string; slug: string };
  let theirDoc = '';
  const ids = { nda: '', lease: '', memo: '', old: '' };

  const addText = async (key: string, col: string, title: string, content: string, metadata: object) => {
    const r = await req('POST', `/api/v1/collections/${col}/documents/`, { key, json: { source_type: 'text', title, content, metadata } });
    assert.equal(r.status, 201, r.text);
    return r.body.uuid as string;
  };
  const detail = async (id: string) => (await req('GET', `/api/v1/documents/${id}/`, { key: t.key })).body;
  const titles = async () => (await page.locator('ol.results .doc-title').allInnerTexts()).map((s) => s.trim()).sort();

  before(async () => {
    [d, b] = await Promise.all([startTestDaemon({ label: 'web_metadata', worker: true }), launchBrowser()]);
    req = http(d.url);
    [t, other] = await Promise.all([createTenant(d, 'web-meta'), createTenant(d, 'web-meta-other')]);
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    await admin(d, ['set-password', '--email', other.email, '--password-stdin'], PASSWORD);
    contracts = await makeCollection(req, t.key, 'Contracts');
    memos = await makeCollection(req, t.key, 'Memos', { language: 'german' });
    archive = await makeCollection(req, t.key, 'Archive');
    ids.nda = await addText(t.key, contracts.uuid, 'NDA', 'Mutual confidentiality agreement with a termination clause.', {
      dept: 'legal',
      year: 2024,
    });
    ids.lease = await addText(t.key, contracts.uuid, 'Lease', 'Office lease agreement with a termination clause.', {
      dept: 'facilities',
      year: 2021,
    });
    ids.memo = await addText(t.key, memos.uuid, 'Memo', 'Internal memo about the agreement termination.', { dept: 'legal', year: 2023 });
    ids.old = await addText(t.key, archive.uuid, 'Old agreement', 'An archived agreement with a termination clause.', { dept: 'legal' });
    const theirs = await makeCollection(req, other.key, 'Theirs');
    theirDoc = await addText(other.key, theirs.uuid, 'Secret agreement', 'A secret agreement and its termination.', {
      codename: 'bluebird',
      dept: 'secret-ops',
    });
    await waitSettled(req, t.key, Object.values(ids));
    await waitSettled(req, other.key, [theirDoc]);
    ({ page, context } = await b.newPage());
    await signIn(page, d.url, t.email, PASSWORD);
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  it('uploads files with metadata; a bad line is refused with the API’s answer and nothing stored', async () => {
    await page.goto(`${d.url}/app/collections/${archive.uuid}`);
    await page.getByLabel('Files', { exact: true }).setInputFiles([samplePath('sample.md'), samplePath('sample.txt')]);
    await page.locator('#upload-metadata').fill('dept = records\nyear = 2020\nboxes = ["b1", "b2"]');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.locator('.upload-summary', { hasText: '2 uploaded' }).waitFor();
    const listed = (await req('GET', `/api/v1/documents/?collection=${archive.slug}`, { key: t.key })).body;
    const uploaded = listed.filter((x: { title: string }) => x.title.startsWith('sample.'));
    assert.equal(uploaded.length, 2);
    for (const u of uploaded) assert.deepEqual(u.metadata, { dept: 'records', year: 2020, boxes: ['b1', 'b2'] });
    const before = listed.length;
    await page.getByLabel('Files', { exact: true }).setInputFiles(samplePath('sample.txt'));
    await page.locator('#upload-metadata').fill('dept legal');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.locator('.upload-summary', { hasText: 'Upload refused' }).waitFor();
    assert.match((await page.locator('.upload-summary').textContent()) ?? '', /Line 1: write key = value/);
    assert.equal((await req('GET', `/api/v1/documents/?collection=${archive.slug}`, { key: t.key })).body.length, before);
  });

  it('uploads with metadata without the page script (a plain form post)', async () => {
    const ctx = await b.browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const p = await ctx.newPage();
    await signIn(p, d.url, t.email, PASSWORD);
    await p.goto(`${d.url}/app/collections/${archive.uuid}`);
    await p.getByLabel('Files', { exact: true }).setInputFiles(samplePath('sample.html'));
    await p.locator('#upload-metadata').fill('source = scanner');
    const [res] = await Promise.all([
      p.waitForResponse((r) => r.request().method() === 'POST'),
      p.getByRole('button', { name: 'Upload', exact: true }).click(),
    ]);
    assert.equal(res.status(), 201);
    const listed = (await req('GET', `/api/v1/documents/?collection=${archive.slug}`, { key: t.key })).body;
    assert.deepEqual(listed.find((x: { title: string }) => x.title === 'sample.html').metadata, { source: 'scanner' });
    await ctx.close();
  });

  it('adds a text document with metadata; a key given twice is an error beside the field, the form kept', async () => {
    await page.goto(`${d.url}/app/collections/${memos.uuid}`);
    const form = page.locator('form[action$="/text#add"]');
    await form.getByLabel('Title').fill('Budget memo');
    await page.locator('#text-content').fill('The budget for the next year, approved.');
    await page.locator('#text-metadata').fill('dept = finance\ndept = legal');
    const [res] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), form.getByRole('button').click()]);
    assert.equal(res.status(), 400);
    assert.match((await page.locator('#text-metadata-error').textContent()) ?? '', /Line 2: "dept" is given twice/);
    assert.match((await page.locator('#error-summary').textContent()) ?? '', /Metadata: /);
    assert.equal(await page.locator('#text-content').inputValue(), 'The budget for the next year, approved.');
    await page.locator('#text-metadata').fill('dept = finance\nyear = 2025\napproved = true');
    await Promise.all([page.waitForURL(/done=added/), page.locator('form[action$="/text#add"] button').click()]);
    const id = /documents\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    assert.deepEqual((await detail(id)).metadata, { dept: 'finance', year: 2025, approved: true });
  });

  it('shows the metadata on the document page and edits title, tags and metadata in place', async () => {
    await page.goto(`${d.url}/app/documents/${ids.nda}`);
    const facts = page.locator('dl.meta-list');
    assert.deepEqual(await facts.locator('dt').allInnerTexts(), ['dept', 'year']);
    assert.deepEqual(await facts.locator('dd').allInnerTexts(), ['legal', '2024']);
    assert.equal(await page.locator('#edit-metadata').inputValue(), 'dept = legal\nyear = 2024');
    const chunks = (await detail(ids.nda)).chunks_count;
    await page.locator('#edit-title').fill('Mutual NDA');
    await page.locator('#edit-tags').fill('signed, 2024');
    await page.locator('#edit-metadata').fill('dept = legal\nyear = 2024\ncounterparty = "Globex"');
    await Promise.all([page.waitForURL(/done=edited/), page.getByRole('button', { name: 'Save details' }).click()]);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Mutual NDA');
    const after = await detail(ids.nda);
    assert.deepEqual(after.metadata, { dept: 'legal', year: 2024, counterparty: 'Globex' });
    assert.deepEqual(after.tags, ['signed', '2024']);
    assert.equal(after.status, 'indexed');
    assert.equal(after.chunks_count, chunks, 'not processed again');
  });

  it('an edit the API refuses shows beside its field with status 400; nothing changes', async () => {
    await page.goto(`${d.url}/app/documents/${ids.lease}`);
    await page.locator('#edit-title').fill('');
    await page.locator('#edit-metadata').fill('1year = 2021');
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save details' }).click(),
    ]);
    assert.equal(res.status(), 400);
    assert.match((await page.locator('#edit-metadata-error').textContent()) ?? '', /1year: Keys are/);
    assert.equal(await page.locator('#edit-metadata').inputValue(), '1year = 2021');
    assert.equal((await detail(ids.lease)).title, 'Lease');
    await screenshot(page, 'document-edit-errors');
  });

  it('cross-tenant: another user’s document cannot be edited (404), and its metadata is never suggested', async () => {
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    await page.goto(`${d.url}/app/documents/${ids.memo}`);
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const r = await fetch(`${d.url}/app/documents/${theirDoc}/edit`, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: csrf, title: 'mine now', tags: '', metadata: 'dept = stolen' }),
      headers: { cookie },
      redirect: 'manual',
    });
    assert.equal(r.status, 404);
    const theirs = (await req('GET', `/api/v1/documents/${theirDoc}/`, { key: other.key })).body;
    assert.equal(theirs.title, 'Secret agreement');
    assert.deepEqual(theirs.metadata, { codename: 'bluebird', dept: 'secret-ops' });
    await page.goto(`${d.url}/app/search`);
    const keys = await page.locator('#meta-keys option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value));
    assert.ok(keys.includes('dept') && keys.includes('year'), keys.join());
    assert.ok(!keys.includes('codename'), keys.join());
    const values = await page.locator('datalist[data-meta-key] option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value));
    assert.ok(values.includes('legal'));
    assert.ok(!values.includes('secret-ops') && !values.includes('bluebird'), values.join());
  });

  it('filters search results by metadata conditions; a value of the wrong type is an error beside it', async () => {
    await page.goto(`${d.url}/app/search`);
    await page.getByLabel('Search', { exact: true }).fill('agreement termination');
    await page.locator('#meta-key-0').fill('dept');
    // The value field suggests the values seen for the key typed.
    assert.equal(
      await page.locator('#meta-value-0').getAttribute('list'),
      await page.locator('datalist[data-meta-key="dept"]').getAttribute('id'),
    );
    await page.locator('#meta-value-0').fill('legal');
    await Promise.all([page.waitForURL(/\/app\/search\?/), page.getByRole('button', { name: 'Search', exact: true }).click()]);
    assert.deepEqual(await titles(), ['Memo', 'Mutual NDA', 'Old agreement']);
    await page.locator('#meta-key-1').fill('year');
    await page.locator('#meta-op-1').selectOption('gte');
    await page.locator('#meta-value-1').fill('2024');
    await Promise.all([page.waitForURL(/mk=year/), page.getByRole('button', { name: 'Search', exact: true }).click()]);
    assert.deepEqual(await titles(), ['Mutual NDA']);
    await page.locator('#meta-op-1').selectOption('missing');
    await page.locator('#meta-value-1').fill('');
    await Promise.all([page.waitForURL(/mo=missing/), page.getByRole('button', { name: 'Search', exact: true }).click()]);
    assert.deepEqual(await titles(), ['Old agreement']);
    const bad = await page.goto(`${d.url}/app/search?q=agreement&mk=year&mo=gte&mv=recent`);
    assert.equal(bad?.status(), 400);
    assert.equal(await page.locator('#meta-value-0-error').textContent(), 'year holds numbers.');
    assert.match((await page.locator('#error-summary').textContent()) ?? '', /Metadata value 1: year holds numbers/);
  });

  it('a result’s metadata chip narrows the search to that value; results never show another tenant’s', async () => {
    await page.goto(`${d.url}/app/search?q=${encodeURIComponent('agreement termination')}&mode=text`);
    const all = await titles();
    assert.ok(!all.includes('Secret agreement'), all.join());
    await Promise.all([page.waitForURL(/mk=dept/), page.locator('ol.results a.chip.meta', { hasText: 'facilities' }).first().click()]);
    assert.deepEqual(await titles(), ['Lease']);
    assert.equal(await page.locator('#meta-key-0').inputValue(), 'dept');
    assert.equal(await page.locator('#meta-value-0').inputValue(), 'facilities');
  });

  it('searches several collections at once from the picker', async () => {
    await page.goto(`${d.url}/app/search`);
    await page.getByLabel('Search', { exact: true }).fill('agreement termination');
    await page.locator('#search-collection summary').click();
    await page.getByLabel('Contracts', { exact: true }).check();
    await page.getByLabel('Archive', { exact: true }).check();
    assert.equal(await page.locator('#search-collection-summary').textContent(), '2 collections');
    await Promise.all([page.waitForURL(/collection=/), page.getByRole('button', { name: 'Search', exact: true }).click()]);
    assert.deepEqual(await titles(), ['Lease', 'Mutual NDA', 'Old agreement']);
    assert.equal(await page.locator('#search-collection-summary').textContent(), '2 collections');
    assert.equal(await page.getByLabel('Memos', { exact: true }).isChecked(), false);
  });

  it('shows a collection’s language on its page', async () => {
    await page.goto(`${d.url}/app/collections/${memos.uuid}`);
    assert.match((await page.locator('dl.facts').first().textContent()) ?? '', /Languagegerman/);
    await page.goto(`${d.url}/app/collections/${contracts.uuid}`);
    assert.match((await page.locator('dl.facts').first().textContent()) ?? '', /Languageenglish/);
  });

  it('date fields are as tall as the text fields beside them', async () => {
    await page.goto(`${d.url}/app/search`);
    const height = (sel: string) => page.locator(sel).evaluate((e) => e.getBoundingClientRect().height);
    const q = await height('#q');
    assert.ok(q >= 38, `search field ${q} px`);
    for (const id of ['#search-from', '#search-to']) assert.equal(Math.round(await height(id)), Math.round(q), id);
  });

  it('each page fits 1280 and 390 px, light and dark, without console errors', async () => {
    const pages = [
      `/app/search?q=${encodeURIComponent('agreement termination')}&mk=dept&mo=eq&mv=legal&collection=${contracts.slug}&collection=${memos.slug}`,
      `/app/documents/${ids.nda}`,
      `/app/collections/${memos.uuid}`,
    ];
    await inEveryViewport(b, { baseUrl: d.url, email: t.email, password: PASSWORD }, async (page, { width, colorScheme }) => {
      for (const path of pages) {
        await page.goto(d.url + path);
        await assertFits(page, `${path} ${width} ${colorScheme}`);
      }
      await page.goto(`${d.url}/app/search`);
      await page.locator('#search-collection summary').click();
      await screenshot(page, `search-picker-${width}-${colorScheme}`);
    });
  });
});
