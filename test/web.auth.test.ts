// Web UI sessions in a real browser (Debian's Chromium through playwright-core) against a real
// daemon: sign-in and its refusals, throttling, CSRF, sign-out, invites, expiry, session download.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { samplePath } from './fixtures/samples.js';
import { admin, launchBrowser, screenshot, signIn, type TestBrowser } from './helpers/browser.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const PASSWORD = 'correct horse battery staple';

describe('web UI: sessions', () => {
  let d: TestDaemon;
  let b: TestBrowser;
  let owner: Tenant;
  let other: Tenant;
  let req: ReturnType<typeof http>;
  let docId: string;
  let offsetMs = 0;

  before(async () => {
    [d, b] = await Promise.all([
      startTestDaemon({ label: 'web_auth', clock: { now: () => new Date(Date.now() + offsetMs) } }),
      launchBrowser(),
    ]);
    req = http(d.url);
    owner = await createTenant(d, 'web-owner');
    other = await createTenant(d, 'web-other');
    assert.equal((await admin(d, ['set-password', '--email', owner.email, '--password-stdin'], `${PASSWORD}\n`)).code, 0);
    const col = await req('POST', '/api/v1/collections/', { key: owner.key, json: { name: 'Manuals' } });
    const f = new FormData();
    f.append('file', new Blob([await readFile(samplePath('sample.pdf'))], { type: 'application/pdf' }), 'manual.pdf');
    docId = (await req('POST', `/api/v1/collections/${col.body.uuid}/documents/`, { key: owner.key, body: f })).body.uuid;
  });
  after(async () => {
    await b?.close();
    await d?.close();
  });

  const sessionRows = async (userId: string) =>
    (await d.deps.sql<{ n: number }[]>`select count(*)::int as n from sessions where user_id = ${userId}`)[0]!.n;

  it('/ and /app/ lead a signed-out visitor to the sign-in form', async () => {
    const { page, context } = await b.newPage();
    await page.goto(d.url + '/');
    assert.equal(new URL(page.url()).pathname, '/app/sign-in');
    assert.equal(await page.getByRole('heading', { name: 'Sign in' }).isVisible(), true);
    await screenshot(page, 'sign-in');
    await context.close();
    const bare = await fetch(`${d.url}/app`, { redirect: 'manual' });
    assert.equal(bare.status, 303);
    assert.equal(bare.headers.get('location'), '/app/sign-in');
    const deep = await fetch(`${d.url}/app/usage?days=7`, { redirect: 'manual' });
    assert.equal(deep.headers.get('location'), '/app/sign-in?next=%2Fapp%2Fusage%3Fdays%3D7');
    // Static files need no session and are cached for good under their content version.
    const css = /href="(\/app\/static\/app\.css\?v=[0-9a-f]+)"/.exec(await (await fetch(`${d.url}/app/sign-in`)).text())![1]!;
    const r = await fetch(d.url + css);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /text\/css/);
    assert.match(r.headers.get('cache-control') ?? '', /immutable/);
  });

  it('refuses a wrong password with the same message as an unknown email, then signs in', async () => {
    const { page, context } = await b.newPage();
    await page.goto(`${d.url}/app/sign-in`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password');
    const wrong = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    assert.equal(wrong[0].status(), 401);
    const message = await page.getByRole('alert').textContent();
    assert.match(message ?? '', /Email or password is incorrect/);
    await screenshot(page, 'sign-in-refused');
    assert.equal(await sessionRows(owner.userId), 0);

    await page.getByLabel('Email').fill('nobody@example.test');
    await page.getByLabel('Password').fill('whatever it is');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal(await page.getByRole('alert').textContent(), message);

    await signIn(page, d.url, owner.email, PASSWORD);
    assert.equal(new URL(page.url()).pathname, '/app/');
    assert.equal(await page.getByRole('heading', { name: 'Collections', level: 1 }).isVisible(), true);
    const cookie = (await context.cookies()).find((c) => c.name === 'docsift_session')!;
    assert.ok(cookie, 'session cookie set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    assert.equal(cookie.secure, false, 'plain http: not Secure');
    assert.equal(await sessionRows(owner.userId), 1);
    // Only the hash of the cookie is stored.
    const stored = await d.deps.sql<{ id_hash: Buffer }[]>`select id_hash from sessions where user_id = ${owner.userId}`;
    assert.notEqual(stored[0]!.id_hash.toString('base64url'), cookie.value);
    await context.close();
  });

  it('marks the cookie Secure behind an https proxy and sends security headers', async () => {
    const r = await fetch(`${d.url}/app/sign-in`, { headers: { 'x-forwarded-proto': 'https' } });
    const token = /name="_csrf" value="([^"]+)"/.exec(await r.text())![1]!;
    const pre = r.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    assert.match(r.headers.getSetCookie()[0]!, /; Secure/);
    const body = new URLSearchParams({ _csrf: token, email: owner.email, password: PASSWORD, next: '/app/keys' });
    const signed = await fetch(`${d.url}/app/sign-in`, {
      method: 'POST',
      body,
      headers: { cookie: pre, 'x-forwarded-proto': 'https' },
      redirect: 'manual',
    });
    assert.equal(signed.status, 303);
    assert.equal(signed.headers.get('location'), '/app/keys');
    const set = signed.headers.getSetCookie().find((c) => c.startsWith('docsift_session='))!;
    for (const flag of ['HttpOnly', 'Secure', 'SameSite=Lax', 'Path=/']) assert.ok(set.includes(flag), `${flag} in ${set}`);
    assert.match(r.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal(r.headers.get('x-frame-options'), 'DENY');
    assert.equal(r.headers.get('cache-control'), 'no-store');
  });

  it('throttles sign-in after 5 failures for one email and address (429 page)', async () => {
    const victim = await createTenant(d, 'web-throttle');
    await admin(d, ['set-password', '--email', victim.email, '--password-stdin'], PASSWORD);
    const { page, context } = await b.newPage();
    const attempt = async (password: string) => {
      await page.goto(`${d.url}/app/sign-in`);
      await page.getByLabel('Email').fill(victim.email);
      await page.getByLabel('Password').fill(password);
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      return res;
    };
    for (let i = 0; i < 5; i++) assert.equal((await attempt(`wrong guess ${i}`)).status(), 401);
    const limited = await attempt(PASSWORD);
    assert.equal(limited.status(), 429, 'even the right password waits');
    assert.ok(Number(limited.headers()['retry-after']) > 0);
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Too many failed sign-ins/);
    await screenshot(page, 'sign-in-throttled');
    await context.close();
  });

  it('refuses a form post without its CSRF token (403 CSRF_FAILED), in the browser and by hand', async () => {
    const { page, context } = await b.newPage();
    await signIn(page, d.url, owner.email, PASSWORD);
    await page.goto(`${d.url}/app/keys`);
    await page.getByLabel('Name', { exact: true }).fill('csrf-less');
    await page.getByLabel('Full access').check();
    await page.evaluate(() =>
      document.querySelectorAll('form[action="/app/keys"] input[name="_csrf"]').forEach((e) => {
        e.remove();
      }),
    );
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create key' }).click(),
    ]);
    assert.equal(res.status(), 403);
    assert.match((await page.locator('main').textContent()) ?? '', /CSRF_FAILED/);
    await screenshot(page, 'csrf-refused');
    const keys = await req('GET', '/api/v1/keys/', { key: owner.key });
    assert.ok(!keys.body.some((k: { name: string }) => k.name === 'csrf-less'), 'no key was created');

    // With the session cookie but a wrong token, and with a cross-site fetch label: both refused.
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    for (const [token, extra] of [
      ['forged', {}],
      ['', { 'sec-fetch-site': 'cross-site' }],
    ] as const) {
      const r = await fetch(`${d.url}/app/sign-out`, {
        method: 'POST',
        body: new URLSearchParams({ _csrf: token }),
        headers: { cookie, ...extra },
        redirect: 'manual',
      });
      assert.equal(r.status, 403);
    }
    assert.equal((await sessionRows(owner.userId)) > 0, true, 'still signed in');
    await context.close();
  });

  it('downloads a document with the session cookie; the API otherwise still needs a key', async () => {
    const { page, context } = await b.newPage();
    await signIn(page, d.url, owner.email, PASSWORD);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /Download.*manual/ }).click()]);
    const path = await download.path();
    const bytes = await readFile(path!);
    assert.deepEqual(bytes, await readFile(samplePath('sample.pdf')));
    assert.equal(download.suggestedFilename(), 'manual.pdf');

    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const viaSession = await fetch(`${d.url}/api/v1/documents/${docId}/download/`, { headers: { cookie }, redirect: 'manual' });
    assert.equal(viaSession.status, 302);
    // The session opens only that route: the document detail and the key list still want a key.
    for (const p of [`/api/v1/documents/${docId}/`, '/api/v1/keys/', '/api/v1/collections/']) {
      const r = await fetch(d.url + p, { headers: { cookie } });
      assert.equal(r.status, 401, p);
      assert.equal((await r.json()).code, 'AUTHENTICATION_REQUIRED');
    }
    // No credential at all, and another user's session: 401 and 404.
    assert.equal((await fetch(`${d.url}/api/v1/documents/${docId}/download/`, { redirect: 'manual' })).status, 401);
    await admin(d, ['set-password', '--email', other.email, '--password-stdin'], PASSWORD);
    const o = await b.newPage();
    await signIn(o.page, d.url, other.email, PASSWORD);
    const otherCookie = (await o.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const foreign = await fetch(`${d.url}/api/v1/documents/${docId}/download/`, { headers: { cookie: otherCookie }, redirect: 'manual' });
    assert.equal(foreign.status, 404);
    // A key still works, and an Authorization header is never overridden by the cookie.
    assert.equal((await req('GET', `/api/v1/documents/${docId}/download/`, { key: owner.key })).status, 302);
    const badKey = await fetch(`${d.url}/api/v1/documents/${docId}/download/`, {
      headers: { cookie, authorization: 'Bearer svc_nope' },
      redirect: 'manual',
    });
    assert.equal(badKey.status, 401);
    await o.context.close();
    await context.close();
  });

  it('signs out: the session row is deleted and the old cookie no longer works', async () => {
    const { page, context } = await b.newPage();
    await signIn(page, d.url, owner.email, PASSWORD);
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const before = await sessionRows(owner.userId);
    await Promise.all([page.waitForURL(/signed_out/), page.getByRole('button', { name: 'Sign out' }).click()]);
    assert.equal(await sessionRows(owner.userId), before - 1);
    const replay = await fetch(`${d.url}/app/keys`, { headers: { cookie }, redirect: 'manual' });
    assert.equal(replay.status, 303);
    assert.match(replay.headers.get('location') ?? '', /^\/app\/sign-in/);
    const post = await fetch(`${d.url}/app/keys`, {
      method: 'POST',
      body: new URLSearchParams({ name: 'late', access: 'full', expires_in: 'never' }),
      headers: { cookie },
      redirect: 'manual',
    });
    assert.equal(post.status, 401, 'a form from an ended session changes nothing');
    await context.close();
  });

  it('ends sessions after 2 hours idle and 7 days in total', async () => {
    const { page, context } = await b.newPage();
    await signIn(page, d.url, owner.email, PASSWORD);
    try {
      offsetMs = 119 * 60_000;
      await page.goto(`${d.url}/app/keys`);
      assert.equal(new URL(page.url()).pathname, '/app/keys', 'active within the idle window');
      offsetMs += 121 * 60_000;
      await page.goto(`${d.url}/app/keys`);
      assert.equal(new URL(page.url()).pathname, '/app/sign-in', 'idle too long');
      await signIn(page, d.url, owner.email, PASSWORD);
      // Continuous activity (last_seen_at kept fresh) does not stretch a session past 7 days.
      const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const signedInAt = offsetMs;
      const at = async (ms: number) => {
        offsetMs = signedInAt + ms;
        await d.deps.sql`update sessions set last_seen_at = ${new Date(Date.now() + offsetMs - 60_000)} where user_id = ${owner.userId}`;
        return (await fetch(`${d.url}/app/keys`, { headers: { cookie }, redirect: 'manual' })).status;
      };
      assert.equal(await at(7 * 86_400_000 - 120_000), 200, 'just before the absolute end');
      assert.equal(await at(7 * 86_400_000 + 60_000), 303, 'just after it');
    } finally {
      offsetMs = 0;
      await context.close();
    }
  });

  it('admin invite prints a one-time link where the user sets a password', async () => {
    const invited = await createTenant(d, 'web-invite');
    const r = await admin(d, ['invite', '--email', invited.email, '--json']);
    assert.equal(r.code, 0, r.err);
    const link = JSON.parse(r.out).link as string;
    assert.ok(link.startsWith(`${d.url}/app/invite/`));
    const { page, context } = await b.newPage();
    await page.goto(link);
    await page.getByLabel('New password').fill('short');
    await page.getByLabel('Repeat the password').fill('short');
    await page.getByRole('button', { name: /Set password/ }).click();
    assert.match((await page.locator('.field-error').textContent()) ?? '', /at least 12/);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await Promise.all([page.waitForURL((u) => u.pathname === '/app/'), page.getByRole('button', { name: /Set password/ }).click()]);
    await screenshot(page, 'after-invite');
    await page.goto(link);
    assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', /not valid/, 'used once only');
    await context.close();
    const fresh = await b.newPage();
    await signIn(fresh.page, d.url, invited.email, PASSWORD);
    assert.equal(new URL(fresh.page.url()).pathname, '/app/');
    await fresh.context.close();
  });
});
