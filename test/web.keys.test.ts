// The API Keys page in a real browser: create a scoped key and read its secret once, use it
// through the API, rotate it (old secret refused), edit grants, renew an expired key, revoke.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { admin, launchBrowser, screenshot, signIn, type TestBrowser } from './helpers/browser.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const PASSWORD = 'keys page passphrase 42';
const SECRET = /^svc_[A-Za-z0-9]{40}$/;

describe('web UI: API Keys page', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let t: Tenant;
  let req: ReturnType<typeof http>;
  let page: Page;
  let handbook: { uuid: string; slug: string };
  let finance: { uuid: string; slug: string };
  let secret = '';

  before(async () => {
    [d, b] = await Promise.all([startTestDaemon({ label: 'web_keys' }), launchBrowser()]);
    req = http(d.url);
    t = await createTenant(d, 'web-keys');
    await admin(d, ['set-password', '--email', t.email, '--password-stdin'], PASSWORD);
    handbook = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Handbook' } })).body;
    finance = (await req('POST', '/api/v1/collections/', { key: t.key, json: { name: 'Finance' } })).body;
    const ctx = await b.newPage();
    page = ctx.page;
    await ctx.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.url });
    await signIn(page, d.url, t.email, PASSWORD);
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  const row = (name: string) => page.locator('tbody tr', { has: page.locator('strong', { hasText: name }) }).first();
  const visibleSlugs = async (key: string) =>
    ((await req('GET', '/api/v1/collections/', { key })).body as { slug: string }[]).map((c) => c.slug).sort();
  const upload = (key: string, col: { uuid: string }) =>
    req('POST', `/api/v1/collections/${col.uuid}/documents/`, { key, json: { source_type: 'text', title: 'note', content: 'hello' } });

  it('lists the keys with their attributes', async () => {
    await page.goto(`${d.url}/app/keys`);
    const first = row('first key');
    const text = (await first.textContent()) ?? '';
    for (const s of ['full access', 'all collections', 'active', 'never', 'free']) assert.ok(text.includes(s), `${s} in ${text}`);
    assert.match(text, /svc_[A-Za-z0-9]{8}…/);
    await screenshot(page, 'keys-list');
  });

  it('refuses a scoped key without collections, keeping what was typed', async () => {
    await page.goto(`${d.url}/app/keys`);
    await page.getByLabel('Name', { exact: true }).fill('nothing granted');
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create key' }).click(),
    ]);
    assert.equal(res.status(), 400);
    assert.match((await page.locator('#grants-error').textContent()) ?? '', /at least one collection/);
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'nothing granted');
    // The errors are also summed up at the top, in view without scrolling, linked to their field.
    const summary = page.locator('#error-summary');
    assert.match((await summary.textContent()) ?? '', /There is a problem.*Collections: A scoped key needs at least one collection/);
    assert.equal(await summary.getByRole('link').getAttribute('href'), '#key-grants');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'error-summary');
    const box = (await summary.boundingBox())!;
    assert.ok(
      box.y + box.height <= 900 && box.y < (await page.locator('.page-head').boundingBox())!.y,
      'above the page head, in the first screen',
    );
    await screenshot(page, 'keys-create-errors');
  });

  it('creates a scoped key and shows its secret once, with a copy button', async () => {
    await page.goto(`${d.url}/app/keys`);
    await page.getByLabel('Name', { exact: true }).fill('ci-bot');
    await page.getByLabel('Expires').selectOption('30d');
    await page.getByLabel('Chosen collections').check();
    await page.getByLabel(/^Handbook/).selectOption('write');
    await page.getByLabel(/^Finance/).selectOption('read');
    await page.getByRole('button', { name: 'Create key' }).click();
    secret = ((await page.locator('#new-secret').textContent()) ?? '').trim();
    assert.match(secret, SECRET);
    assert.match((await page.getByRole('alert').textContent()) ?? '', /shown only once/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await screenshot(page, 'key-created');

    await page.getByRole('link', { name: /back to the keys/ }).click();
    assert.ok(!(await page.content()).includes(secret), 'the list never shows the secret');
    const text = (await row('ci-bot').textContent()) ?? '';
    for (const s of ['scoped', `${handbook.slug} write`, `${finance.slug} read`, 'active', 'in 30 days', 'never'])
      assert.ok(text.includes(s), `${s} in ${text}`);
    assert.ok(text.includes(secret.slice(0, 12)), 'prefix shown');
    const stored = await d.deps.sql`select 1 from api_keys where key_hash = sha256(${secret}::bytea)`;
    assert.equal(stored.length, 1, 'stored as its SHA-256 only');
  });

  it('the new key works through the API with exactly its grants', async () => {
    assert.deepEqual(await visibleSlugs(secret), [finance.slug, handbook.slug].sort());
    assert.equal((await upload(secret, handbook)).status, 201);
    const denied = await upload(secret, finance);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'WRITE_ACCESS_REQUIRED');
  });

  it('rotates after a confirmation: new secret once, old one refused, grants kept', async () => {
    await page.goto(`${d.url}/app/keys`);
    await row('ci-bot')
      .getByRole('link', { name: /Rotate/ })
      .click();
    assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', /Rotate “ci-bot”\?/);
    await screenshot(page, 'key-rotate-confirm');
    await page.getByRole('button', { name: 'Rotate key' }).click();
    const rotated = ((await page.locator('#new-secret').textContent()) ?? '').trim();
    assert.match(rotated, SECRET);
    assert.notEqual(rotated, secret);
    await screenshot(page, 'key-rotated');
    const old = await req('GET', '/api/v1/collections/', { key: secret });
    assert.equal(old.status, 401);
    assert.equal(old.body.code, 'INVALID_API_KEY');
    assert.deepEqual(await visibleSlugs(rotated), [finance.slug, handbook.slug].sort());
    secret = rotated;
  });

  it('edits grants', async () => {
    await page.goto(`${d.url}/app/keys`);
    await row('ci-bot')
      .getByRole('link', { name: /Manage/ })
      .click();
    await screenshot(page, 'key-manage');
    await page.getByLabel(/^Finance/).selectOption('none');
    await page.getByLabel(/^Handbook/).selectOption('read');
    await Promise.all([page.waitForURL(/done=grants/), page.getByRole('button', { name: 'Save grants' }).click()]);
    assert.deepEqual(await visibleSlugs(secret), [handbook.slug]);
    assert.equal((await upload(secret, handbook)).status, 403, 'write permission removed');
  });

  it('renews an expired key without a new secret', async () => {
    await d.deps.sql`update api_keys set expires_at = now() - interval '1 day' where key_hash = sha256(${secret}::bytea)`;
    const expired = await req('GET', '/api/v1/collections/', { key: secret });
    assert.equal(expired.body.code, 'API_KEY_EXPIRED');
    await page.goto(`${d.url}/app/keys`);
    assert.ok(((await row('ci-bot').textContent()) ?? '').includes('expired'));
    await row('ci-bot')
      .getByRole('link', { name: /Manage/ })
      .click();
    await page.getByLabel(/Renew expiry/).selectOption('1y');
    assert.equal(await page.getByLabel(/Apply the expiry/).isChecked(), true, 'pre-ticked for an expired key');
    await Promise.all([page.waitForURL(/done=updated/), page.getByRole('button', { name: 'Save', exact: true }).click()]);
    assert.equal((await req('GET', '/api/v1/collections/', { key: secret })).status, 200);
    const [k] = await d.deps.sql<
      { expires_in: string; expires_at: Date }[]
    >`select expires_in, expires_at from api_keys where key_hash = sha256(${secret}::bytea)`;
    assert.equal(k!.expires_in, '1y');
    assert.ok(k!.expires_at.getTime() > Date.now() + 360 * 86_400_000);
  });

  it('revokes a key after a confirmation', async () => {
    await page.goto(`${d.url}/app/keys`);
    await row('ci-bot')
      .getByRole('link', { name: /Revoke/ })
      .click();
    await Promise.all([page.waitForURL(/done=revoked/), page.getByRole('button', { name: 'Revoke key' }).click()]);
    assert.match((await page.getByRole('status').first().textContent()) ?? '', /revoked/i);
    assert.ok(((await row('ci-bot').textContent()) ?? '').includes('revoked'));
    // A revoked key never expires "in 30 days": its expiry no longer applies.
    assert.equal((await row('ci-bot').locator('td[data-label="Expires"]').textContent())?.trim(), 'revoked');
    const r = await req('GET', '/api/v1/collections/', { key: secret });
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'INVALID_API_KEY');
  });

  it('creates a full-access key that reaches every collection', async () => {
    await page.goto(`${d.url}/app/keys`);
    await page.getByLabel('Name', { exact: true }).fill('admin tool');
    await page.getByLabel('Expires').selectOption('never');
    await page.getByLabel('Full access').check();
    assert.equal(
      await page.locator('[data-scope-grants]').evaluate((e) => (e as HTMLFieldSetElement).disabled),
      true,
      'grants greyed out for full access (page script)',
    );
    assert.equal(await page.getByLabel(/^Handbook/).isDisabled(), true);
    await page.getByRole('button', { name: 'Create key' }).click();
    const full = ((await page.locator('#new-secret').textContent()) ?? '').trim();
    assert.deepEqual(await visibleSlugs(full), [finance.slug, handbook.slug].sort());
    assert.equal((await req('GET', '/api/v1/keys/', { key: full })).status, 200, 'may manage keys');
  });

  it('is usable with the keyboard alone: skip link, labelled controls, visible focus', async () => {
    await page.goto(`${d.url}/app/keys`);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
    // Every form control has an accessible name.
    const unlabelled = await page.evaluate(
      () =>
        Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea')).filter((el) => {
          const id = el.id;
          return !(id && document.querySelector(`label[for="${id}"]`)) && !el.closest('label') && !el.getAttribute('aria-label');
        }).length,
    );
    assert.equal(unlabelled, 0);
  });
});
