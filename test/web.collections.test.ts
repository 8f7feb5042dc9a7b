// Collections in a real browser: create (with validation errors summarised at the top and shown
// beside each field), rename, the public toggle, the public catalogue with subscribe and
// unsubscribe from another account, delete after a typed confirmation; and the refusals: other
// users' collections, forms without their CSRF token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { admin, launchBrowser, screenshot, signIn, type TestBrowser } from './helpers/browser.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const PASSWORD = 'collections page passphrase';

describe('web UI: collections', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let owner: Tenant;
  let reader: Tenant;
  let req: ReturnType<typeof http>;
  let page: Page;
  let readerPage: Page;
  let readerContext: BrowserContext;
  let uuid = '';
  let slug = '';

  before(async () => {
    [d, b] = await Promise.all([startTestDaemon({ label: 'web_coll' }), launchBrowser()]);
    req = http(d.url);
    owner = await createTenant(d, 'web-coll-owner');
    reader = await createTenant(d, 'web-coll-reader');
    for (const t of [owner, reader]) await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    page = (await b.newPage()).page;
    await signIn(page, d.url, owner.email, PASSWORD);
    ({ page: readerPage, context: readerContext } = await b.newPage());
    await signIn(readerPage, d.url, reader.email, PASSWORD);
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  const apiCollection = async (key: string, id: string) => req('GET', `/api/v1/collections/${id}/`, { key });
  /** A form post with this page's session cookie and CSRF token, outside the page (what a script could send). */
  const postAs = async (p: Page, ctx: BrowserContext, path: string, fields: Record<string, string>, token?: string) => {
    const cookie = (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const csrf = token ?? (await p.locator('input[name="_csrf"]').first().inputValue());
    return fetch(d.url + path, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: csrf, ...fields }),
      headers: { cookie },
      redirect: 'manual',
    });
  };

  it('refuses an empty name with a summary at the top and the error beside the field', async () => {
    await page.goto(`${d.url}/app/`);
    await page.getByRole('link', { name: 'New collection' }).click();
    await page.getByLabel('Description').fill('Handbooks for the support team');
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create collection' }).click(),
    ]);
    assert.equal(res.status(), 400);
    const summary = page.locator('#error-summary');
    assert.match((await summary.textContent()) ?? '', /There is a problem.*Name: Name must not be empty/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary', 'the summary takes focus');
    // The summary is above everything else on the page, and links to the field.
    const [summaryTop, headTop] = await Promise.all([summary.boundingBox(), page.locator('.page-head').boundingBox()]);
    assert.ok(summaryTop!.y < headTop!.y);
    assert.equal(await summary.getByRole('link').getAttribute('href'), '#coll-name');
    assert.equal((await page.locator('#coll-name-error').textContent())?.trim(), 'Name must not be empty.');
    assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Description').inputValue(), 'Handbooks for the support team', 'what was typed is kept');
    await screenshot(page, 'collection-new-errors');
    const list = await req('GET', '/api/v1/collections/', { key: owner.key });
    assert.equal(list.body.length, 0, 'nothing created');
  });

  it('creates a public collection and lands on its page', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Support Handbook');
    await page.getByLabel('Public').check();
    await Promise.all([
      page.waitForURL(/\/app\/collections\/[0-9a-f-]{36}\?done=created$/),
      page.getByRole('button', { name: 'Create collection' }).click(),
    ]);
    uuid = /collections\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    const api = await apiCollection(owner.key, uuid);
    assert.equal(api.status, 200);
    assert.equal(api.body.name, 'Support Handbook');
    assert.equal(api.body.description, 'Handbooks for the support team');
    assert.equal(api.body.is_public, true);
    slug = api.body.slug;
    assert.equal(slug, 'support-handbook');
    assert.match((await page.getByRole('status').first().textContent()) ?? '', /Collection created/);
    assert.match((await page.locator('.page-head').textContent()) ?? '', /support-handbook · public · yours/);
    await screenshot(page, 'collection-created');
  });

  it('renames it; the slug stays', async () => {
    await page.getByRole('link', { name: 'Edit' }).click();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Support Handbook');
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    assert.match((await page.locator('#error-summary').textContent()) ?? '', /Name must not be empty/);
    await page.getByLabel('Name', { exact: true }).fill('Support Manual');
    await screenshot(page, 'collection-edit');
    await Promise.all([page.waitForURL(/done=updated/), page.getByRole('button', { name: 'Save changes' }).click()]);
    const api = await apiCollection(owner.key, uuid);
    assert.equal(api.body.name, 'Support Manual');
    assert.equal(api.body.slug, 'support-handbook');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Support Manual');
  });

  it('toggles public and private in one click', async () => {
    await Promise.all([page.waitForURL(/done=private/), page.getByRole('button', { name: 'Make private' }).click()]);
    assert.equal((await apiCollection(owner.key, uuid)).body.is_public, false);
    await readerPage.goto(`${d.url}/app/catalogue`);
    assert.equal(await readerPage.getByRole('heading', { name: 'Support Manual' }).count(), 0, 'private: not in the catalogue');
    await Promise.all([page.waitForURL(/done=public/), page.getByRole('button', { name: 'Make public' }).click()]);
    assert.equal((await apiCollection(owner.key, uuid)).body.is_public, true);
  });

  it('another user finds it in the catalogue, subscribes, reads it, and unsubscribes', async () => {
    await readerPage.goto(`${d.url}/app/catalogue`);
    const card = readerPage.locator('article', { has: readerPage.getByRole('heading', { name: 'Support Manual' }) });
    assert.match((await card.textContent()) ?? '', /support-handbook.*Handbooks for the support team.*0 documents/);
    await screenshot(readerPage, 'catalogue');
    await Promise.all([readerPage.waitForURL(/done=subscribed/), card.getByRole('button', { name: /Subscribe/ }).click()]);
    const visible = await req('GET', '/api/v1/collections/', { key: reader.key });
    assert.deepEqual(
      visible.body.map((c: { slug: string; is_subscribed: boolean }) => [c.slug, c.is_subscribed]),
      [[slug, true]],
    );
    assert.match((await card.textContent()) ?? '', /subscribed/);

    // Read only for the subscriber: no edit, delete, public toggle or upload; an unsubscribe instead.
    await card.getByRole('link', { name: 'Support Manual' }).click();
    assert.match((await readerPage.locator('.page-head').textContent()) ?? '', /subscribed \(read only\)/);
    for (const name of ['Edit', 'Delete', 'Make private'])
      assert.equal(
        await readerPage
          .getByRole('link', { name, exact: true })
          .or(readerPage.getByRole('button', { name, exact: true }))
          .count(),
        0,
        name,
      );
    assert.equal(await readerPage.locator('form[data-upload]').count(), 0);
    await screenshot(readerPage, 'collection-subscribed');
    await Promise.all([readerPage.waitForURL(/done=unsubscribed/), readerPage.getByRole('button', { name: 'Unsubscribe' }).click()]);
    assert.deepEqual((await req('GET', '/api/v1/collections/', { key: reader.key })).body, []);
  });

  it('refuses changes to another user’s collection with the API’s answers', async () => {
    await readerPage.goto(`${d.url}/app/catalogue`);
    // Not subscribed: the collection is invisible to the reader, so every page and action is 404.
    for (const path of [`/app/collections/${uuid}`, `/app/collections/${uuid}/edit`]) {
      const r = await readerPage.goto(d.url + path);
      assert.equal(r?.status(), 404, path);
    }
    const hidden = await postAs(readerPage, readerContext, `/app/collections/${uuid}/edit`, { name: 'Hijacked' });
    assert.equal(hidden.status, 404);
    assert.match(await hidden.text(), /COLLECTION_NOT_FOUND/);
    // Subscribed: visible, still not theirs: 403 NOT_COLLECTION_OWNER, as from the API.
    await req('POST', `/api/v1/collections/${slug}/subscribe/`, { key: reader.key });
    for (const [path, fields] of [
      [`/app/collections/${uuid}/edit`, { name: 'Hijacked' }],
      [`/app/collections/${uuid}/visibility`, { is_public: 'false' }],
      [`/app/collections/${uuid}/delete`, { confirm: slug }],
    ] as const) {
      await readerPage.goto(`${d.url}/app/catalogue`);
      const r = await postAs(readerPage, readerContext, path, fields);
      assert.equal(r.status, 403, path);
      assert.match(await r.text(), /NOT_COLLECTION_OWNER|Only the owner/);
    }
    const api = await apiCollection(owner.key, uuid);
    assert.equal(api.body.name, 'Support Manual');
    assert.equal(api.body.is_public, true);
    await req('DELETE', `/api/v1/collections/${slug}/subscribe/`, { key: reader.key });
  });

  it('refuses a form without its CSRF token and changes nothing', async () => {
    await page.goto(`${d.url}/app/collections/new`);
    const r = await postAs(page, page.context(), '/app/collections', { name: 'Forged' }, 'forged-token');
    assert.equal(r.status, 403);
    assert.match(await r.text(), /CSRF_FAILED/);
    const cross = await fetch(`${d.url}/app/collections/${uuid}/visibility`, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: await page.locator('input[name="_csrf"]').first().inputValue(), is_public: 'false' }),
      headers: {
        cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; '),
        'sec-fetch-site': 'cross-site',
      },
      redirect: 'manual',
    });
    assert.equal(cross.status, 403, 'a cross-site post is refused even with the token');
    const names = (await req('GET', '/api/v1/collections/', { key: owner.key })).body.map((c: { name: string }) => c.name);
    assert.deepEqual(names, ['Support Manual']);
    assert.equal((await apiCollection(owner.key, uuid)).body.is_public, true);
  });

  it('deletes only after the slug is typed', async () => {
    await page.goto(`${d.url}/app/collections/${uuid}`);
    await page.getByRole('link', { name: 'Delete', exact: true }).click();
    assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', /Delete “Support Manual”\?/);
    await page.getByLabel(/Type the slug/).fill('support');
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Delete collection' }).click(),
    ]);
    assert.equal(res.status(), 400);
    assert.match((await page.locator('#error-summary').textContent()) ?? '', /That is not “support-handbook”/);
    assert.match((await page.locator('#confirm-slug-error').textContent()) ?? '', /That is not/);
    await screenshot(page, 'collection-delete-confirm');
    assert.equal((await apiCollection(owner.key, uuid)).status, 200, 'still there');
    await page.getByLabel(/Type the slug/).fill(slug);
    await Promise.all([
      page.waitForURL(/\/app\/\?done=collection-deleted/),
      page.getByRole('button', { name: 'Delete collection' }).click(),
    ]);
    const gone = await apiCollection(owner.key, uuid);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'COLLECTION_NOT_FOUND');
    assert.match((await page.getByRole('status').first().textContent()) ?? '', /Collection deleted/);
  });
});
