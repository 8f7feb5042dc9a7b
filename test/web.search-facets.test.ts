// The search page's facet counts beside the results (daemon/src/web/search-facets.tsx): tags,
// collection and the metadata keys in scope, each value with how many matching documents carry it,
// clickable into the filter; at 1280 and 390 px, light and dark; never another tenant's values.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { admin, assertFits, inEveryViewport, launchBrowser, screenshot, signIn, type TestBrowser } from './helpers/browser.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';
import { makeCollection, waitSettled } from './helpers/docs.js';
import { addDoc, DOCS } from './helpers/facet-docs.js';

const PASSWORD = 'facet page passphrase';

describe('web UI: facet counts beside search results', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let t: Tenant;

  before(async () => {
    [d, b] = await Promise.all([startTestDaemon({ label: 'web_facets', worker: true }), launchBrowser()]);
    const req = http(d.url);
    t = await createTenant(d, 'web-facets');
    const other = await createTenant(d, 'web-facets-b');
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    const main = await makeCollection(req, t.key, 'Main');
    const ids = [];
    for (const doc of DOCS) ids.push(await addDoc(req, t.key, main.uuid, doc));
    const theirs = await makeCollection(req, other.key, 'Theirs');
    const secret = await addDoc(req, other.key, theirs.uuid, { ...DOCS[0]!, metadata: { dept: 'secretdept' } });
    await waitSettled(req, t.key, ids);
    await waitSettled(req, other.key, [secret]);
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  const facet = async (page: Page, heading: string) =>
    (
      await page
        .locator('aside.facets section.facet')
        .filter({ has: page.getByRole('heading', { name: heading, exact: true }) })
        .locator('a')
        .allInnerTexts()
    ).map((s) => s.replace(/\s+/g, ' ').trim());

  it('shows value counts of the matching documents, and a click narrows the search to the value', async () => {
    const { page } = await b.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, d.url, t.email, PASSWORD);
    await page.goto(`${d.url}/app/search?q=termination&mode=text`);
    assert.deepEqual(await facet(page, 'dept'), ['legal 2', 'finance 1']);
    assert.deepEqual(await facet(page, 'Tags'), ['contracts 2', 'finance 1', 'legal 1']);
    assert.ok(!((await page.locator('aside.facets').textContent()) ?? '').includes('secretdept'), 'another tenant’s values never show');
    await page.locator('aside.facets a', { hasText: 'finance 1' }).first().click();
    await page.waitForURL(/[?&]tags=finance/);
    assert.deepEqual(await page.locator('.result .doc-title').allInnerTexts(), ['F1']);
    await page.goto(`${d.url}/app/search?q=termination&mode=text`);
    await page
      .locator('aside.facets section.facet')
      .filter({ has: page.getByRole('heading', { name: 'dept', exact: true }) })
      .getByRole('link', { name: /legal/ })
      .click();
    await page.waitForURL(/mk=dept/);
    assert.deepEqual((await page.locator('.result .doc-title').allInnerTexts()).sort(), ['L1', 'L2']);
    assert.deepEqual(await facet(page, 'dept'), ['legal 2']);
    assert.equal(await page.locator('aside.facets a[aria-current]').count(), 1);
  });

  it('fits 1280 and 390 px, light and dark, without console errors', async () => {
    await inEveryViewport(b, { baseUrl: d.url, email: t.email, password: PASSWORD }, async (page, { width, colorScheme }) => {
      await page.goto(`${d.url}/app/search?q=termination&mode=text`);
      assert.ok(await page.locator('aside.facets').isVisible());
      await assertFits(page, `facets ${width} ${colorScheme}`);
      await screenshot(page, `search-facets-${width}-${colorScheme}`);
    });
  });
});
