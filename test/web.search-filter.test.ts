// The search page's collection, tags and date (added from / until) filters in a real browser.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { admin, launchBrowser, signIn, type TestBrowser } from './helpers/browser.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';

const PASSWORD = 'filter page passphrase';
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe('web UI: search filters (collection, tags, dates)', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let t: Tenant;
  let page: Page;

  before(async () => {
    [d, b] = await Promise.all([startTestDaemon({ label: 'web_filter', worker: true }), launchBrowser()]);
    const req = http(d.url);
    t = await createTenant(d, 'web-filter');
    const other = await createTenant(d, 'web-filter-b');
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    const garden = await makeCollection(req, t.key, 'Garden');
    const kitchen = await makeCollection(req, t.key, 'Kitchen');
    const mine = [
      (await addText(req, t.key, garden.uuid, 'Tomato care', 'Tomato plants need sun and water.', 'plants')).uuid,
      (await addText(req, t.key, kitchen.uuid, 'Tomato soup', 'Tomato soup needs basil and water.', 'recipes')).uuid,
    ];
    const theirs = await makeCollection(req, other.key, 'Secret garden');
    await waitSettled(req, t.key, mine);
    const secret = (await addText(req, other.key, theirs.uuid, 'Secret tomato', 'Tomato secrets of tenant B.', 'plants')).uuid;
    await waitSettled(req, other.key, [secret]);
    ({ page } = await b.newPage());
    await signIn(page, d.url, t.email, PASSWORD);
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  const titles = async () => (await page.locator('.result .doc-title').allInnerTexts()).map((s) => s.trim()).sort();

  const run = async (f: { collection?: string; tags?: string; from?: string; to?: string }) => {
    await page.goto(`${d.url}/app/search`);
    await page.getByLabel('Search', { exact: true }).fill('tomato water');
    if (f.collection) {
      await page.locator('#search-collection summary').click();
      await page.getByLabel(f.collection, { exact: true }).check();
    }
    if (f.tags !== undefined) await page.getByLabel('Tags').fill(f.tags);
    if (f.from !== undefined) await page.getByLabel('Added from').fill(f.from);
    if (f.to !== undefined) await page.getByLabel('Added until').fill(f.to);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/app\/search\?/);
  };

  it('narrows by collection, tags and the days a document was added; never shows another tenant’s', async () => {
    await run({});
    const all = await titles();
    assert.ok(all.includes('Tomato care') && all.includes('Tomato soup'), all.join());
    assert.ok(!all.includes('Secret tomato'));
    await run({ collection: 'Kitchen' });
    assert.deepEqual(await titles(), ['Tomato soup']);
    await run({ tags: 'plants' });
    assert.deepEqual(await titles(), ['Tomato care']);
    await run({ from: day(0), to: day(0) });
    assert.deepEqual(await titles(), ['Tomato care', 'Tomato soup']);
    await run({ from: day(1) });
    assert.deepEqual(await titles(), []);
    await run({ to: day(-1) });
    assert.deepEqual(await titles(), []);
  });

  it('a bad date is a field error with status 400', async () => {
    const r = await page.goto(`${d.url}/app/search?q=tomato&from=2024-13-45`);
    assert.equal(r?.status(), 400);
    assert.match((await page.locator('#search-from-error').textContent()) ?? '', /date/i);
  });
});
