// The administrators' users page in a real browser: the organization's users with tier and
// status; change a tier, deactivate (after a confirmation) and reactivate, with the effect checked
// through the API; and the refusals: non-administrators, other organizations, oneself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { admin, launchBrowser, screenshot, signIn, type TestBrowser } from './helpers/browser.js';
import { createMember, createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const PASSWORD = 'admin page passphrase';

describe('web UI: users (administrators)', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let boss: Tenant;
  let member: Tenant;
  let outsider: Tenant;
  let req: ReturnType<typeof http>;
  let page: Page;
  let memberPage: Page;
  let memberContext: BrowserContext;

  before(async () => {
    [d, b] = await Promise.all([startTestDaemon({ label: 'web_admin' }), launchBrowser()]);
    req = http(d.url);
    boss = await createTenant(d, 'web-admin-boss');
    member = await createMember(d, boss, 'web-admin-member');
    outsider = await createTenant(d, 'web-admin-outsider');
    await d.deps.sql`update users set is_admin = true where id in ${d.deps.sql([boss.userId, outsider.userId])}`;
    for (const u of [boss, member, outsider]) await admin(d, ['set-password', '--email', u.email, '--password-stdin'], PASSWORD);
    page = (await b.newPage()).page;
    await signIn(page, d.url, boss.email, PASSWORD);
    ({ page: memberPage, context: memberContext } = await b.newPage());
    await signIn(memberPage, d.url, member.email, PASSWORD);
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  const row = (email: string) => page.locator(`tr[data-user="${email}"]`);
  const keyTier = async (key: string) => ((await req('GET', '/api/v1/keys/', { key })).body as { rate_tier: string }[])[0]!.rate_tier;
  const cookieOf = async (c: BrowserContext) => (await c.cookies()).map((x) => `${x.name}=${x.value}`).join('; ');

  it('does not exist for other users', async () => {
    await memberPage.goto(`${d.url}/app/`);
    assert.equal(await memberPage.getByRole('link', { name: 'Users' }).count(), 0, 'no nav link');
    const token = await memberPage.locator('input[name="_csrf"]').first().inputValue();
    assert.equal((await memberPage.goto(`${d.url}/app/admin/users`))?.status(), 404);
    const r = await fetch(`${d.url}/app/admin/users/${member.userId}/tier`, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: token, tier: 'pro' }),
      headers: { cookie: await cookieOf(memberContext) },
      redirect: 'manual',
    });
    assert.equal(r.status, 404);
    assert.equal(await keyTier(member.key), 'free');
  });

  it('lists the organization’s users with tier and status, and no one else', async () => {
    await page.goto(`${d.url}/app/`);
    await page.getByRole('link', { name: 'Users' }).click();
    assert.equal(new URL(page.url()).pathname, '/app/admin/users');
    const emails = await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-user')));
    assert.deepEqual(emails, [boss.email, member.email]);
    const text = (await row(member.email).textContent()) ?? '';
    for (const s of ['member', 'active']) assert.ok(text.includes(s), `${s} in ${text}`);
    assert.match((await row(boss.email).textContent()) ?? '', /owner.*admin.*active/);
    assert.equal(
      await row(member.email)
        .getByLabel(/Tier for/)
        .inputValue(),
      'free',
    );
    assert.equal(
      await row(boss.email)
        .getByRole('link', { name: /Deactivate/ })
        .count(),
      0,
      'not for oneself',
    );
    await screenshot(page, 'admin-users');
  });

  it('changes a user’s tier: every active key follows', async () => {
    await row(member.email)
      .getByLabel(/Tier for/)
      .selectOption('pro');
    await Promise.all([page.waitForURL(/done=tier/), row(member.email).getByRole('button', { name: /Set/ }).click()]);
    assert.match((await page.getByRole('status').first().textContent()) ?? '', new RegExp(`${member.email} is now on the pro tier`));
    assert.equal(await keyTier(member.key), 'pro');
    assert.equal(
      await row(member.email)
        .getByLabel(/Tier for/)
        .inputValue(),
      'pro',
    );
    assert.equal(await keyTier(boss.key), 'free', 'nobody else changed');
  });

  it('refuses an unknown tier beside its field', async () => {
    await page.goto(`${d.url}/app/admin/users`);
    await row(member.email)
      .getByLabel(/Tier for/)
      .evaluate((s) => {
        const o = document.createElement('option');
        o.value = 'platinum';
        o.selected = true;
        s.append(o);
      });
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      row(member.email).getByRole('button', { name: /Set/ }).click(),
    ]);
    assert.equal(res.status(), 400);
    assert.match((await page.locator('#error-summary').textContent()) ?? '', /Choose free, basic, pro/);
    assert.match((await row(member.email).locator('.field-error').textContent()) ?? '', /Choose free, basic, pro/);
    assert.equal(await keyTier(member.key), 'pro');
  });

  it('deactivates a user after a confirmation: keys and sessions stop at once; reactivates', async () => {
    await page.goto(`${d.url}/app/admin/users`);
    await row(member.email)
      .getByRole('link', { name: /Deactivate/ })
      .click();
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Deactivate ${member.email}?`);
    await screenshot(page, 'admin-deactivate-confirm');
    await Promise.all([page.waitForURL(/done=deactivated/), page.getByRole('button', { name: 'Deactivate user' }).click()]);
    assert.match((await row(member.email).textContent()) ?? '', /deactivated/);
    const refused = await req('GET', '/api/v1/collections/', { key: member.key });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'USER_ACCOUNT_DISABLED');
    await memberPage.goto(`${d.url}/app/keys`);
    assert.equal(new URL(memberPage.url()).pathname, '/app/sign-in', 'their session ended');

    await Promise.all([
      page.waitForURL(/done=reactivated/),
      row(member.email)
        .getByRole('button', { name: /Reactivate/ })
        .click(),
    ]);
    assert.match((await page.getByRole('status').first().textContent()) ?? '', /is active again/);
    assert.equal((await req('GET', '/api/v1/collections/', { key: member.key })).status, 200);
    await signIn(memberPage, d.url, member.email, PASSWORD);
    assert.equal(new URL(memberPage.url()).pathname, '/app/');
  });

  it('refuses deactivating oneself and touching other organizations', async () => {
    await page.goto(`${d.url}/app/admin/users`);
    const token = await page.locator('input[name="_csrf"]').first().inputValue();
    const cookie = await cookieOf(page.context());
    const post = (path: string, fields: Record<string, string> = {}) =>
      fetch(d.url + path, {
        method: 'POST',
        body: new URLSearchParams({ _csrf: token, ...fields }),
        headers: { cookie },
        redirect: 'manual',
      });
    const self = await post(`/app/admin/users/${boss.userId}/deactivate`);
    assert.equal(self.status, 400);
    assert.match(await self.text(), /You cannot deactivate your own account/);
    assert.equal((await req('GET', '/api/v1/collections/', { key: boss.key })).status, 200);
    // Another organization's user does not exist here, whatever the action.
    for (const [path, fields] of [
      [`/app/admin/users/${outsider.userId}/tier`, { tier: 'pro' }],
      [`/app/admin/users/${outsider.userId}/deactivate`, {}],
    ] as const) {
      const r = await post(path, fields);
      assert.equal(r.status, 404, path);
    }
    assert.equal((await page.goto(`${d.url}/app/admin/users/${outsider.userId}/deactivate`))?.status(), 404);
    assert.equal(await keyTier(outsider.key), 'free');
    assert.equal((await req('GET', '/api/v1/collections/', { key: outsider.key })).status, 200);
    // Without the CSRF token nothing happens either.
    const forged = await fetch(`${d.url}/app/admin/users/${member.userId}/deactivate`, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: 'forged' }),
      headers: { cookie },
      redirect: 'manual',
    });
    assert.equal(forged.status, 403);
    assert.equal((await req('GET', '/api/v1/collections/', { key: member.key })).status, 200);
  });
});
